package chain

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// senderBlock returns a block of n signed transfers and a fresh decoded
// copy of it (transactions with no sender cached), as a peer's block is.
func senderBlock(t testing.TB, signer types.Signer, n int) (orig, fresh *types.Block) {
	key, _ := crypto.GenerateKey()
	txs := make([]*types.Transaction, n)
	for i := range txs {
		tx, err := types.SignNewTx(key, signer, &types.LegacyTx{Nonce: uint64(i), Gas: 21000, GasPrice: big.NewInt(1), To: &common.Address{1}})
		if err != nil {
			t.Fatal(err)
		}
		txs[i] = tx
	}
	orig = types.NewBlock(&types.Header{Number: big.NewInt(1)}, &types.Body{Transactions: txs}, nil, trie.NewStackTrie(nil))
	enc, err := rlp.EncodeToBytes(orig)
	if err != nil {
		t.Fatal(err)
	}
	fresh = new(types.Block)
	if err := rlp.DecodeBytes(enc, fresh); err != nil {
		t.Fatal(err)
	}
	return orig, fresh
}

// A block's transactions that the lookup knows take their sender from the
// known copy, not from a new recovery; the others are recovered. The known
// copies here carry a planted sender, which a recovery would not give.
func TestRecoverSendersKnown(t *testing.T) {
	signer := types.LatestSignerForChainID(big.NewInt(1))
	for _, n := range []int{3, 100} { // inline and on all cores
		orig, fresh := senderBlock(t, signer, n)
		planted := common.Address{0xaa}
		known := map[common.Hash]*types.Transaction{}
		for i, tx := range orig.Transactions() {
			if i%2 == 0 {
				types.Sender(knownSender{signer, planted}, tx)
				known[tx.Hash()] = tx
			}
		}
		want, _ := types.Sender(signer, orig.Transactions()[1])
		RecoverSenders(signer, fresh, func(h common.Hash) *types.Transaction { return known[h] })
		for i, tx := range fresh.Transactions() {
			got, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 && got != planted {
				t.Fatalf("n=%d tx %d: sender %v, want the known copy's %v", n, i, got, planted)
			}
			if i%2 == 1 && got != want {
				t.Fatalf("n=%d tx %d: sender %v, want the recovered %v", n, i, got, want)
			}
		}
	}
}

// BenchmarkRecoverSenders: a 1,000-transfer block from a peer, its
// transactions unknown (recovered on all cores) or all in the pool.
func BenchmarkRecoverSenders(b *testing.B) {
	signer := types.LatestSignerForChainID(big.NewInt(1))
	orig, _ := senderBlock(b, signer, 1000)
	known := map[common.Hash]*types.Transaction{}
	for _, tx := range orig.Transactions() {
		types.Sender(signer, tx)
		known[tx.Hash()] = tx
	}
	enc, _ := rlp.EncodeToBytes(orig)
	for _, bc := range []struct {
		name  string
		known func(common.Hash) *types.Transaction
	}{{"unknown", nil}, {"pooled", func(h common.Hash) *types.Transaction { return known[h] }}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				blk := new(types.Block)
				if err := rlp.DecodeBytes(enc, blk); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				RecoverSenders(signer, blk, bc.known)
			}
		})
	}
}
