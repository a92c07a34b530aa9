package quorumtx

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestSignRecover: a private transaction signed here has V 37/38 and
// recovers to its signer, through Sender and through a Signer wrapping
// the chain's; other transactions go to the wrapped signer. The vectors
// GoQuorum itself produced are checked in package chain
// (TestGoQuorumPrivateSigner).
func TestSignRecover(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := common.HexToAddress("0x1")
	tx, err := Sign(types.NewTx(&types.LegacyTx{Nonce: 3, Gas: 50000, To: &to, Data: make([]byte, KeySize)}), key)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := tx.RawSignatureValues(); !IsPrivate(tx) || (v.Uint64() != VBase && v.Uint64() != VMax) {
		t.Fatalf("v %v", v)
	}
	chain := types.LatestSignerForChainID(big.NewInt(1337))
	if _, err := types.Sender(chain, tx); err == nil {
		t.Fatal("the chain's own signer recovered a private transaction")
	}
	for _, got := range []func() (common.Address, error){
		func() (common.Address, error) { return Sender(tx) },
		func() (common.Address, error) { return types.Sender(NewSigner(chain), tx) },
	} {
		if a, err := got(); err != nil || a != from {
			t.Fatalf("sender %v %v, want %v", a, err, from)
		}
	}
	public := types.MustSignNewTx(key, chain, &types.DynamicFeeTx{ChainID: big.NewInt(1337), Gas: 21000, To: &to})
	if IsPrivate(public) {
		t.Fatal("a typed transaction is never private")
	}
	if a, err := types.Sender(NewSigner(chain), public); err != nil || a != from {
		t.Fatalf("public sender %v %v", a, err)
	}
	if _, err := Sender(public); err == nil {
		t.Fatal("Sender took a public transaction")
	}
	if NewSigner(chain).Equal(chain) || !NewSigner(chain).Equal(NewSigner(types.LatestSignerForChainID(big.NewInt(1337)))) {
		t.Fatal("Equal")
	}
	if _, err := Sign(public, key); err == nil {
		t.Fatal("signed a typed transaction as private")
	}
}
