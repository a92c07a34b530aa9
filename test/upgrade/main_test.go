// Package upgrade tests rolling upgrades between Basalt releases end to
// end: validators of the previous release (the commit named in the file
// previous-release, built by the test from git history) and of the current
// code in one network, upgraded one at a time under a steady transaction
// stream, on QBFT and IBFT 2.0; nodes wiped and resynced from the other
// version's blocks. docs/concepts/versions-and-upgrades.md is the promise
// these tests hold the code to.
package upgrade

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

// TestMain builds the previous release before the tests run: a first
// build compiles the whole module and may take minutes on a busy machine,
// which the tests' -timeout (it starts with m.Run) should not count. Later
// runs find it in the cache.
func TestMain(m *testing.M) {
	flag.Parse()
	commit, err := previousCommit()
	if err == nil {
		previousPath, previousSkip, err = buildPrevious(commit)
	}
	previousErr = err
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// previousCommit reads the commit hash in the file previous-release.
func previousCommit() (string, error) {
	f, err := os.Open("previous-release")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if len(line) != 40 || strings.Trim(line, "0123456789abcdef") != "" {
			return "", fmt.Errorf("previous-release: %q is not a full commit hash", line)
		}
		return line, nil
	}
	return "", errors.New("previous-release names no commit")
}

// The previous release's binary, as TestMain built it: its path, or why
// the tests skip, or why they fail.
var (
	previousPath string
	previousSkip string
	previousErr  error
)

// previousBinary returns the path of the previous release's basalt,
// built from git history (git archive of the commit, go build) the first
// time and then kept under the user cache directory by commit and Go
// version. It skips the test when the repository's history lacks the
// commit (a shallow clone) or git is absent.
func previousBinary(t testing.TB) string {
	t.Helper()
	if previousSkip != "" {
		t.Skip(previousSkip)
	}
	if previousErr != nil {
		t.Fatal(previousErr)
	}
	return previousPath
}

func buildPrevious(commit string) (path, skip string, err error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", "git is not on PATH: the previous release is built from the repository's history", nil
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", "not in a git repository: the previous release is built from its history", nil
	}
	root := strings.TrimSpace(string(top))
	if err := exec.Command("git", "-C", root, "cat-file", "-e", commit+"^{commit}").Run(); err != nil {
		return "", fmt.Sprintf("git history lacks the previous release %s (a shallow clone? `git fetch --unshallow`)", commit[:12]), nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "basalt-test", "previous-release", commit+"-"+runtime.Version()+"-"+runtime.GOOS+"-"+runtime.GOARCH)
	path = filepath.Join(dir, "basalt")
	if _, err := os.Stat(path); err == nil {
		return path, "", nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	src, err := os.MkdirTemp("", "basalt-previous-src-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(src)
	archive := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, commit, src)
	if out, err := archive.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("git archive %s: %v\n%s", commit, err, out)
	}
	// Built beside the final name, then renamed: a concurrent or
	// interrupted build never leaves a partial binary at path.
	tmp, err := os.CreateTemp(dir, "basalt-build-")
	if err != nil {
		return "", "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	build := exec.Command("go", "build", "-o", tmp.Name(), "./cmd/basalt")
	build.Dir = src
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if out, err := build.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build of the previous release %s: %v\n%s", commit, err, out)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", "", err
	}
	return path, "", nil
}
