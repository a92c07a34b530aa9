package goquorum

import (
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/testsupport/testnode"
)

// lowGasLimit is a genesis gas limit below GoQuorum's minimum (its
// params.DefaultMinGasLimit, 700,000,000): GoQuorum's proposers raise the
// limit to that minimum in one block, far beyond the parent/1024 step
// Ethereum allows, which Besu refuses (besu#10723).
const lowGasLimit = 10_000_000

// TestMixedNetworkGasLimitStep: in the mixed network on a genesis whose gas
// limit is below GoQuorum's minimum, a GoQuorum proposer jumps the limit
// to 700,000,000 in one block; the Basalt validators accept it (the chain
// goes on with the same blocks on all four nodes).
func TestMixedNetworkGasLimitStep(t *testing.T) {
	bin := gethBinary(t)
	n := startMixedWith(t, bin, validatorKeys(t, 4), mixedOptions{
		genesis: func(g map[string]any) { g["gasLimit"] = hexutil.EncodeUint64(lowGasLimit) },
	})
	basalt := n.basalt[0]
	var jump uint64
	testnode.WaitFor(t, 2*time.Minute, "a block with GoQuorum's gas limit step on a Basalt node", func() bool {
		for h := uint64(1); h <= basalt.BlockNumber(); h++ {
			var parent, b struct {
				GasLimit hexutil.Uint64 `json:"gasLimit"`
				Miner    common.Address `json:"miner"`
			}
			basalt.MustCall(&parent, "eth_getBlockByNumber", hexutil.EncodeUint64(h-1), false)
			basalt.MustCall(&b, "eth_getBlockByNumber", hexutil.EncodeUint64(h), false)
			if uint64(b.GasLimit) > uint64(parent.GasLimit)+uint64(parent.GasLimit)/1024 {
				jump = h
				t.Logf("block %d by %s: gas limit %d after %d", h, b.Miner, uint64(b.GasLimit), uint64(parent.GasLimit))
				return true
			}
		}
		return false
	})
	top := jump + 5
	waitHeight(t, time.Minute, top, n.running()...)
	sameHashes(t, 0, top, n.running()...)
	n.checkGethLogs()
}
