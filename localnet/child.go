package localnet

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// child is one process of the network, its output in DIR/logs/NAME.log
// (and, with --verbose, on the supervisor's stream, each line prefixed).
type child struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{} // closed once the process has exited
	err  error         // Wait's result, once done
}

// spawner starts children from one OS thread that lives as long as the
// supervisor: Linux sends the parent-death signal when the thread that
// started a child exits, not the process, and Go may end idle threads.
type spawner struct{ reqs chan spawnReq }

type spawnReq struct {
	cmd *exec.Cmd
	err chan error
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan spawnReq)}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		for r := range s.reqs {
			r.err <- r.cmd.Start()
		}
	}()
	return s
}

func (s *spawner) start(cmd *exec.Cmd) error {
	r := spawnReq{cmd: cmd, err: make(chan error)}
	s.reqs <- r
	return <-r.err
}

// close ends the spawner's thread, once every child has exited.
func (s *spawner) close() { close(s.reqs) }

// startChild starts path with args as name.
func (n *Network) startChild(name, path string, args ...string) (*child, error) {
	logs := filepath.Join(n.dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(logs, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = n.dir
	cmd.SysProcAttr = childAttr()
	var out io.Writer = f
	if n.opts.Verbose != nil {
		out = io.MultiWriter(f, &prefixWriter{prefix: fmt.Sprintf("%-9s| ", name), w: n.opts.Verbose, mu: &n.verboseMu})
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := n.spawn.start(cmd); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, log: f, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		f.Close()
		close(c.done)
	}()
	return c, nil
}

// exited reports whether the child has exited.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stopAll sends SIGTERM to every child and waits up to timeout for them,
// then kills those left.
func stopAll(cs []*child, timeout time.Duration) {
	for _, c := range cs {
		if c != nil && !c.exited() {
			c.cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	deadline := time.After(timeout)
	for _, c := range cs {
		if c == nil {
			continue
		}
		select {
		case <-c.done:
		case <-deadline:
			c.cmd.Process.Kill()
			<-c.done
		}
	}
}

// prefixWriter writes whole lines to w, each after prefix.
type prefixWriter struct {
	prefix string
	w      io.Writer
	mu     *sync.Mutex
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		bw := bufio.NewWriter(p.w)
		bw.WriteString(p.prefix)
		bw.Write(p.buf[:i+1])
		bw.Flush()
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}
