package proctest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Process is a started command whose output goes to a LogBuffer. A
// goroutine waits for it, so Exited is closed once it has exited.
type Process struct {
	// Name names the process in failure messages ("node", "signer").
	Name   string
	Cmd    *exec.Cmd
	logs   *LogBuffer
	exited chan struct{}
}

// Start starts cmd with its stdout and stderr going to logs, failing the
// test if it cannot. The caller stops the process (Kill, Stop), typically in
// a t.Cleanup.
func Start(t testing.TB, name string, cmd *exec.Cmd, logs *LogBuffer) *Process {
	t.Helper()
	p := &Process{Name: name, Cmd: cmd, logs: logs, exited: make(chan struct{})}
	cmd.Stdout = logs
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	return p
}

// Logs returns what the process printed so far.
func (p *Process) Logs() string { return p.logs.String() }

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// WaitUp checks up every interval until it holds. It fails the test, with
// the process's output, if the process exits first or timeout passes;
// what says what up waits for ("answer JSON-RPC").
func (p *Process) WaitUp(t testing.TB, timeout, interval time.Duration, what string, up func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !up() {
		select {
		case <-p.exited:
			t.Fatalf("%s exited during start-up:\n%s", p.Name, p.Logs())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not %s within %v:\n%s", p.Name, what, timeout, p.Logs())
		}
		time.Sleep(interval)
	}
}

// Stop sends sig and waits up to timeout for the process to exit. It
// reports whether the process exited.
func (p *Process) Stop(sig os.Signal, timeout time.Duration) bool {
	p.Cmd.Process.Signal(sig)
	select {
	case <-p.exited:
		return true
	case <-time.After(timeout):
		return false
	}
}

// MustStop is Stop with a 30s timeout that fails the test if the process
// does not exit.
func (p *Process) MustStop(t testing.TB, sig os.Signal) {
	t.Helper()
	if !p.Stop(sig, 30*time.Second) {
		t.Fatalf("%s did not exit after %v", p.Name, sig)
	}
}

// Kill kills the process and waits for it to exit.
func (p *Process) Kill() {
	p.Cmd.Process.Kill()
	<-p.exited
}

// ExitCode returns the exit code once the process has exited (-1 before).
func (p *Process) ExitCode() int {
	select {
	case <-p.exited:
		return p.Cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

// userHZ is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, which
// Linux fixes at 100 for user space whatever the kernel's tick rate).
const userHZ = 100

// CPUTime returns the CPU time (user plus system) the process has used so
// far, from /proc/<pid>/stat; an error where there is no /proc (a test then
// skips). Tests use it to tell an idle process from a spinning one, never
// to time work.
func (p *Process) CPUTime() (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields after its closing parenthesis. utime and stime are
	// fields 14 and 15, so the 12th and 13th after it.
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	var ticks uint64
	for _, v := range f[11:13] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
