// Package bftload runs IBFT 2.0 and QBFT networks of real basalt
// validators through what production networks meet while transactions
// flow (testsupport/txload): validators added and removed by votes, all
// validators restarted at once, and a fresh network with
// emptyblockperiodseconds. Each scenario asserts that no node forks (the
// same hash at every height on every node), that every acknowledged
// transaction is mined exactly once, and that production goes on within a
// few blocks; it logs blocks produced, rounds changed and transactions
// acknowledged/mined. docs/concepts/versions-and-upgrades.md lists the
// figures and the benchmark commands.
package bftload

import (
	"flag"
	"os"
	"testing"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

// rate is the transfers per second the scenarios offer. go test uses one
// this 2-core machine sustains beside other tests; -load.rate=500 is the
// production figure (see the docs page).
var rate = flag.Int("load.rate", 40, "transfers per second offered during the scenarios")

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}
