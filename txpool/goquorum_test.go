package txpool

import (
	"math/big"
	"testing"

	"github.com/basaltchain/basalt/quorumtx"
	"github.com/ethereum/go-ethereum/core/types"
)

func privateTx(t *testing.T, a account256, nonce uint64, value int64, data []byte) *types.Transaction {
	t.Helper()
	tx, err := quorumtx.Sign(types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: big.NewInt(1000), Gas: 60000, To: &testTo,
		Value: big.NewInt(value), Data: data}), a.key)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestGoQuorumPrivateAdmission: with GoQuorumPrivate the pool takes
// GoQuorum private transactions (V 37/38, no chain ID) from their real
// sender, with GoQuorum's rules (no value, a payload key); without it they
// are what go-ethereum reads them as, EIP-155 signatures for chain 1.
func TestGoQuorumPrivateAdmission(t *testing.T) {
	key := make([]byte, quorumtx.KeySize)
	key[0] = 1

	plain := defaultEnv(t)
	a := newAccount(t)
	wantReason(t, plain.pool.AddLocal(privateTx(t, a, 0, 0, key)), WrongChainID)

	cfg := DefaultConfig()
	cfg.GoQuorumPrivate = true
	env := newTestEnv(t, cfg, londonConfig(), testHead(1, 30_000_000, 7))
	tx := privateTx(t, a, 0, 0, key)
	if err := env.pool.AddLocal(tx); err != nil {
		t.Fatalf("private tx: %v", err)
	}
	if !env.pool.Has(tx.Hash()) || env.pool.PendingNonce(a.addr) != 1 {
		t.Fatalf("private tx not pending for its sender (pending nonce %d)", env.pool.PendingNonce(a.addr))
	}
	wantReason(t, env.pool.AddLocal(privateTx(t, a, 1, 5, key)), InvalidTransactionFormat)
	wantReason(t, env.pool.AddLocal(privateTx(t, a, 1, 0, nil)), InvalidTransactionFormat)
}
