package privacy

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy/enclave"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/privacy/privtx"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// fakeManager answers /receive from a table: a payload, a status, or a
// number of 500s before the payload.
type fakeManager struct {
	mu       sync.Mutex
	payloads map[string][]byte
	failures map[string]int    // 500s left before answering
	senders  map[string]string // senderKey other than the tests' privateFrom
	groupOf  map[string]string // privacyGroupId other than testGroup's
	groups   map[string][]string
	calls    int
}

func (f *fakeManager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct{ Key, PrivacyGroupID string }
	json.NewDecoder(r.Body).Decode(&req)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if r.URL.Path == "/retrievePrivacyGroup" {
		if f.failures[req.PrivacyGroupID] > 0 {
			f.failures[req.PrivacyGroupID]--
			w.WriteHeader(500)
			return
		}
		members, ok := f.groups[req.PrivacyGroupID]
		if !ok {
			w.WriteHeader(404)
			w.Write([]byte(`{"error":"PrivacyGroupNotFound"}`))
			return
		}
		json.NewEncoder(w).Encode(enclave.PrivacyGroup{PrivacyGroupID: req.PrivacyGroupID, Type: "PANTHEON", Members: members})
		return
	}
	if f.failures[req.Key] > 0 {
		f.failures[req.Key]--
		w.WriteHeader(500)
		w.Write([]byte(`{"error":"0x000000F"}`))
		return
	}
	p, ok := f.payloads[req.Key]
	if !ok {
		w.WriteHeader(404)
		w.Write([]byte(`{"error":"EnclavePayloadNotFound"}`))
		return
	}
	sender := base64.StdEncoding.EncodeToString(make([]byte, 32)) // the tests' privateFrom
	if f.senders[req.Key] != "" {
		sender = f.senders[req.Key]
	}
	group := base64.StdEncoding.EncodeToString(testGroup[:])
	if f.groupOf[req.Key] != "" {
		group = f.groupOf[req.Key]
	}
	json.NewEncoder(w).Encode(map[string]string{"payload": enclave.EncodePayload(p), "privacyGroupId": group, "senderKey": sender})
}

var testGroup = common.HexToHash("0x77")

