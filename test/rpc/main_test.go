// Package rpc holds the end-to-end tests of basalt's JSON-RPC interface on
// real nodes: the eth, engine and simulate families, call gas, the
// execution-apis examples, HTTP transport rules and the Besu-compatible
// configuration file.
package rpc

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
