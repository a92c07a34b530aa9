package chain

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"
)

// TestSimulateMatchesProcess runs a block's transactions as messages in a
// simulated block with the same header: the state root, gas used and
// receipts root equal those of processing the block, so a simulation is
// the chain's execution and nothing else.
func TestSimulateMatchesProcess(t *testing.T) {
	c, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	parent := c.Genesis()
	txs := []*types.Transaction{
		transfer(t, testKey, 0, common.Address{1}),
		transfer(t, testKey, 1, common.Address{2}),
		transfer(t, testKey, 2, common.Address{1}),
	}
	block := makeBlock(t, c, parent, 1, txs, 0)

	st, err := c.StateAt(parent.Root)
	if err != nil {
		t.Fatal(err)
	}
	header := block.Header()
	sim := c.Executor().Simulate(header, st, SimOptions{})
	defer sim.Release()
	signer := types.MakeSigner(c.Config(), header.Number, header.Time)
	for i, tx := range txs {
		msg, err := core.TransactionToMessage(tx, signer, header.BaseFee)
		if err != nil {
			t.Fatal(err)
		}
		before := sim.GasLeft()
		res, receipt, err := sim.Apply(context.Background(), msg, tx)
		if err != nil || res.Failed() || receipt.Status != types.ReceiptStatusSuccessful || before-sim.GasLeft() != res.UsedGas {
			t.Fatalf("tx %d: %v %+v", i, err, res)
		}
	}
	// A message the block cannot include changes nothing.
	bad, _ := core.TransactionToMessage(transfer(t, testKey, 0, common.Address{3}), signer, header.BaseFee)
	if _, _, err := sim.Apply(context.Background(), bad, txs[0]); err == nil {
		t.Fatal("a replayed nonce was applied")
	}
	res, err := sim.Finish(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.GasUsed != block.GasUsed() || len(res.Receipts) != len(txs) {
		t.Fatalf("gas used %d, want %d; %d receipts", res.GasUsed, block.GasUsed(), len(res.Receipts))
	}
	if root := st.IntermediateRoot(Rules(c.Config(), header)); root != block.Root() {
		t.Errorf("state root %s, want %s", root, block.Root())
	}
	if got := types.DeriveSha(res.Receipts, trie.NewStackTrie(nil)); got != block.ReceiptHash() {
		t.Errorf("receipts root %s, want %s", got, block.ReceiptHash())
	}
}

// TestSimulateStops does not run a message once its context has ended.
func TestSimulateStops(t *testing.T) {
	c, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	parent := c.Genesis()
	st, _ := c.StateAt(parent.Root)
	loop := common.Address{0xaa}
	st.SetCode(loop, []byte{0x5b, 0x60, 0x00, 0x56}, 0) // JUMPDEST PUSH1 0 JUMP
	header := &types.Header{ParentHash: c.Hash(parent), Number: common.Big1, GasLimit: 30_000_000, Time: parent.Time + 1, Difficulty: common.Big1, BaseFee: parent.BaseFee}
	sim := c.Executor().Simulate(header, st, SimOptions{NoBaseFee: true})
	defer sim.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msg := &core.Message{From: common.Address{1}, To: &loop, GasLimit: 30_000_000, Value: new(uint256.Int), GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int)}
	msg.SkipNonceCheck()
	if _, _, err := sim.Apply(ctx, msg, types.NewTx(&types.LegacyTx{})); err != context.Canceled {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}
