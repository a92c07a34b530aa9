package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A build directory of a test binary that has exited is removed by the
// next build; a running one's (this process's) is kept.
func TestBinDirRemovesDeadBuilds(t *testing.T) {
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Skip("no `true` to get a dead pid:", err)
	}
	dead := filepath.Join(binRoot(), fmt.Sprintf("basalt-privacy-%d", done.Process.Pid))
	if err := os.MkdirAll(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	mine, err := binDir("other")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(mine)
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the exited test binary's build %s is still there (%v)", dead, err)
	}
	again, err := binDir("again")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(again)
	if _, err := os.Stat(mine); err != nil {
		t.Fatalf("this process's build was removed: %v", err)
	}
}
