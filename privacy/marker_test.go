package privacy

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/privacy/privtx"
)

type fakePool struct {
	txs    []*types.Transaction
	nonces map[common.Address]uint64
}

func (p *fakePool) AddLocal(tx *types.Transaction) error {
	from, _ := types.Sender(types.HomesteadSigner{}, tx)
	p.txs = append(p.txs, tx)
	p.nonces[from] = tx.Nonce() + 1
	return nil
}

func (p *fakePool) PendingNonce(a common.Address) uint64 { return p.nonces[a] }

// TestMarkers: a marker goes to the precompile with the manager's key as
// data, the private transaction's gas price and limit, no chain ID, signed
// by the configured key at its pending nonce, or by a fresh key at nonce 0.
func TestMarkers(t *testing.T) {
	key, _ := crypto.GenerateKey()
	pc := common.HexToAddress("0x7e")
	ptx := &privtx.Transaction{GasPrice: big.NewInt(7), Gas: 90000}
	check := func(tx *types.Transaction, nonce uint64, from *common.Address) {
		t.Helper()
		sender, err := types.Sender(types.HomesteadSigner{}, tx)
		v, _, _ := tx.RawSignatureValues()
		switch {
		case err != nil, tx.Protected(), v.Uint64() != 27 && v.Uint64() != 28:
			t.Fatalf("marker signature: %v v=%v", err, v)
		case *tx.To() != pc || tx.Gas() != 90000 || tx.GasPrice().Int64() != 7 || tx.Value().Sign() != 0 || tx.Nonce() != nonce:
			t.Fatalf("marker %+v", tx)
		case from != nil && sender != *from:
			t.Fatalf("signed by %s", sender.Hex())
		}
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	pool := &fakePool{nonces: map[common.Address]uint64{addr: 3}}
	s := &Service{cfg: Config{Address: pc, MarkerKey: key}, pool: pool}
	for i := uint64(0); i < 2; i++ {
		h, err := s.submitMarker(ptx, common.Hash{byte(i)}.Bytes())
		if err != nil || h != pool.txs[i].Hash() {
			t.Fatal(err)
		}
		check(pool.txs[i], 3+i, &addr)
		if common.BytesToHash(pool.txs[i].Data()) != (common.Hash{byte(i)}) {
			t.Fatal("data is not the key")
		}
	}
	s.cfg.MarkerKey = nil
	for i := 0; i < 2; i++ {
		if _, err := s.submitMarker(ptx, make([]byte, 32)); err != nil {
			t.Fatal(err)
		}
		check(pool.txs[2+i], 0, nil)
	}
	a, _ := types.Sender(types.HomesteadSigner{}, pool.txs[2])
	b, _ := types.Sender(types.HomesteadSigner{}, pool.txs[3])
	if a == b || a == addr {
		t.Fatal("fresh keys are not fresh")
	}
}
