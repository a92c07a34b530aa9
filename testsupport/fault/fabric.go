package fault

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Fabric is a private Ethernet of network namespaces: node i lives in a
// namespace of its own, with a veth pair whose outer end is on a bridge in
// the test's namespace. The test process reaches every node (JSON-RPC) at
// NodeIP(i) from the bridge's address; peers reach node j only through the
// links (Links) listening on PeerIP(j), so a cut in the kernel between two
// nodes' namespaces leaves the test's view of both intact.
//
// Cuts are nftables rules in the nodes' namespaces that drop packets
// silently, as a pulled cable or a firewall does: connections are not
// refused, they stall, and TCP resumes them if the cut heals soon enough.
type Fabric struct {
	t      testing.TB
	prefix string // names of the namespaces and interfaces
	net    string // "10.a.b." of the /24
	bridge string
	count  int

	mu   sync.Mutex
	cuts map[[2]int]bool // unordered pairs, low index first
}

// fabrics numbers the fabrics of this test process (names, subnets);
// probes Require's probe namespaces (parallel tests probe at once).
var fabrics, probes atomic.Int32

// Require skips the test unless it can build a Fabric: it runs as root,
// with ip (iproute2) and nft (nftables), and may add a network namespace.
func Require(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("fault injection needs root (network namespaces, veth pairs, nftables): run as root, as .ci/run does")
	}
	for _, tool := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("fault injection needs %s (Debian: apt-get install iproute2 nftables)", tool)
		}
	}
	probe := fmt.Sprintf("bfprobe%d-%d", os.Getpid(), probes.Add(1))
	if out, err := exec.Command("ip", "netns", "add", probe).CombinedOutput(); err != nil {
		t.Skipf("fault injection needs network namespaces: ip netns add: %v %s", err, out)
	}
	exec.Command("ip", "netns", "del", probe).Run()
}

