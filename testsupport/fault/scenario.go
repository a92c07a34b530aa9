package fault

import (
	"fmt"
	"math"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/testnode"
)

// Record is what one scenario measured.
type Record struct {
	Name string
	// Blocks is the number of blocks made from the scenario's start to
	// its end (the recovery included).
	Blocks uint64
	// Recovery is the number of block periods from the fault's end to
	// the first block after it: 1 when production never stopped.
	Recovery int
	// Acked is the number of transactions nodes acknowledged during the
	// scenario, Mined how many of them the chain holds (each once).
	Acked, Mined int
	// Note is what else the scenario observed (a round change, a halt).
	Note string
}

// String is the record as a row of the documentation's table.
func (r Record) String() string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	return fmt.Sprintf("| %s | %d | %d | %d/%d | %s |", cell(r.Name), r.Blocks, r.Recovery, r.Acked, r.Mined, cell(r.Note))
}

// Run is a sequence of scenarios on one network under one stream: each
// scenario ends with every node running, so the next starts from a sound
// network, and its checks cover everything before it.
type Run struct {
	Net     *Network
	Stream  *Stream
	Records []Record

	ledger  *Ledger
	checked uint64 // heights compared on every node so far
}

// NewRun starts a transaction stream (a transfer every interval) on net.
func NewRun(net *Network, every time.Duration) *Run {
	return &Run{Net: net, Stream: net.StartStream(0, every), ledger: NewLedger(), checked: 0}
}

// Scenario is one fault applied to a Run's network.
type Scenario struct {
	run     *Run
	rec     Record
	t       testing.TB
	h0      uint64
	ack0    int
	ended   time.Time
	endHead uint64
}

// Begin starts scenario name.
func (r *Run) Begin(t testing.TB, name string) *Scenario {
	t.Helper()
	return &Scenario{run: r, t: t, rec: Record{Name: name}, h0: Head(r.Net.Running()), ack0: r.Stream.Acked()}
}

// Note adds an observation to the scenario's record.
func (s *Scenario) Note(format string, args ...any) {
	if s.rec.Note != "" {
		s.rec.Note += "; "
	}
	s.rec.Note += fmt.Sprintf(format, args...)
}

// FaultEnded marks the moment the fault was removed (the last node
// restarted, the partition healed): recovery is counted from here.
func (s *Scenario) FaultEnded() {
	s.t.Helper()
	s.ended = time.Now()
	s.endHead = Head(s.run.Net.Running())
}

// End checks the network after the fault: production resumes (a block
// after the fault's end, then two more on every node), every node has the
// same hash at every height, and every acknowledged transaction is mined
// exactly once. It records and logs the scenario's figures.
func (s *Scenario) End() Record {
	t, net := s.t, s.run.Net
	t.Helper()
	if s.ended.IsZero() {
		s.FaultEnded()
	}
	for _, n := range net.Nodes {
		if !n.Running() {
			t.Fatalf("%s ends with node %d stopped", s.rec.Name, n.Index)
		}
	}
	// Round timers double at each round (requesttimeoutseconds·2^r) and a
	// node redials a dropped peer within a second: a network whose rounds
	// drifted far apart during a long halt may take minutes to meet again.
	const recoverWithin = 3 * time.Minute
	var first time.Time
	testnode.WaitFor(t, recoverWithin, fmt.Sprintf("a block after %d", s.endHead), func() bool {
		if Head(net.Nodes) > s.endHead {
			first = time.Now()
			return true
		}
		return false
	})
	period := time.Duration(net.Cfg.BlockPeriod) * time.Second
	s.rec.Recovery = max(1, int(math.Ceil(float64(first.Sub(s.ended))/float64(period))))
	WaitHeight(t, recoverWithin, s.endHead+3, net.Nodes...)

	ackEnd := s.run.Stream.Acked()
	acked := s.run.Stream.Hashes(0, ackEnd)
	testnode.WaitFor(t, 2*time.Minute, fmt.Sprintf("%d acknowledged transactions mined", ackEnd), func() bool {
		s.run.ledger.Scan(net.Nodes[0], net.Nodes[0].BlockNumber())
		for _, h := range acked {
			if s.run.ledger.Count(h) == 0 {
				return false
			}
		}
		return true
	})
	s.run.checked = SameChain(t, s.run.checked, net.Nodes...)
	for i, h := range acked {
		if c := s.run.ledger.Count(h); c != 1 {
			t.Fatalf("acknowledged transaction %d (%s) mined %d times", i, h, c)
		}
	}
	if d := s.run.ledger.Duplicates(); len(d) > 0 {
		t.Fatalf("transactions mined more than once: %v", d)
	}
	s.rec.Blocks = Head(net.Nodes) - s.h0
	s.rec.Acked = ackEnd - s.ack0
	for _, h := range acked[s.ack0:] {
		s.rec.Mined += s.run.ledger.Count(h)
	}
	t.Logf("%s %s: %d blocks, recovery %d block periods, %d transactions acknowledged, %d mined; %s",
		net.Cfg.Engine, s.rec.Name, s.rec.Blocks, s.rec.Recovery, s.rec.Acked, s.rec.Mined, s.rec.Note)
	s.run.Records = append(s.run.Records, s.rec)
	return s.rec
}

// Table is the run's records as a markdown table.
func (r *Run) Table() string {
	var b strings.Builder
	b.WriteString("| scenario | blocks | recovery (periods) | tx acked/mined | observed |\n|---|---|---|---|---|\n")
	for _, rec := range r.Records {
		b.WriteString(rec.String() + "\n")
	}
	return b.String()
}

// KillLoop kills node (SIGKILL: a crash, nothing flushed) and restarts it
// on its data cycles times, waiting for the rest to make blocks blocks
// while it is down and for it to catch up after each restart.
func KillLoop(t testing.TB, net *Network, node *Node, cycles int, blocks uint64) {
	t.Helper()
	for range cycles {
		node.Stop(syscall.SIGKILL)
		Progress(t, 2*time.Minute, blocks, net.Running()...)
		node.Start()
		WaitHeight(t, 2*time.Minute, Head(net.Running()), node)
	}
}
