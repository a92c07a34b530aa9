package goquorum

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/quorumtx"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// q2tManager answers GET /transaction/{key} from a table, as basalt-privacy's
// Q2T API does: 404 for a key it does not hold, a number of 500s first
// where the test says so.
type q2tManager struct {
	mu       sync.Mutex
	payloads map[string][]byte
	failures map[string]int
	calls    int
}

func (m *q2tManager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if r.URL.Path == "/upcheck" {
		w.Write([]byte("I'm up!"))
		return
	}
	k := strings.TrimPrefix(r.URL.Path, "/transaction/")
	if m.failures[k] > 0 {
		m.failures[k]--
		http.Error(w, "down", 500)
		return
	}
	p, ok := m.payloads[k]
	if !ok {
		http.Error(w, "not found", 404)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"payload": p, "privacyFlag": 0, "managedParties": []string{}, "senderKey": "x"})
}

func (m *q2tManager) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// deployCode is init code returning runtime as the contract's code.
func deployCode(runtime []byte) []byte {
	n := len(runtime)
	return append([]byte{0x61, byte(n >> 8), byte(n), 0x80, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3}, runtime...)
}

// storeRuntime stores a call's first 32 bytes in slot 0, or with no input
// returns slot 0.
var storeRuntime = hexutil.MustDecode("0x3615600b576000356000555b60005460005260206000f3")

// readerRuntime calls pub with no input and stores the 32 bytes it
// returns in slot 1.
func readerRuntime(pub common.Address) []byte {
	code := []byte{0x60, 0x20, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x73}
	code = append(code, pub[:]...)
	return append(code, 0x5a, 0xf1, 0x50, 0x60, 0x00, 0x51, 0x60, 0x01, 0x55, 0x00)
}

// writerRuntime calls pub with 9 as input (a write, in pub) and then sets
// its own slot 2 to 1.
func writerRuntime(pub common.Address) []byte {
	code := []byte{0x60, 0x09, 0x60, 0x00, 0x52, 0x60, 0x00, 0x60, 0x00, 0x60, 0x20, 0x60, 0x00, 0x60, 0x00, 0x73}
	code = append(code, pub[:]...)
	return append(code, 0x5a, 0xf1, 0x50, 0x60, 0x01, 0x60, 0x02, 0x55, 0x00)
}

type testChain struct {
	c    *chain.Chain
	db   ethdb.Database
	pub  common.Address
	key  *ecdsa.PrivateKey
	from common.Address
}

func openChain(t testing.TB) *testChain {
	key, _ := crypto.GenerateKey()
	pub := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	g := chaintest.Genesis()
	g.Alloc = types.GenesisAlloc{pub: {Code: storeRuntime, Balance: new(big.Int), Storage: map[common.Hash]common.Hash{{}: common.BigToHash(big.NewInt(5))}}}
	db := chain.NewMemoryDatabase()
	c, err := chain.Open(db, g, chaintest.NewEngine(), chain.WithGoQuorumPrivate())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &testChain{c: c, db: db, pub: pub, key: key, from: crypto.PubkeyToAddress(key.PublicKey)}
}

// block makes block 1 of GoQuorum private transactions from tc.key, one
// per payload key in keys, to the given addresses (nil: a creation).
func (tc *testChain) block(t testing.TB, keys [][]byte, to []*common.Address) *types.Block {
	var txs []*types.Transaction
	var receipts types.Receipts
	for i, k := range keys {
		tx, err := quorumtx.Sign(types.NewTx(&types.LegacyTx{Nonce: uint64(i), GasPrice: new(big.Int), Gas: 500_000, To: to[i], Data: k}), tc.key)
		if err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
		receipts = append(receipts, &types.Receipt{Status: types.ReceiptStatusSuccessful})
	}
	parent := tc.c.CurrentHeader()
	header := &types.Header{ParentHash: tc.c.CurrentHash(), Number: big.NewInt(1), GasLimit: parent.GasLimit, Difficulty: big.NewInt(1),
		Time: parent.Time + 1, BaseFee: new(big.Int)}
	return types.NewBlock(header, &types.Body{Transactions: txs}, receipts, trie.NewStackTrie(nil))
}

