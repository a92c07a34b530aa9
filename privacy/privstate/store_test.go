package privstate

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"
)

// TestStore: a group's state committed under a block's record reads back
// after the store is opened again on the same database; a block without a
// record has every group at the empty root.
func TestStore(t *testing.T) {
	db := rawdb.NewMemoryDatabase()
	s := Open(db)
	block, group := common.HexToHash("0xb1"), common.HexToHash("0x9")
	if r, err := s.Record(block); err != nil || r.Root(group) != types.EmptyRootHash || s.HasRecord(block) {
		t.Fatalf("empty store: %+v %v", r, err)
	}
	st, err := s.StateAt(types.EmptyRootHash)
	if err != nil {
		t.Fatal(err)
	}
	addr := common.HexToAddress("0x1234")
	st.SetNonce(addr, 3, tracing.NonceChangeUnspecified)
	st.SetState(addr, common.Hash{1}, common.Hash{2})
	st.AddBalance(addr, uint256.NewInt(0), tracing.BalanceChangeUnspecified)
	root, err := s.CommitState(st, params.Rules{IsEIP158: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Record{Roots: []GroupRoot{{Group: group, Root: root}},
		Receipts: []Receipt{{PMT: common.HexToHash("0xabc"), Group: group, Status: 1, Logs: []Log{{Address: addr, Topics: []common.Hash{{3}}, Data: []byte{4}}}}}}
	if err := s.WriteRecord(block, rec); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Roots(block); r.Root(group) != root || len(r.Receipts) != 0 {
		t.Fatalf("roots %+v", r)
	}
	s2 := Open(db)
	got, err := s2.Record(block)
	if err != nil || got.Root(group) != root || got.Receipt(common.HexToHash("0xabc")) == nil || got.Receipt(common.Hash{}) != nil {
		t.Fatalf("record %+v %v", got, err)
	}
	st2, err := s2.StateAt(got.Root(group))
	if err != nil || st2.GetNonce(addr) != 3 || st2.GetState(addr, common.Hash{1}) != (common.Hash{2}) {
		t.Fatalf("state after reopening: %v", err)
	}
	// Private data stays under its prefix, apart from the chain's.
	if v, _ := db.Get(append([]byte("roots-"), block[:]...)); v != nil {
		t.Fatal("record written without the private prefix")
	}
}

// TestReceiptFailureOptional: a receipt's Failure survives the store, and
// a record written before receipts had one (the same fields without it)
// still decodes, with none.
func TestReceiptFailureOptional(t *testing.T) {
	r := Receipt{PMT: common.HexToHash("0x1"), Status: 0, Revert: []byte{1}, Failure: "Invalid opcode: 0xfe"}
	b, err := rlp.EncodeToBytes([]Receipt{r})
	if err != nil {
		t.Fatal(err)
	}
	var got []Receipt
	if err := rlp.DecodeBytes(b, &got); err != nil || len(got) != 1 || got[0].Failure != r.Failure {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	type oldReceipt struct {
		PMT       common.Hash
		PMTIndex  uint64
		TxHash    common.Hash
		Group     common.Hash
		From      common.Address
		To        []byte
		Contract  []byte
		Status    uint64
		Output    []byte
		Revert    []byte
		Logs      []Log
		RawTx     []byte
		StateRoot common.Hash
	}
	old, _ := rlp.EncodeToBytes([]oldReceipt{{PMT: common.HexToHash("0x2"), Status: 1, RawTx: []byte{9}}})
	if err := rlp.DecodeBytes(old, &got); err != nil || len(got) != 1 || got[0].PMT != common.HexToHash("0x2") || got[0].Failure != "" {
		t.Fatalf("old record: %+v %v", got, err)
	}
}
