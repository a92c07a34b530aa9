package chain

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"
)

// echoAddr is where the tests install echoPrecompile.
var echoAddr = common.HexToAddress("0x0000000000000000000000000000000000000bad")

// echoPrecompile answers its input reversed.
type echoPrecompile struct{}

func (echoPrecompile) RequiredGas([]byte) uint64 { return 7 }
func (echoPrecompile) Name() string              { return "ECHO" }
func (echoPrecompile) Run(in []byte) ([]byte, error) {
	out := make([]byte, len(in))
	for i, b := range in {
		out[len(in)-1-i] = b
	}
	return out, nil
}

// sliceIter offers txs in order, as the pool's iterator would.
type sliceIter struct {
	txs []*types.Transaction
	i   int
}

func (s *sliceIter) Peek() *types.Transaction {
	if s.i < len(s.txs) {
		return s.txs[s.i]
	}
	return nil
}
func (s *sliceIter) Shift() { s.i++ }
func (s *sliceIter) Pop()   { s.i++ }

// childHeader is the header of a block being built on parent.
func childHeader(c *Chain, parent *types.Header) *types.Header {
	return &types.Header{
		ParentHash: c.Hash(parent),
		Number:     new(big.Int).Add(parent.Number, common.Big1),
		GasLimit:   parent.GasLimit,
		Time:       parent.Time + 10,
		Difficulty: big.NewInt(1),
		BaseFee:    calcBaseFee(c.Config(), parent),
	}
}