func key64(b byte) []byte { k := make([]byte, 64); k[0] = b; return k }

func b64(k []byte) string { return base64.StdEncoding.EncodeToString(k) }

// process runs both steps of the hook on block, as InsertBlock does, on
// the state of tc's head (the block's parent).
func process(p *Processor, tc *testChain, ctx context.Context, block *types.Block, hash common.Hash) error {
	prepared, err := p.Prepare(ctx, block)
	if err != nil {
		return err
	}
	return prepared.ProcessBlock(ctx, tc.hookBlock(hash))
}

// hookBlock is what InsertBlock gives the hook for a child of tc's head.
func (tc *testChain) hookBlock(hash common.Hash) *chain.HookBlock {
	parent, err := tc.c.StateAt(tc.c.CurrentHeader().Root)
	if err != nil {
		panic(err)
	}
	return &chain.HookBlock{Exec: tc.c.Executor(), Hash: hash, Parent: parent}
}

// TestProcessorGoQuorumRules runs one block of GoQuorum private
// transactions on a party, with GoQuorum's rules: creations at
// CreateAddress(sender, public nonce); a non-party creation leaves an empty
// account with nonce 1 and no receipt, a non-party call nothing; a private
// contract reads a public one (the public state as it stands); a private
// contract whose call into a public contract writes is undone and fails;
// the manager's 500s are waited out.
func TestProcessorGoQuorumRules(t *testing.T) {
	tc := openChain(t)
	store := privstate.OpenPrefix(tc.db, privstate.GoQuorumPrefix)
	m := &q2tManager{payloads: map[string][]byte{}, failures: map[string]int{}}
	keys := [][]byte{key64(1), key64(2), key64(3), key64(4), key64(5), key64(6), key64(7), key64(8)}
	m.payloads[b64(keys[0])] = deployCode(storeRuntime)
	// keys[1]: a creation this node is not a party to
	m.payloads[b64(keys[2])] = common.BigToHash(big.NewInt(7)).Bytes()
	// keys[3]: a call this node is not a party to
	m.payloads[b64(keys[4])] = deployCode(readerRuntime(tc.pub))
	m.payloads[b64(keys[5])] = deployCode(writerRuntime(tc.pub))
	m.payloads[b64(keys[6])] = nil // filled below: a call to the writer
	m.failures[b64(keys[2])] = 2
	srv := httptest.NewServer(m)
	defer srv.Close()
	client, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := NewProcessor(store, client, slog.New(slog.DiscardHandler))
	store0 := crypto.CreateAddress(tc.from, 0)
	reader := crypto.CreateAddress(tc.from, 4)
	writer := crypto.CreateAddress(tc.from, 5)
	m.payloads[b64(keys[6])] = []byte{0x01}
	m.payloads[b64(keys[7])] = []byte{0x01} // a call to the reader
	block := tc.block(t, keys, []*common.Address{nil, nil, &store0, &store0, nil, nil, &writer, &reader})
	hash := common.Hash{0xbb}
	if err := process(p, tc, context.Background(), block, hash); err != nil {
		t.Fatal(err)
	}
	if m.failures[b64(keys[2])] != 0 {
		t.Fatal("the manager's 500s were not retried")
	}
	s := NewService(p, tc.c, nil)
	st, err := s.StateAt(hash)
	if err != nil {
		t.Fatal(err)
	}
	if v := st.GetState(store0, common.Hash{}); v != common.BigToHash(big.NewInt(7)) {
		t.Errorf("private store slot 0 = %x, want 7", v)
	}
	if len(st.GetCode(store0)) == 0 {
		t.Error("private store has no code")
	}
	if st.GetNonce(tc.from) != 0 {
		t.Errorf("sender's private nonce %d: GoQuorum counts a private transaction's nonce in public only", st.GetNonce(tc.from))
	}
	nonParty := crypto.CreateAddress(tc.from, 1)
	if !st.Exist(nonParty) || st.GetNonce(nonParty) != 1 || len(st.GetCode(nonParty)) != 0 {
		t.Errorf("non-party creation: exists %v nonce %d code %x, want an empty account with nonce 1", st.Exist(nonParty), st.GetNonce(nonParty), st.GetCode(nonParty))
	}
	if v := st.GetState(reader, common.BigToHash(big.NewInt(1))); v != common.BigToHash(big.NewInt(5)) {
		t.Errorf("private reader's slot 1 = %x, want the public contract's 5", v)
	}
	if v := st.GetState(writer, common.BigToHash(big.NewInt(2))); v != (common.Hash{}) {
		t.Errorf("writer's slot 2 = %x: the failed call's private effects stayed", v)
	}
	for i, want := range map[int]uint64{0: 1, 1: 99, 2: 1, 3: 99, 4: 1, 5: 1, 6: 0, 7: 1} {
		r, err := s.Receipt(hash, block.Transactions()[i].Hash())
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want == 99 && r != nil:
			t.Errorf("tx %d (not a party): a private receipt %+v", i, r)
		case want != 99 && r == nil:
			t.Errorf("tx %d: no private receipt", i)
		case want != 99 && r.Status != want:
			t.Errorf("tx %d: status %d, want %d (%s)", i, r.Status, want, r.Failure)
		}
	}
	if r, _ := s.Receipt(hash, block.Transactions()[0].Hash()); r == nil || common.BytesToAddress(r.Contract) != store0 {
		t.Errorf("creation receipt %+v, want contract %s", r, store0)
	}
	// The public state is untouched by the private runs.
	pub, _ := tc.c.State()
	if v := pub.GetState(tc.pub, common.Hash{}); v != common.BigToHash(big.NewInt(5)) {
		t.Errorf("public contract slot 0 = %x", v)
	}

	// eth_call on the private store reads it; on the reader, through the
	// public contract.
	header := tc.c.CurrentHeader()
	res := s.Call(header, st, pub, tc.from, store0, nil, 100_000, nil)
	if res.Err != nil || common.BytesToHash(res.ReturnData) != common.BigToHash(big.NewInt(7)) {
		t.Errorf("private call: %x %v", res.ReturnData, res.Err)
	}

	// A manager that keeps failing holds the block until the context ends,
	// and nothing is written for it.
	m.mu.Lock()
	m.failures[b64(keys[0])] = 1 << 30
	m.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	before := m.count()
	go func() {
		for m.count() < before+3 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	err = process(p, tc, ctx, block, common.Hash{0xcc})
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("failing manager: %v", err)
	}
	if store.HasRecord(common.Hash{0xcc}) {
		t.Fatal("a record was written without the payloads")
	}
	// Stop ends the wait of a block inserted with a context that never
	// ends (the miner's).
	before = m.count()
	go func() {
		for m.count() < before+3 {
			time.Sleep(10 * time.Millisecond)
		}
		p.Stop()
	}()
	if err := process(p, tc, context.WithoutCancel(context.Background()), block, common.Hash{0xdd}); err == nil {
		t.Fatal("a stopped processor stored a block without its payloads")
	}
}

// TestPayloadKey: GoQuorum's BytesToEncryptedPayloadHash.
func TestPayloadKey(t *testing.T) {
	if k := PayloadKey([]byte{1, 2}); len(k) != 64 || k[62] != 1 || k[63] != 2 {
		t.Errorf("short: %x", k)
	}
	long := make([]byte, 70)
	long[69] = 9
	if k := PayloadKey(long); len(k) != 64 || k[63] != 9 {
		t.Errorf("long: %x", k)
	}
}
