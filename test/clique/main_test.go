// Package clique holds the end-to-end tests of Clique networks of real
// basalt signers: sealing in turn, votes, stopping and restarting signers,
// restarts after an epoch's worth of blocks, importing Besu's Clique chain,
// and the transfers-per-second benchmark.
package clique

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
