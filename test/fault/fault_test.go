// Package fault runs the faults production BFT networks meet (issue 35)
// on networks of real basalt validators (testsupport/fault): validators
// down, partitions of live links, slow, lossy and one-way links, skewed
// clocks and crashes during a round change, under a steady stream of
// transfers, for QBFT and IBFT 2.0. Every scenario checks that no node
// forks, that every acknowledged transaction is mined exactly once and
// that production resumes after the fault.
//
// The tests need root (network namespaces) and skip without it. `go test`
// runs the 4-validator networks; the 7-validator networks and the long
// kill loops are benchmarks (BenchmarkFault*), see
// docs/contributing/fault-injection.md.
package fault

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/fault"
	"github.com/basaltchain/basalt/testsupport/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// blockPeriod and requestTimeout are the networks' genesis options, in
// seconds: short, so that a scenario takes a few seconds of blocks.
const (
	blockPeriod    = 1
	requestTimeout = 1
)

// txEvery is the stream's interval: a steady 10 transfers a second.
const txEvery = 100 * time.Millisecond

// halt is how long a network without a quorum is watched not producing:
// several block periods and round timers.
const halt = 4 * time.Second

func TestQBFTFaults(t *testing.T) {
	t.Parallel()
	runScenarios(t, fault.Config{Engine: "qbft", Validators: 4, BlockPeriod: blockPeriod, RequestTimeout: requestTimeout}, 1)
}

func TestIBFT2Faults(t *testing.T) {
	t.Parallel()
	runScenarios(t, fault.Config{Engine: "ibft2", Validators: 4, BlockPeriod: blockPeriod, RequestTimeout: requestTimeout}, 1)
}

// BenchmarkFaultQBFT7 and BenchmarkFaultIBFT27 run the scenarios on 7
// validators (f = 2, a 3|4 partition) with kill loops of loops cycles
// (FAULT_KILL_LOOPS, 10 by default); b.N is ignored: one run is minutes.
func BenchmarkFaultQBFT7(b *testing.B) {
	runScenarios(b, fault.Config{Engine: "qbft", Validators: 7, BlockPeriod: blockPeriod, RequestTimeout: requestTimeout}, killLoops())
}

func BenchmarkFaultIBFT27(b *testing.B) {
	runScenarios(b, fault.Config{Engine: "ibft2", Validators: 7, BlockPeriod: blockPeriod, RequestTimeout: requestTimeout}, killLoops())
}

// BenchmarkFaultQBFT4Long and BenchmarkFaultIBFT24Long are the 4-validator
// scenarios with the long kill loops.
func BenchmarkFaultQBFT4Long(b *testing.B) {
	runScenarios(b, fault.Config{Engine: "qbft", Validators: 4, BlockPeriod: blockPeriod, RequestTimeout: requestTimeout}, killLoops())
}

func BenchmarkFaultIBFT24Long(b *testing.B) {
	runScenarios(b, fault.Config{Engine: "ibft2", Validators: 4, BlockPeriod: blockPeriod, RequestTimeout: requestTimeout}, killLoops())
}

func killLoops() int {
	if n, err := strconv.Atoi(os.Getenv("FAULT_KILL_LOOPS")); err == nil && n > 0 {
		return n
	}
	return 10
}

// runScenarios runs every scenario, one after another, on one network of
// cfg under one transaction stream, and logs the table of their figures.
func runScenarios(t testing.TB, cfg fault.Config, loops int) {
	fault.Require(t)
	net := fault.NewNetwork(t, cfg)
	fault.WaitHeight(t, 2*time.Minute, 2, net.Nodes...)
	run := fault.NewRun(net, txEvery)
	n := cfg.Validators
	f := (n - 1) / 3

	validatorsDown(t, run, f, loops)
	quorumLost(t, run, f)
	partition(t, run, n/2)
	proposerAlone(t, run)
	slowLossyLinks(t, run)
	oneWayLink(t, run)
	clockSkew(t, run, 5*time.Second)
	clockSkew(t, run, -5*time.Second)
	killDuringRoundChange(t, run)

	t.Logf("%s, %d validators, %s:\n%s", cfg.Engine, n, run.Stream, run.Table())
}

