package chain

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// A bulk import keeps only some states; EnsureState re-executes to produce
// the others, and Proof proves accounts in them.
func TestEnsureStateAndProof(t *testing.T) {
	c, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	parent := c.Genesis()
	var headers []*types.Header
	for i := uint64(0); i < 10; i++ {
		b := makeBlock(t, c, parent, 1, []*types.Transaction{transfer(t, testKey, i, common.Address{3})}, 0)
		if _, err := c.InsertBlock(context.Background(), b, InsertOptions{NoSync: true}); err != nil {
			t.Fatal(err)
		}
		parent = b.Header()
		headers = append(headers, parent)
	}
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	h5 := headers[4] // block 5
	if c.HasState(h5.Root) {
		t.Fatal("bulk insert kept an intermediate state; the test needs it missing")
	}
	if err := c.EnsureState(c.Hash(h5), h5); err != nil {
		t.Fatal(err)
	}
	st, err := c.StateAt(h5.Root)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.GetNonce(testAddr); n != 5 {
		t.Fatalf("nonce at block 5: %d", n)
	}

	p, err := c.Proof(h5.Root, testAddr, []common.Hash{{1}})
	if err != nil {
		t.Fatal(err)
	}
	db := memorydb.New()
	for _, node := range p.Proof {
		db.Put(crypto.Keccak256(node), node)
	}
	val, err := trie.VerifyProof(h5.Root, crypto.Keccak256(testAddr.Bytes()), db)
	if err != nil || val == nil {
		t.Fatalf("account proof: %v", err)
	}
	var acct types.StateAccount
	if err := rlp.DecodeBytes(val, &acct); err != nil || acct.Nonce != 5 || p.Account == nil || p.Account.Nonce != 5 {
		t.Fatalf("proven account %+v (%v), answered %+v", acct, err, p.Account)
	}
	if len(p.StorageProof) != 1 || len(p.StorageProof[0].Proof) != 0 || p.StorageProof[0].Value != (common.Hash{}) {
		t.Fatalf("storage proof of an account without storage: %+v", p.StorageProof)
	}
	missing, err := c.Proof(h5.Root, common.Address{0xde, 0xad}, nil)
	if err != nil || missing.Account != nil || len(missing.Proof) == 0 {
		t.Fatalf("absent account: %+v %v", missing, err)
	}
}
