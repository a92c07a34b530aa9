// Package bft holds the end-to-end tests of the IBFT 2.0 and QBFT engines
// on networks of real basalt validators (testsupport/bftnet): block
// production, faults and partitions, validator votes, outsiders' messages,
// and the throughput and idle benchmarks.
package bft

import (
	"os"
	"testing"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}
