package ethers

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

// TestQuickstart runs the Quickstart (docs/get-started/quickstart.md): `basalt network up
// --privacy --signer` (in the background here), then its ethers.js
// snippet, quickstart.mjs, which must be the page's block verbatim: a
// transfer through the signer, a private contract for nodes 1 and 2 that
// node 3 cannot read.
func TestQuickstart(t *testing.T) {
	if _, err := os.Stat("node_modules"); err != nil {
		t.Skip("test/ethers/node_modules is absent: run `npm ci` in test/ethers to run the JavaScript client tests")
	}
	nodeJS, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node_modules is installed but Node.js is not on PATH")
	}
	script, err := os.ReadFile("quickstart.mjs")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../docs/get-started/quickstart.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```js\n"+string(script)+"```\n") {
		t.Fatal("quickstart.mjs differs from the snippet of docs/get-started/quickstart.md")
	}
	abs, err := filepath.Abs("quickstart.mjs")
	if err != nil {
		t.Fatal(err)
	}

	work, _ := proctest.NetworkUp(t, "--privacy", "--signer")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeJS, abs)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	t.Logf("node quickstart.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("quickstart.mjs: %v", err)
	}
	word := "0x000000000000000000000000000000000000000000000000000000000000002a"
	for _, want := range []string{"transfer mined in block", "node1 " + word, "node2 " + word, "node3 0x\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
}
