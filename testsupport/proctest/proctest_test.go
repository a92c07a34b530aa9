package proctest

import (
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFreePort(t *testing.T) {
	port := FreePort(t)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("port %d not free: %v", port, err)
	}
	ln.Close()
}

func TestWaitFor(t *testing.T) {
	n := 0
	WaitFor(t, 5*time.Second, time.Millisecond, "three calls", func() bool {
		n++
		return n == 3
	})
	if n != 3 {
		t.Errorf("cond called %d times, want 3", n)
	}
}

func TestProcess(t *testing.T) {
	p := Start(t, "sleeper", exec.Command("sh", "-c", "echo up; exec sleep 30"), new(LogBuffer))
	p.WaitUp(t, 10*time.Second, 10*time.Millisecond, "print up", func() bool {
		return strings.Contains(p.Logs(), "up")
	})
	if c := p.ExitCode(); c != -1 {
		t.Errorf("running: exit code %d, want -1", c)
	}
	if !p.Stop(syscall.SIGTERM, 10*time.Second) {
		t.Fatal("did not stop on SIGTERM")
	}
	select {
	case <-p.Exited():
	default:
		t.Error("Exited not closed after Stop")
	}

	p = Start(t, "failing", exec.Command("sh", "-c", "echo out; echo err >&2; exit 3"), new(LogBuffer))
	<-p.Exited()
	if c := p.ExitCode(); c != 3 {
		t.Errorf("exit code %d, want 3", c)
	}
	if got := p.Logs(); got != "out\nerr\n" {
		t.Errorf("logs %q", got)
	}
	p.Kill() // after exit: returns at once
}
