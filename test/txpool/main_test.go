// Package txpool holds the end-to-end tests of basalt's transaction pool on
// real nodes: admission rules over JSON-RPC and the pool's journal across
// restarts.
package txpool

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