// NewFabric makes count namespaces on a new bridge and removes them when
// the test ends (after the processes in them, which the test started
// later and so stops first).
func NewFabric(t testing.TB, count int) *Fabric {
	t.Helper()
	Require(t)
	if count > 90 {
		t.Fatal("a fabric holds at most 90 nodes")
	}
	seq := fabrics.Add(1)
	f := &Fabric{t: t, prefix: fmt.Sprintf("bf%d%c", os.Getpid()%100000, 'a'+rune(seq%26)), count: count, cuts: map[[2]int]bool{}}
	f.bridge = f.prefix + "br"
	f.net = freeSubnet(t, int(seq))
	t.Cleanup(f.remove)
	f.must("ip", "link", "add", f.bridge, "type", "bridge")
	f.must("ip", "addr", "add", f.net+"254/24", "dev", f.bridge)
	for i := range count {
		// The links toward node i listen here, in the test's namespace.
		f.must("ip", "addr", "add", f.PeerIP(i)+"/32", "dev", f.bridge)
	}
	f.must("ip", "link", "set", f.bridge, "up")
	for i := range count {
		ns, veth := f.Namespace(i), f.prefix+"v"+fmt.Sprint(i)
		f.must("ip", "netns", "add", ns)
		f.must("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
		f.must("ip", "link", "set", veth, "master", f.bridge, "up")
		f.must("ip", "-n", ns, "addr", "add", f.NodeIP(i)+"/24", "dev", "eth0")
		f.must("ip", "-n", ns, "link", "set", "eth0", "up")
		f.must("ip", "-n", ns, "link", "set", "lo", "up")
		if err := f.nftScript(i, `table inet fault {
  chain in { type filter hook input priority 0; policy accept; }
  chain out { type filter hook output priority 0; policy accept; }
}`); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// freeSubnet picks a 10.a.b.0/24 no interface of this host uses.
func freeSubnet(t testing.TB, seq int) string {
	out, err := exec.Command("ip", "-o", "-4", "addr", "show").Output()
	if err != nil {
		t.Fatalf("ip addr show: %v", err)
	}
	for try := range 200 {
		n := (os.Getpid()*31 + seq*7 + try*13) % 50000
		net := fmt.Sprintf("10.%d.%d.", 150+n%100, n/100%250)
		if !strings.Contains(string(out), " "+net) {
			return net
		}
	}
	t.Fatal("no free 10.x.y.0/24 subnet")
	return ""
}

func (f *Fabric) remove() {
	for i := range f.count {
		exec.Command("ip", "netns", "del", f.Namespace(i)).Run()
		exec.Command("ip", "link", "del", f.prefix+"v"+fmt.Sprint(i)).Run()
	}
	exec.Command("ip", "link", "del", f.bridge).Run()
}

// Count is the number of namespaces.
func (f *Fabric) Count() int { return f.count }

// Namespace is node i's network namespace (ip netns).
func (f *Fabric) Namespace(i int) string { return fmt.Sprintf("%s%d", f.prefix, i) }

// NodeIP is node i's address in its namespace.
func (f *Fabric) NodeIP(i int) string { return fmt.Sprintf("%s%d", f.net, i+1) }

// PeerIP is where node i's peers reach it: the links toward node i listen
// on this address of the test's namespace.
func (f *Fabric) PeerIP(i int) string { return fmt.Sprintf("%s%d", f.net, 101+i) }

// Command is name with args run in node i's namespace.
func (f *Fabric) Command(i int, name string, args ...string) *exec.Cmd {
	// ip netns exec execs the program in place: the process is name's.
	return exec.Command("ip", append([]string{"netns", "exec", f.Namespace(i), name}, args...)...)
}

// Cut drops every packet between nodes a and b, both ways, from now on.
func (f *Fabric) Cut(a, b int) {
	f.t.Helper()
	f.cut([][2]int{{a, b}})
}

// Partition cuts every pair of nodes in different groups, all at once.
func (f *Fabric) Partition(groups ...[]int) {
	f.t.Helper()
	var pairs [][2]int
	for gi, g := range groups {
		for _, h := range groups[gi+1:] {
			for _, a := range g {
				for _, b := range h {
					pairs = append(pairs, [2]int{a, b})
				}
			}
		}
	}
	f.cut(pairs)
}

// Isolate cuts node i from every other node, all at once.
func (f *Fabric) Isolate(i int) {
	f.t.Helper()
	var pairs [][2]int
	for j := range f.count {
		pairs = append(pairs, [2]int{i, j})
	}
	f.cut(pairs)
}

// cut drops the packets of pairs: one nftables transaction per namespace,
// the namespaces in parallel, so that a partition takes hold at once (a
// proposer isolated in its round must not get its proposal out first).
func (f *Fabric) cut(pairs [][2]int) {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	scripts := map[int]*strings.Builder{}
	rule := func(ns, peer int) {
		b := scripts[ns]
		if b == nil {
			b = new(strings.Builder)
			scripts[ns] = b
		}
		fmt.Fprintf(b, "add rule inet fault out ip daddr %s drop\n", f.PeerIP(peer))
		fmt.Fprintf(b, "add rule inet fault in ip saddr %s drop\n", f.PeerIP(peer))
	}
	for _, p := range pairs {
		a, b := p[0], p[1]
		key := [2]int{min(a, b), max(a, b)}
		if a == b || f.cuts[key] {
			continue
		}
		f.cuts[key] = true
		rule(a, b)
		rule(b, a)
	}
	errs := make(chan error, len(scripts))
	for ns, script := range scripts {
		go func() { errs <- f.nftScript(ns, script.String()) }()
	}
	for range scripts {
		if err := <-errs; err != nil {
			f.t.Fatal(err)
		}
	}
}

// Heal removes every cut.
func (f *Fabric) Heal() {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	errs := make(chan error, f.count)
	for i := range f.count {
		go func() { errs <- f.nftScript(i, "flush chain inet fault in\nflush chain inet fault out\n") }()
	}
	for range f.count {
		if err := <-errs; err != nil {
			f.t.Fatal(err)
		}
	}
	clear(f.cuts)
}

// nftScript runs an nft script (one transaction) in node i's namespace.
func (f *Fabric) nftScript(i int, script string) error {
	cmd := exec.Command("ip", "netns", "exec", f.Namespace(i), "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nft in %s: %v\n%s\n%s", f.Namespace(i), err, out, script)
	}
	return nil
}

func (f *Fabric) must(name string, args ...string) {
	f.t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		f.t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
