package graphql_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/testsupport/testnode"
)

// harnessArtefacts are the fixtures whose expectations come from the fakes
// of Besu's test harness (AbstractEthGraphQLHttpServiceTest; the "Harness
// artefacts" section of the fixtures' README) rather than from what a node
// does. A real node answers them differently, so against one they are
// expected to fail; each entry says why. TestBesuFixturesWithHarnessMocks
// reproduces the fakes in process and passes them all.
var harnessArtefacts = map[string]string{
	// The harness mocks the synchroniser (starting 1, current 2, highest
	// 3); a node without peers is not synchronising and answers null.
	"eth_syncing": "mocked syncing: the node is not synchronising (syncing: null)",
	// The harness pool lists one unsigned transaction (nonce 42, gas
	// 654321) while counting none; the node's pool is empty.
	"graphql_pending": "mocked pending transaction: the node's pool is empty",
	// The harness pool accepts every signed transaction but nonce 16. The
	// senders of these have no funds on this chain, so the node's pool
	// refuses them (-32004 Upfront cost exceeds account balance).
	"eth_sendRawTransaction_contractCreation": "mocked pool: the sender has no funds on this chain",
	"eth_sendRawTransaction_messageCall":      "mocked pool: the sender has no funds on this chain",
	"eth_sendRawTransaction_transferEther":    "mocked pool: the sender has no funds on this chain",
	"graphql_variable_bytes":                  "mocked pool: eth_sendRawTransaction_transferEther's transaction in a variable",
}

// harnessFlags configure the node as far as flags reproduce Besu's harness:
// its minimum gas price is 0 (gasPrice is max(minimum, next base fee)).
var harnessFlags = []string{"--min-gas-price=0"}

// TestBesuGraphQLConformance imports Besu's conformance chain with the real
// basalt binary (`blocks import`), starts the node with GraphQL on, and
// replays every fixture of ../shared/conformance/besu/graphql as Besu's
// EthGraphQLHttpBySpecTest does (status and whole JSON answer compared). It
// prints "N passed, M failed" and fails on any failure outside
// harnessArtefacts.
func TestBesuGraphQLConformance(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the basalt binary")
	}
	fixtures := loadFixtures(t)
	chainDir := filepath.Join(besuDir, "chain")
	genesis := "--genesis-file=" + filepath.Join(chainDir, "testGenesis.json")
	dataDir := t.TempDir()
	cmd := exec.Command(testnode.Binary(t), "--data-path="+dataDir, genesis, "blocks", "import",
		"--from="+filepath.Join(chainDir, "testBlockchain.blocks"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("blocks import: %v\n%s", err, out)
	}
	n := testnode.StartGraphQL(t, dataDir, append([]string{genesis}, harnessFlags...)...)

	var unexpected, nowPassing []string
	failed := 0
	for _, f := range fixtures {
		reason := replay(n.GraphQLURL, f)
		expected := harnessArtefacts[f.name]
		switch {
		case reason != "" && expected != "":
			failed++
			t.Logf("FAIL %s (harness artefact: %s): %s", f.name, expected, reason)
		case reason != "":
			failed++
			unexpected = append(unexpected, f.name)
			t.Errorf("FAIL %s: %s", f.name, reason)
		case expected != "":
			nowPassing = append(nowPassing, f.name)
		}
	}
	summary := fmt.Sprintf("Besu GraphQL fixtures: %d passed, %d failed (%d unexpected)", len(fixtures)-failed, failed, len(unexpected))
	fmt.Println(summary)
	t.Log(summary)
	if len(nowPassing) > 0 {
		t.Errorf("now passing, remove from harnessArtefacts: %s", strings.Join(nowPassing, ", "))
	}

	// The node's wiring: the same chain as JSON-RPC, GET requests, and the
	// shared --host-allowlist.
	var head struct{ Hash string }
	n.MustCall(&head, "eth_getBlockByNumber", "latest", false)
	resp, err := http.Get(n.GraphQLURL + "?query=" + url.QueryEscape("{ block { hash } }"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `{"data":{"block":{"hash":"` + head.Hash + `"}}}`; resp.StatusCode != 200 || string(body) != want {
		t.Errorf("GET: %d %s, want %s", resp.StatusCode, body, want)
	}
	req, _ := http.NewRequest("POST", n.GraphQLURL, strings.NewReader("{ block { hash } }"))
	req.Host = "evil.example"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || string(body) != `{"message":"Host not authorized."}` {
		t.Errorf("foreign Host: %d %s", resp.StatusCode, body)
	}
}
