package upgrade

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/testnode"
	"github.com/basaltchain/basalt/testsupport/txload"
)

// rate is the transfers per second the stream offers; go test uses one
// this machine sustains beside other tests. See
// docs/concepts/versions-and-upgrades.md for the 500 tx/s run.
var rate = flag.Int("upgrade.rate", 40, "transfers per second offered during the rolling upgrade")

const (
	previous = "previous"
	current  = "current"
)

// TestRollingUpgrade upgrades a network of 4 validators of the previous
// release to the current code one node at a time under a steady stream
// of transfers, on QBFT and IBFT 2.0 (see rolling).
func TestRollingUpgrade(t *testing.T) {
	old := previousBinary(t)
	for _, engine := range bftnet.Engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			rolling(t, old, engine, *rate)
		})
	}
}

// rolling runs the rolling upgrade of 4 validators of engine, started on
// the previous release's binary old, with rate transfers per second:
//
//   - each validator in turn is taken out of the stream's targets,
//     stopped, and restarted on the current binary with its data (the first
//     one wiped: it syncs the whole chain the previous release made). While
//     it is down the other three are exactly a quorum: at the second and
//     third steps they are of both versions, so every block then carries
//     commit seals of both, and a round change (the stopped node's turn to
//     propose) needs RoundChange messages of both: the test waits for a
//     block committed at a round above 0;
//   - once all run the current code, one is wiped and started on the
//     previous release (the other way): it syncs the blocks the current
//     code made, and with another validator stopped every block needs its
//     seal; then it is upgraded again, on the database the previous release
//     wrote;
//   - at the end: the same hash at every height on every node, every
//     acknowledged transfer mined exactly once.
func rolling(t *testing.T, old, engine string, rate int) {
	keys := txload.Senders("upgrade-"+engine, txload.SendersFor(rate))
	net := bftnet.GenerateEngine(t, engine, 4, 1, txload.Alloc(keys))
	n := make([]*testnode.P2PNode, 4)
	version := make([]string, 4)
	for i := range n {
		n[i] = testnode.StartP2PBinary(t, old, t.TempDir(), net.NodeArgs(i)...)
		version[i] = previous
	}
	connect(t, n...)
	bftnet.WaitHeight(t, 60*time.Second, 2, n...)
	first := bftnet.Head(t, n...)
	load := txload.Start(2018, keys, rate, n...)
	defer load.Stop()

	binary := map[string]string{previous: old, current: ""}
	versionOf := func(a common.Address) string { return version[slices.Index(net.Addrs, a)] }
	totalRC := 0
	for i := range n {
		others := slices.Delete(slices.Clone(n), i, i+1)
		load.SetTargets(others...)
		n[i].Stop(syscall.SIGTERM)
		wiped := i == 0
		if wiped {
			if err := os.RemoveAll(n[i].DataDir); err != nil {
				t.Fatal(err)
			}
		}
		down := bftnet.Head(t, others...)
		live := slices.Delete(slices.Clone(version), i, i+1)
		mixed := slices.Contains(live, previous) && slices.Contains(live, current)
		// Blocks above down+1 are made without node i (down+1 may hold
		// its commit seal, sent before it stopped). With the live three of
		// both versions, wait for a round change among them.
		var rc uint64
		if mixed {
			rc = waitRoundChange(t, net, others, down+2)
		} else {
			bftnet.WaitHeight(t, 60*time.Second, down+3, others...)
		}
		end := bftnet.Head(t, others...)
		for h := down + 2; h <= end; h++ {
			hdr := bftnet.Header(t, others[0], h)
			if hdr == nil {
				break
			}
			seals := net.Sealers(t, hdr)
			if slices.Contains(seals, net.Addrs[i]) {
				t.Fatalf("block %d sealed by stopped validator %d", h, i)
			}
			if mixed && (!slices.ContainsFunc(seals, func(a common.Address) bool { return versionOf(a) == previous }) ||
				!slices.ContainsFunc(seals, func(a common.Address) bool { return versionOf(a) == current })) {
				t.Fatalf("block %d: seals %v of 3 live validators of both versions lack one version", h, seals)
			}
		}

		n[i].RestartBinary(binary[current])
		version[i] = current
		connect(t, n...)
		bftnet.WaitHeight(t, 60*time.Second, bftnet.Head(t, others...), n[i])
		load.SetTargets(n...)
		back := bftnet.Head(t, n...)
		bftnet.WaitHeight(t, 60*time.Second, back+3, n...)
		after := net.RoundChanges(t, n[0], back+1, back+3)
		totalRC += net.RoundChanges(t, n[0], down+1, back+3)
		t.Logf("%s step %d (validator %d to the current code%s, versions of the live three mixed: %v): %d blocks made while it was down (%s), %d of the 3 blocks after it rejoined at a round above 0",
			engine, i+1, i, map[bool]string{true: ", data wiped", false: ""}[wiped], mixed, end-down, roundChange(rc), after)
	}

	// The other way: validator 3 wiped and started on the previous
	// release syncs the blocks the current code made; with validator 0
	// stopped every block needs its commit seal.
	load.SetTargets(n[:3]...)
	n[3].Stop(syscall.SIGTERM)
	if err := os.RemoveAll(n[3].DataDir); err != nil {
		t.Fatal(err)
	}
	n[3].RestartBinary(binary[previous])
	version[3] = previous
	connect(t, n...)
	bftnet.WaitHeight(t, 60*time.Second, bftnet.Head(t, n[:3]...), n[3])
	load.SetTargets(n[1:]...)
	n[0].Stop(syscall.SIGTERM)
	down := bftnet.Head(t, n[1:]...)
	rc := waitRoundChange(t, net, n[1:], down+2)
	end := bftnet.Head(t, n[1:]...)
	for h := down + 2; h <= end; h++ {
		seals := net.Sealers(t, bftnet.Header(t, n[1], h))
		if !slices.Contains(seals, net.Addrs[3]) || slices.Contains(seals, net.Addrs[0]) {
			t.Fatalf("block %d sealed by %v: want the previous release's validator 3, not stopped validator 0", h, seals)
		}
	}
	t.Logf("%s: validator 3 wiped and resynced on the previous release from the current code's blocks; with validator 0 down, %d blocks sealed with it (round change at block %d)",
		engine, end-down, rc)
	totalRC += net.RoundChanges(t, n[1], down+1, end)
	load.SetTargets(n[1], n[2]) // validator 3 restarts too
	n[0].RestartBinary(binary[current])
	version[0] = current
	n[3].RestartBinary(binary[current]) // on the database the previous release wrote
	version[3] = current
	connect(t, n...)
	load.SetTargets(n...)
	back := bftnet.Head(t, n...)
	bftnet.WaitHeight(t, 60*time.Second, back+3, n...)

	load.Stop()
	fig := load.Check(t, n[1].Node, 90*time.Second)
	bftnet.WaitHeight(t, 60*time.Second, bftnet.Head(t, n...), n...)
	low := bftnet.SameChain(t, n...)
	if fig.Acknowledged == 0 {
		t.Fatal("no transfer acknowledged")
	}
	t.Logf("%s rolling upgrade: blocks %d..%d (%d produced), one chain on all 4 up to %d, %d blocks at a round above 0; %s",
		engine, first, low, low-first, low, totalRC, fig)
}