// TestProcessor runs a block of four markers through the processor: one
// ours (a creation), one not ours (404), one whose sender at the manager is
// not its privateFrom (skipped), one ours after two 500s (a call storing
// 5); a manager that never recovers makes ProcessBlock give up only when
// its context ends.
func TestProcessor(t *testing.T) {
	c := chaintest.Open(t, chain.NewMemoryDatabase())
	key, _ := crypto.GenerateKey()
	sender := crypto.PubkeyToAddress(key.PublicKey)
	sign := func(tx *privtx.Transaction) []byte {
		if err := tx.Sign(big.NewInt(1337), func(h []byte) ([]byte, error) { return crypto.Sign(h, key) }); err != nil {
			t.Fatal(err)
		}
		b, _ := tx.MarshalBinary()
		return b
	}
	// The store contract of the end-to-end test.
	initCode := hexutil.MustDecode("0x602280600b6000396000f336600f5760005460005260206000f35b60003580600055600052602a60206000a100")
	contract := ContractAddress(sender, 0, testGroup)
	deploy := sign(&privtx.Transaction{Nonce: 0, Gas: 1, Data: initCode, PrivateFrom: make([]byte, 32), PrivateFor: [][]byte{}, Restriction: privtx.Restricted})
	set := sign(&privtx.Transaction{Nonce: 1, Gas: 1, To: &contract, Data: common.BigToHash(big.NewInt(5)).Bytes(), PrivateFrom: make([]byte, 32), PrivateFor: [][]byte{}, Restriction: privtx.Restricted})
	k1, k2, k4, k3 := common.Hash{1}, common.Hash{2}, common.Hash{4}, common.Hash{3}
	b64 := func(h common.Hash) string { return base64.StdEncoding.EncodeToString(h[:]) }
	fm := &fakeManager{payloads: map[string][]byte{b64(k1): deploy, b64(k3): set, b64(k4): set}, failures: map[string]int{b64(k3): 2},
		senders: map[string]string{b64(k4): b64(common.Hash{9})}}
	srv := httptest.NewServer(fm)
	defer srv.Close()
	client, _ := enclave.New(enclave.Config{URL: srv.URL})
	store := privstate.Open(c.Database())
	p := NewProcessor(store, client, common.HexToAddress("0x7e"), false, slog.New(slog.DiscardHandler))

	to := common.HexToAddress("0x7e")
	var txs []*types.Transaction
	var receipts types.Receipts
	for _, k := range []common.Hash{k1, k2, k4, k3} {
		mk, _ := crypto.GenerateKey()
		tx, _ := types.SignTx(types.NewTx(&types.LegacyTx{Gas: 30000, GasPrice: new(big.Int), To: &to, Data: k[:]}), types.HomesteadSigner{}, mk)
		txs = append(txs, tx)
		receipts = append(receipts, &types.Receipt{Status: types.ReceiptStatusSuccessful})
	}
	genesis := c.CurrentHeader()
	header := &types.Header{ParentHash: c.CurrentHash(), Number: big.NewInt(1), GasLimit: genesis.GasLimit, Difficulty: big.NewInt(1),
		Time: genesis.Time + 1, BaseFee: new(big.Int)}
	block := types.NewBlock(header, &types.Body{Transactions: txs}, receipts, trie.NewStackTrie(nil))
	hash := common.Hash{0xbb}
	if err := processBlock(p, c.Executor(), context.Background(), block, hash, receipts, nil); err != nil {
		t.Fatal(err)
	}
	rec, err := store.Record(hash)
	if err != nil || len(rec.Receipts) != 2 {
		t.Fatalf("record %+v %v", rec, err)
	}
	if r := rec.Receipts[0]; r.PMT != txs[0].Hash() || r.Status != 1 || common.BytesToAddress(r.Contract) != contract || r.From != sender {
		t.Fatalf("creation receipt %+v", r)
	}
	if r := rec.Receipts[1]; r.PMT != txs[3].Hash() || r.Status != 1 || len(r.Logs) != 1 || r.PMTIndex != 3 {
		t.Fatalf("call receipt %+v", r)
	}
	st, err := store.StateAt(rec.Root(testGroup))
	if err != nil || st.GetState(contract, common.Hash{}) != common.BigToHash(big.NewInt(5)) || st.GetNonce(sender) != 2 {
		t.Fatalf("private state: %v", err)
	}
	if fm.calls < 6 {
		t.Fatalf("%d /receive calls, want the 500s retried", fm.calls)
	}

	// A manager that keeps failing holds the block until the context ends.
	fm.failures[b64(k1)] = 1 << 30
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			fm.mu.Lock()
			n := fm.calls
			fm.mu.Unlock()
			if n > 8 {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	err = processBlock(p, c.Executor(), ctx, block, common.Hash{0xcc}, receipts, nil)
	if err == nil || !errors.Is(err, context.Canceled) && ctx.Err() == nil {
		t.Fatalf("failing manager: %v", err)
	}
	if store.HasRecord(common.Hash{0xcc}) {
		t.Fatal("a record was written without the payloads")
	}
	// Stop ends the wait of a block inserted with a context that never
	// ends (the miner's).
	go func() {
		for {
			fm.mu.Lock()
			n := fm.calls
			fm.mu.Unlock()
			if n > 12 {
				p.Stop()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	if err := processBlock(p, c.Executor(), context.WithoutCancel(context.Background()), block, common.Hash{0xdd}, receipts, nil); err == nil {
		t.Fatal("a stopped processor stored a block without its payloads")
	}
}

// TestProcessorGroupMembership: a private transaction sent by
// privacyGroupId runs only when its privateFrom is a member of the group
// its payload belongs to; a group the manager does not know skips it too,
// and a manager failing /retrievePrivacyGroup is waited for.
func TestProcessorGroupMembership(t *testing.T) {
	c := chaintest.Open(t, chain.NewMemoryDatabase())
	key, _ := crypto.GenerateKey()
	sender := crypto.PubkeyToAddress(key.PublicKey)
	b64 := func(h common.Hash) string { return base64.StdEncoding.EncodeToString(h[:]) }
	from := common.Hash{} // the fake manager's senderKey
	member, outsider, unknown := common.Hash{0x51}, common.Hash{0x52}, common.Hash{0x53}
	deploy := func(group common.Hash) []byte {
		tx := &privtx.Transaction{Nonce: 0, Gas: 1, Data: hexutil.MustDecode("0x600080600a6000396000f3"),
			PrivateFrom: from[:], PrivacyGroupID: group[:], Restriction: privtx.Restricted}
		if err := tx.Sign(big.NewInt(1337), func(h []byte) ([]byte, error) { return crypto.Sign(h, key) }); err != nil {
			t.Fatal(err)
		}
		b, _ := tx.MarshalBinary()
		return b
	}
	k1, k2, k3 := common.Hash{1}, common.Hash{2}, common.Hash{3}
	fm := &fakeManager{
		payloads: map[string][]byte{b64(k1): deploy(member), b64(k2): deploy(outsider), b64(k3): deploy(unknown)},
		groupOf:  map[string]string{b64(k1): b64(member), b64(k2): b64(outsider), b64(k3): b64(unknown)},
		groups: map[string][]string{
			b64(member):   {b64(common.Hash{7}), b64(from)},
			b64(outsider): {b64(common.Hash{7}), b64(common.Hash{8})},
		},
		failures: map[string]int{b64(member): 2},
	}
	srv := httptest.NewServer(fm)
	defer srv.Close()
	client, _ := enclave.New(enclave.Config{URL: srv.URL})
	store := privstate.Open(c.Database())
	p := NewProcessor(store, client, common.HexToAddress("0x7e"), false, slog.New(slog.DiscardHandler))

	to := common.HexToAddress("0x7e")
	var txs []*types.Transaction
	var receipts types.Receipts
	for _, k := range []common.Hash{k1, k2, k3} {
		mk, _ := crypto.GenerateKey()
		tx, _ := types.SignTx(types.NewTx(&types.LegacyTx{Gas: 30000, GasPrice: new(big.Int), To: &to, Data: k[:]}), types.HomesteadSigner{}, mk)
		txs = append(txs, tx)
		receipts = append(receipts, &types.Receipt{Status: types.ReceiptStatusSuccessful})
	}
	genesis := c.CurrentHeader()
	header := &types.Header{ParentHash: c.CurrentHash(), Number: big.NewInt(1), GasLimit: genesis.GasLimit, Difficulty: big.NewInt(1),
		Time: genesis.Time + 1, BaseFee: new(big.Int)}
	block := types.NewBlock(header, &types.Body{Transactions: txs}, receipts, trie.NewStackTrie(nil))
	hash := common.Hash{0xbb}
	if err := processBlock(p, c.Executor(), context.Background(), block, hash, receipts, nil); err != nil {
		t.Fatal(err)
	}
	rec, err := store.Record(hash)
	if err != nil || len(rec.Receipts) != 1 {
		t.Fatalf("record %+v %v", rec, err)
	}
	if r := rec.Receipts[0]; r.PMT != txs[0].Hash() || r.Group != member || r.Status != 1 || r.From != sender {
		t.Fatalf("member's receipt %+v", r)
	}
	for _, g := range []common.Hash{outsider, unknown} {
		if rec.Root(g) != types.EmptyRootHash && rec.Root(g) != (common.Hash{}) {
			t.Fatalf("group %x has private state %x", g, rec.Root(g))
		}
	}
	if fm.failures[b64(member)] != 0 {
		t.Fatal("the failing /retrievePrivacyGroup was not retried")
	}
}

// processBlock runs both steps of the hook on block, as InsertBlock does.
func processBlock(p *Processor, x *chain.Executor, ctx context.Context, block *types.Block, hash common.Hash, receipts types.Receipts, post *state.StateDB) error {
	prepared, err := p.Prepare(ctx, block)
	if err != nil {
		return err
	}
	return prepared.ProcessBlock(ctx, &chain.HookBlock{Exec: x, Hash: hash, Receipts: receipts, Post: post})
}
