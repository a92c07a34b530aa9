package localnet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Detach starts the prepared network's supervisor in the background
// (this program again, `network up --dir DIR`, in a session of its own,
// its output in DIR/logs/network.log) and returns once it is ready, or
// with its log if it failed.
func (n *Network) Detach(ctx context.Context) (int, error) {
	logs := filepath.Join(n.dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return 0, err
	}
	logPath := filepath.Join(logs, "network.log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	os.Remove(filepath.Join(n.dir, readyFile))
	cmd := exec.Command(n.bins.basalt, "network", "up", "--dir", n.dir)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = detachAttr()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		if _, err := os.Stat(filepath.Join(n.dir, readyFile)); err == nil {
			return cmd.Process.Pid, nil
		}
		select {
		case err := <-exited:
			return 0, fmt.Errorf("the network's supervisor exited (%v):\n%s", err, tailFile(logPath, 30))
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
			<-exited
			return 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Down stops the network running in dir in the background: SIGTERM to
// its supervisor, which stops the processes in order; it waits until the
// supervisor has exited.
func Down(ctx context.Context, dir string) error {
	if _, err := ReadManifest(dir); err != nil {
		return fmt.Errorf("%s holds no network: %w", dir, err)
	}
	pid, ok := runningPID(dir)
	if !ok {
		return errors.New("the network in " + dir + " is not running")
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return err
	}
	for syscall.Kill(pid, 0) == nil {
		if _, err := os.Stat(filepath.Join(dir, pidFile)); err != nil {
			break // the supervisor removed it: everything has stopped
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}
