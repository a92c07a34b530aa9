package ptmtest

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/basaltchain/basalt/internal/proctest"
	"github.com/basaltchain/basalt/ptm/keys"
)

// Binary builds ./cmd/basalt-privacy (once per test binary) and returns its
// path.
func Binary(t testing.TB) string {
	t.Helper()
	return proctest.Build(t, "./cmd/basalt-privacy")
}

// Process is a running basalt-privacy process.
type Process struct {
	*API
	t    testing.TB
	Conf Conf
	Keys []keys.PublicKey
	path string
	env  []string
	logs *proctest.LogBuffer
	proc *proctest.Process // the current run; replaced by Restart
}

// StartProcess writes c's config and runs the binary on it until the client
// API answers /upcheck. The process is killed when the test ends. env adds
// environment variables (KEY=value).
func StartProcess(t testing.TB, c Conf, env ...string) *Process {
	t.Helper()
	path, ks := c.Write(t)
	p := &Process{t: t, Conf: c, Keys: ks, path: path, env: env, logs: new(proctest.LogBuffer)}
	p.API = NewAPI(fmt.Sprintf("http://127.0.0.1:%d", c.ClientPort))
	if c.ClientTLS != nil {
		p.API = NewTLSAPI(fmt.Sprintf("https://127.0.0.1:%d", c.ClientPort), c.ClientTLS)
	}
	p.API.Token = c.ClientToken
	p.start()
	t.Cleanup(func() {
		p.proc.Kill()
		if t.Failed() {
			t.Logf("%s logs:\n%s", c.Dir, p.logs.String())
		}
	})
	return p
}

func (p *Process) start() {
	p.t.Helper()
	cmd := exec.Command(Binary(p.t), p.path)
	cmd.Env = append(os.Environ(), p.env...)
	p.proc = proctest.Start(p.t, "basalt-privacy", cmd, p.logs)
	// Generous: a password-locked key costs an argon2i derivation, slow on
	// a busy machine.
	p.proc.WaitUp(p.t, 60*time.Second, 20*time.Millisecond, "answer /upcheck", p.Up)
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
	p.proc.MustStop(p.t, sig)
}

// Restart starts the process again with the same configuration (after Kill
// or Stop).
func (p *Process) Restart() {
	p.t.Helper()
	p.start()
}

// ExitCode returns the exit code once the process has exited (-1 before).
func (p *Process) ExitCode() int { return p.proc.ExitCode() }