func roundChange(at uint64) string {
	if at == 0 {
		return "no round change awaited"
	}
	return fmt.Sprintf("a round change awaited: block %d", at)
}

// connect links every pair of nodes and waits until each has all the
// others as peers, asking again every few seconds: a node just restarted
// may be dialled while its peers still hold the session of its previous
// process.
func connect(t *testing.T, nodes ...*testnode.P2PNode) {
	t.Helper()
	asked := time.Time{}
	testnode.WaitFor(t, 90*time.Second, "every node peered with the others", func() bool {
		if time.Since(asked) > 5*time.Second {
			for i := range nodes {
				for j := range i {
					nodes[i].AddPeer(nodes[j])
				}
			}
			asked = time.Now()
		}
		for _, n := range nodes {
			if n.PeerCount() < len(nodes)-1 {
				return false
			}
		}
		return true
	})
}

// waitRoundChange waits until nodes made a block from height from on at a
// round above 0 (a round change: a stopped validator's turn to propose
// came) and returns its height.
func waitRoundChange(t *testing.T, net *bftnet.Network, nodes []*testnode.P2PNode, from uint64) uint64 {
	t.Helper()
	next := from
	var found uint64
	testnode.WaitFor(t, 90*time.Second, "a block committed after a round change", func() bool {
		for ; ; next++ {
			hdr := bftnet.Header(t, nodes[0], next)
			if hdr == nil {
				return false
			}
			if net.Round(t, hdr) > 0 {
				found = next
				return true
			}
		}
	})
	return found
}
