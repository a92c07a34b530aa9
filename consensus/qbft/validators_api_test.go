package qbft

import (
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/basaltchain/basalt/chain"
)

// stateChain is a headerChain with states: what contract selection reads.
type stateChain struct {
	*headerChain
	sdb  state.Database
	exec *chain.Executor
}

func (c *stateChain) StateAt(root common.Hash) (*state.StateDB, error) { return state.New(root, c.sdb) }
func (c *stateChain) Executor() *chain.Executor                        { return c.exec }

// returnsList is EVM code that returns vals ABI-encoded as address[],
// whatever it is called with: a validator contract's getValidators().
func returnsList(vals []common.Address) []byte {
	data := common.LeftPadBytes([]byte{0x20}, 32)
	data = append(data, common.LeftPadBytes(big.NewInt(int64(len(vals))).Bytes(), 32)...)
	for _, v := range vals {
		data = append(data, common.LeftPadBytes(v[:], 32)...)
	}
	n := len(data)
	// CODECOPY the data after this 15-byte prefix to memory 0, RETURN it.
	code := []byte{0x61, byte(n >> 8), byte(n), 0x61, 0, 15, 0x60, 0, 0x39, 0x61, byte(n >> 8), byte(n), 0x60, 0, 0xf3}
	return append(code, data...)
}

// TestValidatorsForBlockContract: in contract mode qbft_getValidatorsBy*
// answer, as Besu, getValidators() at the block's own state (the
// validators of the next block), while the engine's own rule (the block's
// validators, read at its parent's state) stays one block behind; in
// block-header mode both are the block's extraData.
func TestValidatorsForBlockContract(t *testing.T) {
	contract := common.HexToAddress("0x8888")
	f := newEngineFixture(t, `"qbft": {}, "transitions": {"qbft": [
		{"block": 2, "validatorselectionmode": "contract", "validatorcontractaddress": "0x0000000000000000000000000000000000008888"}]}`,
		EncodeValidators)
	db := rawdb.NewMemoryDatabase()
	sdb := state.NewDatabase(triedb.NewDatabase(db, nil), state.NewCodeDB(db))
	rootWith := func(vals []common.Address) common.Hash {
		st, err := state.New(types.EmptyRootHash, sdb)
		if err != nil {
			t.Fatal(err)
		}
		st.SetCode(contract, returnsList(vals), tracing.CodeChangeGenesis)
		root, err := st.Commit(params.Rules{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := sdb.TrieDB().Commit(root, false); err != nil {
			t.Fatal(err)
		}
		return root
	}
	four, three := f.vals, f.vals[:3]
	c := &stateChain{headerChain: f.chain, sdb: sdb}
	c.exec = chain.NewExecutor(c.Config(), f.e, c)

	// Blocks 1 (block-header mode) to 3 (contract mode); the contract
	// names four validators up to block 2's state and three from block 3's.
	genesis := f.chain.GetHeaderByNumber(0)
	b1 := f.next(t, genesis, 0, f.keys[:3])
	b1.Root = rootWith(four)
	f.chain.add(b1)
	b2 := f.next(t, b1, 0, f.keys[:3])
	b2.Root = rootWith(four)
	f.chain.add(b2)
	b3 := f.next(t, b2, 0, f.keys[:3])
	b3.Root = rootWith(three)
	f.chain.add(b3)

	for _, tc := range []struct {
		h        *types.Header
		of, resp []common.Address // ValidatorsOf, ValidatorsForBlock
	}{
		{b1, four, four},  // block-header mode: extraData both
		{b2, four, four},  // contract mode, the contract unchanged
		{b3, four, three}, // the block whose state changed the contract: Besu answers the new set
	} {
		of, err := f.e.ValidatorsOf(c, tc.h)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := f.e.ValidatorsForBlock(c, tc.h)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(of, tc.of) || !slices.Equal(resp, tc.resp) {
			t.Errorf("block %d: ValidatorsOf %v (want %v), ValidatorsForBlock %v (want %v)", tc.h.Number, of, tc.of, resp, tc.resp)
		}
	}
}
