package bft

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// removePeer is admin_removePeer of other on n.
func removePeer(t *testing.T, n, other *testnode.P2PNode) {
	t.Helper()
	var ok bool
	n.MustCall(&ok, "admin_removePeer", other.Enode())
}

// progresses waits until every node passed its current height by two
// blocks.
func progresses(t *testing.T, timeout time.Duration, nodes ...*testnode.P2PNode) {
	t.Helper()
	var top uint64
	for _, n := range nodes {
		top = max(top, n.BlockNumber())
	}
	bftnet.WaitHeight(t, timeout, top+2, nodes...)
}

// halted checks the chain makes no block over a few round timeouts.
func halted(t *testing.T, nodes ...*testnode.P2PNode) {
	t.Helper()
	before := nodes[0].BlockNumber()
	time.Sleep(4 * time.Second) // several 1 s block periods and round timers
	for _, n := range nodes {
		if h := n.BlockNumber(); h > before+1 {
			t.Fatalf("chain advanced from %d to %d without a quorum", before, h)
		}
	}
}

// TestIBFTStopValidators: with 1 of 4 validators stopped the chain goes
// on; with 2 stopped it halts; with one of them back it resumes; all on one
// chain.
func TestIBFTStopValidators(t *testing.T) {
	net := bftnet.GenerateIBFT(t, 4, 1)
	net.Start()
	stopValidators(t, net.Nodes)
}

// stopValidators stops one of 4 running validators, then a second, then
// brings the second back: the chain goes on, halts, resumes, on one chain.
// The fourth stays stopped.
func stopValidators(t *testing.T, n []*testnode.P2PNode) {
	t.Helper()
	bftnet.WaitHeight(t, 60*time.Second, 2, n...)

	n[3].Stop(syscall.SIGTERM)
	progresses(t, 60*time.Second, n[:3]...)

	n[2].Stop(syscall.SIGTERM)
	halted(t, n[:2]...)

	n[2].Restart() // back on its own p2p port and key
	testnode.Connect(t, n[:3]...)
	progresses(t, 90*time.Second, n[:3]...)
	bftnet.SameChain(t, n[:3]...)
}

// TestIBFTPartitionHeals: a 2|2 partition (peers dropped) halts both
// halves without a fork; healed, the network goes on on one chain.
func TestIBFTPartitionHeals(t *testing.T) {
	net := bftnet.GenerateIBFT(t, 4, 1)
	net.Start()
	partition(t, net.Nodes)
}

// partition splits 4 running validators 2|2: both halves halt without a
// fork; healed, the network goes on on one chain.
func partition(t *testing.T, n []*testnode.P2PNode) {
	t.Helper()
	bftnet.WaitHeight(t, 60*time.Second, 2, n...)

	// Either side may have dialled (Connect makes the later node dial
	// the earlier; a restarted node dials again): both drop.
	for _, a := range n[2:] {
		for _, b := range n[:2] {
			removePeer(t, a, b)
			removePeer(t, b, a)
		}
	}
	testnode.WaitFor(t, 20*time.Second, "partition", func() bool {
		return n[0].PeerCount() == 1 && n[3].PeerCount() == 1
	})
	halted(t, n...)

	testnode.Connect(t, n...)
	progresses(t, 90*time.Second, n...)
	bftnet.SameChain(t, n...)
}

// TestIBFTValidatorResync: a validator restarted with an empty data
// directory syncs the chain and takes part again: with another validator
// stopped, the chain needs it for a quorum.
func TestIBFTValidatorResync(t *testing.T) {
	net := bftnet.GenerateIBFT(t, 4, 1)
	net.Start()
	n := net.Nodes
	bftnet.WaitHeight(t, 60*time.Second, 4, n...)

	n[3].Stop(syscall.SIGTERM)
	if err := os.RemoveAll(n[3].DataDir); err != nil {
		t.Fatal(err)
	}
	progresses(t, 60*time.Second, n[:3]...)
	n[3].Restart()
	testnode.Connect(t, n...)
	bftnet.WaitHeight(t, 60*time.Second, n[0].BlockNumber(), n[3])

	n[0].Stop(syscall.SIGTERM)
	progresses(t, 90*time.Second, n[1:]...)
	bftnet.SameChain(t, n[1:]...)

	// blocks import verifies every block's commit seals too: the chain a
	// validator exports imports into an empty data directory.
	n[1].Stop(syscall.SIGTERM)
	file := filepath.Join(t.TempDir(), "chain.rlp")
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(testnode.Binary(t), args...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	run("--genesis-file="+net.Genesis, "--data-path="+n[1].DataDir, "blocks", "export", "--to="+file)
	run("--genesis-file="+net.Genesis, "--data-path="+t.TempDir(), "blocks", "import", "--from="+file)
}
