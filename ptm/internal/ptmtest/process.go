package ptmtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/basaltchain/basalt/ptm/keys"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds ./cmd/basalt-privacy (once per test binary) and returns its
// path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			buildErr = err
			return
		}
		root := filepath.Dir(strings.TrimSpace(string(out)))
		dir, err := os.MkdirTemp("", "basalt-privacy-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "basalt-privacy")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/basalt-privacy")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Process is a running basalt-privacy process.
type Process struct {
	*API
	t      testing.TB
	Conf   Conf
	Keys   []keys.PublicKey
	path   string
	env    []string
	cmd    *exec.Cmd
	logs   *syncBuffer
	exited chan struct{}
}

// StartProcess writes c's config and runs the binary on it until the client
// API answers /upcheck. The process is killed when the test ends. env adds
// environment variables (KEY=value).
func StartProcess(t testing.TB, c Conf, env ...string) *Process {
	t.Helper()
	path, ks := c.Write(t)
	p := &Process{t: t, Conf: c, Keys: ks, path: path, env: env, logs: new(syncBuffer)}
	p.API = NewAPI(fmt.Sprintf("http://127.0.0.1:%d", c.ClientPort))
	p.start()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("%s logs:\n%s", c.Dir, p.logs.String())
		}
	})
	return p
}

func (p *Process) start() {
	p.t.Helper()
	p.cmd = exec.Command(Binary(p.t), p.path)
	p.cmd.Env = append(os.Environ(), p.env...)
	p.cmd.Stdout = p.logs
	p.cmd.Stderr = p.logs
	p.exited = make(chan struct{})
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	exited := p.exited
	cmd := p.cmd
	go func() {
		cmd.Wait()
		close(exited)
	}()
	// Generous: a password-locked key costs an argon2i derivation, slow on
	// a busy machine.
	deadline := time.Now().Add(60 * time.Second)
	for !p.Up() {
		select {
		case <-exited:
			p.t.Fatalf("basalt-privacy exited during start-up:\n%s", p.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("basalt-privacy did not answer /upcheck within 60s:\n%s", p.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// NodeURL is the URL the process advertises.
func (p *Process) NodeURL() string { return p.Conf.NodeURL() }

// Logs returns what the process printed so far.
func (p *Process) Logs() string { return p.logs.String() }

// Kill sends SIGKILL and waits for the process to exit.
func (p *Process) Kill() {
	p.t.Helper()
	p.Stop(syscall.SIGKILL)
}

// Stop sends sig and waits for the process to exit.
func (p *Process) Stop(sig syscall.Signal) {
	p.t.Helper()
	p.cmd.Process.Signal(sig)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.t.Fatalf("basalt-privacy did not exit after %v", sig)
	}
}

// Restart starts the process again with the same configuration (after Kill
// or Stop).
func (p *Process) Restart() {
	p.t.Helper()
	p.start()
}

// ExitCode returns the exit code once the process has exited (-1 before).
func (p *Process) ExitCode() int {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}
