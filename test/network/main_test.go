// Package network holds the end-to-end tests of basalt's peer-to-peer side
// and of `basalt network up`: networks of real basalt, basalt-privacy and
// basalt-signer processes started by the command, transaction and block
// sync between nodes, and bootnodes without discovery.
package network

import (
	"math/big"
	"os"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// word is n as a 32-byte storage word.
func word(n uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(n)) }
