package privacy

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/privacy/privtx"
)

// fakePool is a pool that takes every transaction; a transaction leaves
// it by drop.
type fakePool struct {
	txs    []*types.Transaction
	nonces map[common.Address]uint64
	gone   map[common.Hash]bool
}

func (p *fakePool) AddLocalDeferred(tx *types.Transaction) (func() error, error) {
	from, _ := types.Sender(types.HomesteadSigner{}, tx)
	p.txs = append(p.txs, tx)
	p.nonces[from] = tx.Nonce() + 1
	return func() error { return nil }, nil
}

func (p *fakePool) PendingNonce(a common.Address) uint64 { return p.nonces[a] }

func (p *fakePool) Has(h common.Hash) bool {
	for _, tx := range p.txs {
		if tx.Hash() == h {
			return !p.gone[h]
		}
	}
	return false
}

// drop takes tx out of the pool, as eviction does.
func (p *fakePool) drop(tx *types.Transaction) {
	if p.gone == nil {
		p.gone = map[common.Hash]bool{}
	}
	p.gone[tx.Hash()] = true
	from, _ := types.Sender(types.HomesteadSigner{}, tx)
	p.nonces[from] = min(p.nonces[from], tx.Nonce())
}

// TestMarkers: a marker goes to the precompile with the manager's key as
// data, the private transaction's gas price and limit, no chain ID, signed
// by the configured key at its pending nonce, or by a fresh key per lane
// that the lane keeps while it has markers pooled.
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
	s := &Service{cfg: Config{Address: pc, MarkerKey: key}, pool: pool, lanes: newLanes(pool.Has)}
	k1, k2 := laneKey{sender: common.Address{1}}, laneKey{sender: common.Address{2}}
	submit := func(k laneKey, nonce uint64, data []byte) common.Hash {
		t.Helper()
		l := s.lanes.acquire(k)
		defer s.lanes.release(k, l)
		h, durable, err := s.submitMarker(l, ptx, data)
		if err != nil || durable() != nil {
			t.Fatal(err)
		}
		s.lanes.record(k, l, nonce, h)
		return h
	}
	for i := uint64(0); i < 2; i++ {
		h := submit(k1, i, common.Hash{byte(i)}.Bytes())
		if h != pool.txs[i].Hash() {
			t.Fatal("hash")
		}
		check(pool.txs[i], 3+i, &addr)
		if common.BytesToHash(pool.txs[i].Data()) != (common.Hash{byte(i)}) {
			t.Fatal("data is not the key")
		}
	}
	s.cfg.MarkerKey = nil
	s.lanes = newLanes(pool.Has)
	sender := func(i int) common.Address {
		a, _ := types.Sender(types.HomesteadSigner{}, pool.txs[i])
		return a
	}
	// Two lanes: a fresh key each; a lane's next marker while the first is
	// pooled: the lane's key at the next nonce.
	submit(k1, 0, make([]byte, 32))
	submit(k2, 0, make([]byte, 32))
	submit(k1, 1, make([]byte, 32))
	check(pool.txs[2], 0, nil)
	check(pool.txs[3], 0, nil)
	check(pool.txs[4], 1, nil)
	if a, b := sender(2), sender(3); a == b || a == addr {
		t.Fatal("fresh keys are not fresh")
	}
	if sender(4) != sender(2) {
		t.Fatal("a lane's second marker is not signed by its key")
	}
	// Once nothing of the lane is pooled, a fresh key again.
	pool.drop(pool.txs[2])
	pool.drop(pool.txs[4])
	if n := s.lanes.next(k1, 0); n != 0 {
		t.Fatalf("pending nonce %d after the lane's markers left the pool", n)
	}
	submit(k1, 0, make([]byte, 32))
	check(pool.txs[5], 0, nil)
	if sender(5) == sender(2) {
		t.Fatal("a lane with nothing pooled kept its key")
	}
}

// TestPendingPrivateNonces: the pending private nonce is the head's plus
// the unbroken run of pooled markers from it; a marker that left the pool
// opens a gap that the next transaction fills; mined ones (below the head)
// and idle lanes are forgotten.
func TestPendingPrivateNonces(t *testing.T) {
	pooled := map[common.Hash]bool{}
	ls := newLanes(func(h common.Hash) bool { return pooled[h] })
	k := laneKey{group: common.Hash{9}, sender: common.Address{1}}
	add := func(nonce uint64) common.Hash {
		l := ls.acquire(k)
		defer ls.release(k, l)
		h := common.Hash{byte(nonce), 1}
		pooled[h] = true
		ls.record(k, l, nonce, h)
		return h
	}
	if n := ls.next(k, 3); n != 3 {
		t.Fatalf("empty lane: %d", n)
	}
	var hs []common.Hash
	for n := uint64(3); n < 7; n++ {
		hs = append(hs, add(n))
	}
	if n := ls.next(k, 3); n != 7 {
		t.Fatalf("four pooled from 3: %d", n)
	}
	if n := ls.next(k, 5); n != 7 {
		t.Fatalf("two of them mined: %d", n)
	}
	delete(pooled, hs[3]) // nonce 6 evicted
	if n := ls.next(k, 5); n != 6 {
		t.Fatalf("nonce 6 left the pool: %d", n)
	}
	delete(pooled, hs[2]) // nonce 5 evicted: 6 is free again too
	add(6)
	if n := ls.next(k, 5); n != 5 {
		t.Fatalf("gap at 5: %d", n)
	}
	add(5)
	if n := ls.next(k, 5); n != 7 {
		t.Fatalf("gap filled: %d", n)
	}
	// A reorg puts a mined marker back in the pool: it counts again.
	now := time.Unix(1000, 0)
	ls.now = func() time.Time { return now }
	delete(pooled, hs[0]) // nonce 3 mined
	if n := ls.next(k, 4); n != 7 {
		t.Fatalf("3 mined: %d", n)
	}
	pooled[hs[0]] = true // the block with it left the chain
	if n := ls.next(k, 3); n != 7 {
		t.Fatalf("3 back in the pool after a reorg: %d", n)
	}
	// Everything mined: the lane goes once no submission holds it and
	// minedRetention has passed.
	clear(pooled)
	if n := ls.next(k, 7); n != 7 {
		t.Fatalf("all mined: %d", n)
	}
	l := ls.acquire(k)
	ls.release(k, l)
	if ls.len() != 1 {
		t.Fatal("mined markers forgotten at once")
	}
	now = now.Add(minedRetention + time.Second)
	l = ls.acquire(k)
	ls.release(k, l)
	if ls.len() != 0 {
		t.Fatal("idle lane kept")
	}
	// Idle lanes whose markers left the pool are swept, every sweepEvery
	// markers recorded, once minedRetention has passed.
	ls.adds = 0
	for i := range sweepEvery - 1 {
		kk := laneKey{sender: common.Address{byte(i), byte(i >> 8)}}
		h := common.Hash{byte(i), byte(i >> 8), 2}
		pooled[h] = true
		l := ls.acquire(kk)
		ls.record(kk, l, 0, h)
		ls.release(kk, l)
	}
	if n := ls.len(); n != sweepEvery-1 {
		t.Fatalf("%d lanes with markers pooled", n)
	}
	clear(pooled)
	ls.mu.Lock()
	ls.sweepLocked() // the markers are found mined
	ls.mu.Unlock()
	now = now.Add(minedRetention + time.Second)
	add(0)
	if n := ls.len(); n != 1 {
		t.Fatalf("%d lanes after a sweep", n)
	}
}