// validatorsDown: f validators crash (SIGKILL) and restart, loops times
// over; the others go on making blocks each time.
func validatorsDown(t testing.TB, run *fault.Run, f, loops int) {
	s := run.Begin(t, "f validators down (kill loop)")
	net := run.Net
	for range loops {
		for _, v := range net.Nodes[:f] {
			v.Stop(syscall.SIGKILL)
		}
		fault.Progress(t, 2*time.Minute, 3, net.Running()...)
		for _, v := range net.Nodes[:f] {
			v.Start()
		}
		fault.WaitHeight(t, 2*time.Minute, fault.Head(net.Nodes), net.Nodes...)
	}
	s.Note("%d kill/restart cycles of %d validators; chain went on", loops, f)
	s.FaultEnded()
	s.End()
}

// quorumLost: f+1 validators stop: the rest halt; they come back and
// production resumes.
func quorumLost(t testing.TB, run *fault.Run, f int) {
	s := run.Begin(t, "f+1 validators down and back")
	net := run.Net
	down := net.Nodes[len(net.Nodes)-f-1:]
	for _, v := range down {
		v.Stop(syscall.SIGKILL)
	}
	fault.Halted(t, halt, net.Running()...)
	s.Note("halted with %d of %d", len(net.Running()), len(net.Nodes))
	for _, v := range down {
		v.Start()
	}
	s.FaultEnded()
	s.End()
}

// partition cuts the live links between the first k validators and the
// rest: with no side holding a quorum both halt; healed, they go on.
func partition(t testing.TB, run *fault.Run, k int) {
	net := run.Net
	n := len(net.Nodes)
	s := run.Begin(t, strconv.Itoa(k)+"|"+strconv.Itoa(n-k)+" partition and heal")
	var a, b []int
	for i := range n {
		if i < k {
			a = append(a, i)
		} else {
			b = append(b, i)
		}
	}
	net.Partition(a, b)
	fault.Halted(t, halt, net.Nodes...)
	s.Note("both sides halted")
	net.Heal()
	s.FaultEnded()
	s.End()
}

// proposerAlone isolates the validator due to propose the next block as
// soon as the block before it is in: the others change round and go on
// without it; healed, it catches up.
func proposerAlone(t testing.TB, run *fault.Run) {
	net := run.Net
	s := run.Begin(t, "proposer partitioned alone in its round")
	p, head := net.NextProposer(net.Nodes[0])
	net.Isolate(p)
	others := without(net.Nodes, p)
	rc := roundChanges(others)
	fault.Progress(t, 2*time.Minute, 3, others...)
	if got := net.IndexOf(others[0].Coinbase(head + 1)); got != p {
		s.Note("block %d proposed by %d after a round change (%d round changes on the others)", head+1, got, roundChanges(others)-rc)
	} else {
		// The proposal left before the cut took hold (a loaded machine).
		s.Note("block %d proposed by the isolated %d before the cut", head+1, p)
	}
	net.Heal()
	s.FaultEnded()
	s.End()
}

// slowLossyLinks gives one validator 500 ms of latency and 10 % loss on
// every link, both ways: the network goes on (the slow one may miss
// rounds, not the chain).
func slowLossyLinks(t testing.TB, run *fault.Run) {
	net := run.Net
	s := run.Begin(t, "500 ms latency, 10 % loss on one validator")
	v := len(net.Nodes) - 1
	net.Links.ShapeNode(v, fault.Shape{Latency: 500 * time.Millisecond, Loss: 0.10})
	fault.Progress(t, 2*time.Minute, 5, net.Nodes...)
	net.Links.Clear()
	s.FaultEnded()
	s.End()
}

// oneWayLink drops everything validator 0 sends to validator 1 while the
// other way flows: the link is up for 1, mute for 0's messages.
func oneWayLink(t testing.TB, run *fault.Run) {
	net := run.Net
	s := run.Begin(t, "one-way link 0->1")
	net.Links.Shape(0, 1, fault.Shape{Drop: true})
	fault.Progress(t, 2*time.Minute, 5, net.Nodes...)
	net.Links.Clear()
	s.FaultEnded()
	s.End()
}

