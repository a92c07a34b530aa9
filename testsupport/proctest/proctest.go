// Package proctest holds what end-to-end tests need to run the module's
// programs as real processes: building a main package once per test
// binary, picking free loopback ports, collecting a process's output and
// starting, waiting for and stopping the process.
//
// testsupport/testnode (basalt), testsupport/ptmtest (basalt-privacy) and
// cmd/basalt-signer's end-to-end tests build on it.
package proctest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// build is the outcome of building one main package.
type build struct {
	once sync.Once
	dir  string // temporary directory holding the binary
	path string
	err  error
}

var (
	buildsMu sync.Mutex
	builds   = map[string]*build{}
)

// Build builds the main package pkg, a path relative to the module root such
// as "./cmd/basalt", once per test binary and returns the binary's path. The
// binary is named after pkg's last element.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	buildsMu.Lock()
	b := builds[pkg]
	if b == nil {
		b = new(build)
		builds[pkg] = b
	}
	buildsMu.Unlock()
	b.once.Do(func() { b.dir, b.path, b.err = goBuild(pkg) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// goBuild builds pkg into a new temporary directory.
func goBuild(pkg string) (dir, path string, err error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", "", err
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	name := filepath.Base(pkg)
	if dir, err = binDir(name); err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", path, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return dir, "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return dir, path, nil
}

// binRoot holds every test binary's builds, one directory per build named
// <program>-<pid of the test binary>.
func binRoot() string { return filepath.Join(os.TempDir(), "basalt-test-bin") }

// binDir makes the directory of this test binary's build of name. Test
// binaries without a TestMain calling RemoveBinaries leave their builds
// behind (about 60 MB each, a few hundred a day of test runs), so it first
// removes the builds of test binaries that are no longer running.
func binDir(name string) (string, error) {
	root := binRoot()
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			i := strings.LastIndexByte(e.Name(), '-')
			if i < 0 {
				continue
			}
			pid, err := strconv.Atoi(e.Name()[i+1:])
			if err != nil || pid == os.Getpid() || processAlive(pid) {
				continue
			}
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
	dir := filepath.Join(root, fmt.Sprintf("%s-%d", name, os.Getpid()))
	return dir, os.MkdirAll(dir, 0o755)
}

// processAlive reports whether a process with this pid exists (signal 0
// checks without sending; EPERM means it exists under another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// RemoveBinaries deletes the binaries Build made. Call it from TestMain
// after m.Run.
func RemoveBinaries() {
	buildsMu.Lock()
	defer buildsMu.Unlock()
	for _, b := range builds {
		if b.dir != "" {
			os.RemoveAll(b.dir)
		}
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	givenMu.Lock()
	defer givenMu.Unlock()
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		// The kernel may hand a just-closed port out again; a test that
		// picks several ports before starting its processes would then
		// give two of them the same one.
		if !given[port] {
			given[port] = true
			return port
		}
	}
	t.Fatal("no unused free port after 100 tries")
	return 0
}

// given holds the ports FreePort has handed out in this test process.
var (
	givenMu sync.Mutex
	given   = map[int]bool{}
)

// WaitFor checks cond every interval until it holds, failing the test if
// timeout passes first.
func WaitFor(t testing.TB, timeout, interval time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(interval)
	}
}

// LogBuffer is a bytes.Buffer that a process's stdout and stderr may write
// to while tests read it.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends process output; safe for concurrent use.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