// The building policy leaves a refused sender's transactions out of a built
// block, with its reason, but never fails a block being processed: what
// others' blocks contain is not the builder's choice.
func TestExecutorPolicyOnlyWhenBuilding(t *testing.T) {
	otherKey, _ := crypto.GenerateKey()
	refused := errors.New("sender not on the allowlist")
	policy := func(_ *types.Header, _ *types.Transaction, from common.Address) error {
		if from == testAddr {
			return refused
		}
		return nil
	}
	g := testGenesis()
	g.Alloc[crypto.PubkeyToAddress(otherKey.PublicKey)] = types.Account{Balance: big.NewInt(1e18)}
	c, err := Open(NewMemoryDatabase(), g, testEngine{}, WithTxPolicy(policy))
	if err != nil {
		t.Fatal(err)
	}
	txA := transfer(t, testKey, 0, common.Address{5})
	txB := transfer(t, otherKey, 0, common.Address{6})

	st, err := c.StateAt(c.Genesis().Root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Executor().Build(context.Background(), childHeader(c, c.Genesis()), st, &sliceIter{txs: []*types.Transaction{txA, txB}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Txs) != 1 || res.Txs[0] != txB || len(res.Receipts) != 1 {
		t.Fatalf("built %d txs (%d receipts), want only the allowed one", len(res.Txs), len(res.Receipts))
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Tx != txA || !errors.Is(res.Skipped[0].Reason, refused) {
		t.Fatalf("skipped %+v, want the refused tx with the policy's reason", res.Skipped)
	}

	// makeBlock processes with the same executor; InsertBlock too.
	block := makeBlock(t, c, c.Genesis(), 1, []*types.Transaction{txA, txB}, 0)
	if _, err := c.InsertBlock(context.Background(), block, InsertOptions{}); err != nil {
		t.Fatalf("block with a refused sender's tx not imported: %v", err)
	}
	if got := len(c.GetReceipts(c.CurrentHash(), 1)); got != 2 {
		t.Fatalf("%d receipts, want 2", got)
	}
}

// A building failure is skipped with its reason; a processing failure fails
// the block.
func TestExecutorFailures(t *testing.T) {
	c, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	bad := transfer(t, testKey, 7, common.Address{5}) // nonce too high
	st, _ := c.StateAt(c.Genesis().Root)
	res, err := c.Executor().Build(context.Background(), childHeader(c, c.Genesis()), st, &sliceIter{txs: []*types.Transaction{bad}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Txs) != 0 || len(res.Skipped) != 1 || !errors.Is(res.Skipped[0].Reason, core.ErrNonceTooHigh) {
		t.Fatalf("built %d txs, skipped %+v", len(res.Txs), res.Skipped)
	}
	st, _ = c.StateAt(c.Genesis().Root)
	block := types.NewBlockWithHeader(childHeader(c, c.Genesis())).WithBody(types.Body{Transactions: []*types.Transaction{bad}})
	if _, err := c.Executor().Process(context.Background(), block, common.Hash{}, st); !errors.Is(err, core.ErrNonceTooHigh) {
		t.Fatalf("processing a block with a bad tx: %v", err)
	}
}

// The tracer given to Open hears every transaction the chain executes,
// including re-executions; With gives one task a tracer of its own.
func TestExecutorTracer(t *testing.T) {
	var chainTxs, ownTxs int
	hooks := &tracing.Hooks{OnTxStart: func(*tracing.VMContext, *types.Transaction, common.Address) { chainTxs++ }}
	c, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{}, WithTracer(hooks))
	if err != nil {
		t.Fatal(err)
	}
	block := makeBlock(t, c, c.Genesis(), 1, []*types.Transaction{
		transfer(t, testKey, 0, common.Address{5}), transfer(t, testKey, 1, common.Address{5}),
	}, 0)
	if chainTxs != 2 {
		t.Fatalf("tracer saw %d txs while making the block, want 2", chainTxs)
	}
	if _, err := c.InsertBlock(context.Background(), block, InsertOptions{}); err != nil {
		t.Fatal(err)
	}
	if chainTxs != 4 {
		t.Fatalf("tracer saw %d txs after the insert, want 4", chainTxs)
	}
	own := c.Executor().With(WithTracer(&tracing.Hooks{
		OnTxStart: func(*tracing.VMContext, *types.Transaction, common.Address) { ownTxs++ },
	}))
	st, _ := c.StateAt(c.Genesis().Root)
	if _, err := own.Process(context.Background(), block, c.CurrentHash(), st); err != nil {
		t.Fatal(err)
	}
	if ownTxs != 2 || chainTxs != 4 {
		t.Fatalf("With's tracer saw %d txs (want 2), the chain's %d (want 4)", ownTxs, chainTxs)
	}
}

// An extra precompile answers calls, joins the set Precompiles hands out,
// and is absent from an executor not given it.
func TestExecutorPrecompile(t *testing.T) {
	c, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{}, WithPrecompile(echoAddr, echoPrecompile{}))
	if err != nil {
		t.Fatal(err)
	}
	header := childHeader(c, c.Genesis())
	call := func(x *Executor) []byte {
		st, _ := c.StateAt(c.Genesis().Root)
		msg := &core.Message{
			From: testAddr, To: &echoAddr, Data: []byte{1, 2, 3}, GasLimit: 100_000,
			Value: new(uint256.Int), GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int),
		}
		res, err := x.ApplyMessage(context.Background(), header, st, msg, header.GasLimit, CallOptions{NoBaseFee: true})
		if err != nil || res.Err != nil {
			t.Fatalf("call: %v %v", err, res)
		}
		return res.ReturnData
	}
	if got := call(c.Executor()); string(got) != "\x03\x02\x01" {
		t.Fatalf("precompile answered %x, want 030201", got)
	}
	set := c.Executor().Precompiles(header)
	if _, ok := set[echoAddr]; !ok || len(set) != len(vm.ActivePrecompiledContracts(Rules(c.Config(), header)))+1 {
		t.Fatalf("Precompiles: %d entries, echo present %v", len(set), ok)
	}
	delete(set, echoAddr) // the copy is the caller's
	if got := call(c.Executor()); string(got) != "\x03\x02\x01" {
		t.Fatal("changing Precompiles' copy changed the executor")
	}
	plain := NewExecutor(c.Config(), c.Engine(), c)
	if got := call(plain); len(got) != 0 {
		t.Fatalf("executor without the precompile answered %x", got)
	}
}
