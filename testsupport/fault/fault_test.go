package fault

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

// echoEnv makes the test binary an echo server on the address it holds
// (started in a node's namespace by the tests below).
const echoEnv = "FAULT_TEST_ECHO"

func TestMain(m *testing.M) {
	if addr := os.Getenv(echoEnv); addr != "" {
		echo(addr)
		return
	}
	os.Exit(m.Run())
}

func echo(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("listening")
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() { io.Copy(c, c); c.Close() }()
	}
}

// startEcho runs an echo server on node i's p2p port, in its namespace.
func startEcho(t *testing.T, f *Fabric, i int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := f.Command(i, self)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%d", echoEnv, f.NodeIP(i), p2pPort))
	p := proctest.Start(t, "echo", cmd, new(proctest.LogBuffer))
	t.Cleanup(p.Kill)
	p.WaitUp(t, 10*time.Second, 20*time.Millisecond, "listen", func() bool { return strings.Contains(p.Logs(), "listening") })
}

// roundTrip sends a line over c and reads it back, within timeout.
func roundTrip(c net.Conn, r *bufio.Reader, timeout time.Duration) error {
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err == nil && line != "ping\n" {
		err = fmt.Errorf("echoed %q", line)
	}
	return err
}

// TestFabricCut: a connection through a link stalls while the two nodes
// are cut and resumes after Heal; the test's own view (node addresses)
// is untouched by the cut.
func TestFabricCut(t *testing.T) {
	f := NewFabric(t, 2)
	startEcho(t, f, 1)
	l := NewLinks(t, f, p2pPort)

	// From the test's namespace, through link (0, 1).
	c, err := net.Dial("tcp", l.Addr(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if err := roundTrip(c, r, 5*time.Second); err != nil {
		t.Fatalf("before the cut: %v", err)
	}

	// Node 0's namespace dials node 1 through the link: the
	// path a node's peer connection takes; a dropped SYN makes the dial
	// hang until timeout gives up.
	dial := func() error {
		return f.Command(0, "timeout", "3", "bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/%s/%d", f.PeerIP(1), LinkPort(0))).Run()
	}
	if err := dial(); err != nil {
		t.Fatalf("node 0 cannot reach node 1 before the cut: %v", err)
	}
	f.Cut(0, 1)
	if err := dial(); err == nil {
		t.Fatal("node 0 reached node 1 across the cut")
	}
	f.Heal()
	if err := dial(); err != nil {
		t.Fatalf("after heal: %v", err)
	}
	if err := roundTrip(c, r, 5*time.Second); err != nil {
		t.Fatalf("the connection from before the cut: %v", err)
	}
}

// TestLinkShapes: latency delays the shaped direction by at least its
// value, and a dropped direction delivers nothing while the other flows.
func TestLinkShapes(t *testing.T) {
	f := NewFabric(t, 2)
	startEcho(t, f, 1)
	l := NewLinks(t, f, p2pPort)

	c, err := net.Dial("tcp", l.Addr(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if err := roundTrip(c, r, 5*time.Second); err != nil {
		t.Fatal(err)
	}

	// The dialer on link (0, 1) stands for node 0: its bytes go 0 -> 1.
	l.Shape(0, 1, Shape{Latency: 300 * time.Millisecond})
	start := time.Now()
	if err := roundTrip(c, r, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("round trip %v under a 300 ms one-way latency", d)
	}
	l.Clear()

	l.Shape(1, 0, Shape{Drop: true}) // the echo's answers vanish
	if err := roundTrip(c, r, 2*time.Second); err == nil {
		t.Fatal("an answer came back over a dropped direction")
	}
	l.Clear() // closes the connection; a new one flows both ways
	c2, err := net.Dial("tcp", l.Addr(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if err := roundTrip(c2, bufio.NewReader(c2), 5*time.Second); err != nil {
		t.Fatalf("after clear: %v", err)
	}
}

// TestLossToxic: with every segment lost, each chunk comes a
// retransmission timeout late or more; nothing is lost from the stream.
func TestLossToxic(t *testing.T) {
	f := NewFabric(t, 2)
	startEcho(t, f, 1)
	l := NewLinks(t, f, p2pPort)
	c, err := net.Dial("tcp", l.Addr(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	l.Shape(0, 1, Shape{Loss: 1})
	start := time.Now()
	if err := roundTrip(c, r, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	// Lost again at each retransmission until the backoff's cap.
	if d, least := time.Since(start), minRTO*(1+2+4+8); d < least {
		t.Fatalf("round trip %v with every segment lost, want at least %v", d, least)
	}
}

// TestLinkBandwidth: a 4 KB/s cap makes 8 KB take at least most of two
// seconds to cross, and all of it arrives.
func TestLinkBandwidth(t *testing.T) {
	f := NewFabric(t, 2)
	startEcho(t, f, 1)
	l := NewLinks(t, f, p2pPort)
	c, err := net.Dial("tcp", l.Addr(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	l.Shape(0, 1, Shape{RateKB: 4})
	data := []byte(strings.Repeat("0123456789abcdef", 512)) // 8 KB
	start := time.Now()
	go c.Write(data)
	c.SetDeadline(time.Now().Add(30 * time.Second))
	got := make([]byte, len(data))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != string(data) {
		t.Fatal("the echo differs")
	}
	if d := time.Since(start); d < 1500*time.Millisecond {
		t.Fatalf("8 KB crossed a 4 KB/s link in %v", d)
	}
}
