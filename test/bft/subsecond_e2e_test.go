package bft

import (
	"math/big"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// TestQBFTSubSecondBlocks: 4 QBFT validators at 100 ms blocks (Besu's
// xblockperiodmilliseconds) agree on one chain whose timestamps, in
// seconds, never go back (blocks share seconds); transfers are mined;
// with one validator stopped the other three go on, and restarted it
// catches up and the four go on together on one chain.
func TestQBFTSubSecondBlocks(t *testing.T) {
	net := bftnet.Generate(t, 4, bftnet.OperatorConfig(4,
		`"qbft": {"blockperiodseconds": 1, "xblockperiodmilliseconds": 100, "epochlength": 30000, "requesttimeoutseconds": 1}`, ""))
	net.Groups = "QBFT"
	net.Start()
	n := net.Nodes
	bftnet.WaitHeight(t, 60*time.Second, 10, n...)

	key, _ := devnode.Key(t, 0)
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	var hashes []common.Hash
	for i, node := range n {
		tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(2018)), &types.DynamicFeeTx{
			ChainID: big.NewInt(2018), Nonce: uint64(i), GasTipCap: big.NewInt(0), GasFeeCap: big.NewInt(100e9),
			Gas: 21000, To: &to, Value: big.NewInt(1000),
		})
		hashes = append(hashes, devnode.SendRaw(t, node.Node, tx))
	}
	for _, h := range hashes {
		if r := devnode.WaitReceipt(t, n[2].Node, h); r.Status != 1 {
			t.Fatalf("transfer %s failed", h)
		}
	}

	n[3].Stop(syscall.SIGTERM)
	progresses(t, 60*time.Second, n[:3]...)
	n[3].Restart()
	testnode.Connect(t, n...)
	bftnet.WaitHeight(t, 60*time.Second, n[0].BlockNumber(), n[3])
	progresses(t, 60*time.Second, n...)

	low := bftnet.SameChain(t, n...)
	var prev *types.Header
	same := 0
	for h := uint64(1); h <= low; h++ {
		hdr := rawHeader(t, n[3], h)
		if prev != nil && hdr.Time < prev.Time {
			t.Fatalf("block %d at %d, before its parent's %d", h, hdr.Time, prev.Time)
		}
		if prev != nil && hdr.Time == prev.Time {
			same++
		}
		prev = hdr
	}
	t.Logf("%d blocks, %d in their parent's second", low, same)
	if got := devnode.Balance(t, n[3].Node, to); got.Cmp(big.NewInt(4000)) != 0 {
		t.Fatalf("recipient balance %v, want 4000", got)
	}
}
