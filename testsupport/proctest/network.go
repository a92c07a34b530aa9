package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// NetworkUp starts `basalt network up --detach` with args on a free port
// range, as a user does from a folder of their own, and stops it with
// `network down` when the test ends. The three programs are built and put on
// the network's PATH (network up finds basalt-privacy and basalt-signer
// there). It returns the folder the network was made in, which holds the
// network's files (basalt-network/) and is where a client script is run,
// and the base port (node 1's HTTP JSON-RPC; its WebSocket is base+1).
func NetworkUp(t testing.TB, args ...string) (work string, base int) {
	t.Helper()
	bin := t.TempDir()
	for _, pkg := range []string{"./cmd/basalt", "./cmd/basalt-privacy", "./cmd/basalt-signer"} {
		if err := os.Symlink(Build(t, pkg), filepath.Join(bin, filepath.Base(pkg))); err != nil {
			t.Fatal(err)
		}
	}
	work = t.TempDir()
	network := func(args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, "basalt"), append([]string{"network"}, args...)...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		return cmd
	}
	base = FreePortRange(t, 40)
	up := append([]string{"up", "--detach", "--base-port", strconv.Itoa(base)}, args...)
	if out, err := network(up...).CombinedOutput(); err != nil {
		t.Fatalf("network up: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := network("down").CombinedOutput(); err != nil {
			t.Errorf("network down: %v\n%s", err, out)
		}
	})
	return work, base
}
