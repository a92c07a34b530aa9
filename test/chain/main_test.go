// Package chain holds the end-to-end tests of a basalt dev node's chain
// through the command and JSON-RPC: transfers, contracts and typed
// transactions mined, the chain kept across restarts, `blocks import` and
// `blocks export` (Besu's conformance chain, interrupted imports, unsealed
// uncles) and `public-key export`.
package chain

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