// clockSkew restarts the last validator with its clock off by skew for a
// full round of proposers, then restarts it on the wall clock.
func clockSkew(t testing.TB, run *fault.Run, skew time.Duration) {
	net := run.Net
	name := "one validator's clock " + skew.String()
	if skew > 0 {
		name = "one validator's clock +" + skew.String()
	}
	s := run.Begin(t, name)
	v := net.Nodes[len(net.Nodes)-1]
	v.Stop(syscall.SIGTERM)
	v.Start("--Xclock-offset-milliseconds=" + strconv.FormatInt(skew.Milliseconds(), 10))
	from := fault.Head(net.Nodes)
	// Every validator proposes once in n blocks: the skewed one's turn
	// comes within two rounds of proposers.
	fault.Progress(t, 3*time.Minute, uint64(2*len(net.Nodes)+1), net.Nodes...)
	by := 0
	for h := from + 1; h <= from+uint64(2*len(net.Nodes)); h++ {
		if net.Nodes[0].Coinbase(h) == v.Addr {
			by++
		}
	}
	s.Note("%d of %d blocks proposed by the skewed validator, which was %d blocks behind", by, 2*len(net.Nodes),
		fault.Head(without(net.Nodes, v.Index))-v.BlockNumber())
	v.Stop(syscall.SIGTERM)
	v.Start()
	s.FaultEnded()
	s.End()
}

// killDuringRoundChange isolates the next proposer so that the others
// change round, and as they do (their round change counters move) kills
// the proposer of the round they move to, so that round fails as well.
// That proposer's links are slowed by 3 s from the cut on, so that its
// round-1 proposal cannot settle the height before the kill lands.
// On 4 validators the two left have no quorum and halt; on 7 the five
// left change round again and go on. The killed one restarts while the
// others are still changing rounds and has to join them; then the cut
// heals.
func killDuringRoundChange(t testing.TB, run *fault.Run) {
	net := run.Net
	s := run.Begin(t, "kill during a round change")
	// The counters before the height: read after the cut, they might
	// already hold its round change on a loaded machine.
	rcs := map[int]int{}
	for _, n := range net.Nodes {
		rcs[n.Index] = n.RoundChanges()
	}
	p, head := net.NextProposer(net.Nodes[0])
	net.Isolate(p)
	others := without(net.Nodes, p)
	victim := net.Nodes[net.Proposer(others[0], head, 1)]
	net.Links.ShapeNode(victim.Index, fault.Shape{Latency: 3 * time.Second})
	rc := 0
	for _, o := range others {
		rc += rcs[o.Index]
	}
	proctest.WaitFor(t, time.Minute, 5*time.Millisecond, "a round change", func() bool {
		return roundChanges(others) > rc
	})
	victim.Stop(syscall.SIGKILL)
	live := without(others, victim.Index)
	if h := fault.Head(live); h > head {
		s.Note("killed round 1's proposer %d after block %d was in (head %d)", victim.Index, head+1, h)
	} else {
		s.Note("killed round 1's proposer %d during the round change of block %d", victim.Index, head+1)
	}
	if len(net.Nodes) == 4 {
		fault.Halted(t, halt, live...)
		round := 0
		for _, o := range live {
			round = max(round, o.Round())
		}
		s.Note("halted at round %d with proposer %d cut", round, p)
	} else {
		fault.Progress(t, 2*time.Minute, 2, live...)
		s.Note("went on with %d of %d", len(live), len(net.Nodes))
	}
	net.Links.Clear()
	victim.Start()
	net.Heal()
	s.FaultEnded()
	s.End()
}

// roundChanges is the sum of the nodes' round change counters.
func roundChanges(nodes []*fault.Node) int {
	sum := 0
	for _, n := range nodes {
		sum += n.RoundChanges()
	}
	return sum
}

// without is nodes less the one of index i.
func without(nodes []*fault.Node, i int) []*fault.Node {
	var out []*fault.Node
	for _, n := range nodes {
		if n.Index != i {
			out = append(out, n)
		}
	}
	return out
}
