package privacy

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy/enclave"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/privacy/privtx"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// heldManager answers /receive with payload only once release is closed,
// after saying on asked that a request waits.
type heldManager struct {
	payload []byte
	asked   chan struct{}
	release chan struct{}
}

func (m *heldManager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if m.asked != nil {
		select {
		case m.asked <- struct{}{}:
		default:
		}
		select {
		case <-m.release:
		case <-r.Context().Done():
			return
		}
	}
	group := base64.StdEncoding.EncodeToString(testGroup[:])
	json.NewEncoder(w).Encode(map[string]string{"payload": enclave.EncodePayload(m.payload), "privacyGroupId": group,
		"senderKey": base64.StdEncoding.EncodeToString(make([]byte, 32))})
}

// TestInsertWaitsForManagerOutsideLock: while the manager holds its answer
// to /receive for a block's marker, the chain's insert lock is free —
// another block is inserted and Sync returns — and once the manager
// answers, the waiting block is stored with the private state a manager
// that answers at once gives.
func TestInsertWaitsForManagerOutsideLock(t *testing.T) {
	key, _ := crypto.GenerateKey()
	deploy := &privtx.Transaction{Nonce: 0, Gas: 1, Data: hexutil.MustDecode("0x602280600b6000396000f336600f5760005460005260206000f35b60003580600055600052602a60206000a100"),
		PrivateFrom: make([]byte, 32), PrivateFor: [][]byte{}, Restriction: privtx.Restricted}
	if err := deploy.Sign(big.NewInt(1337), func(h []byte) ([]byte, error) { return crypto.Sign(h, key) }); err != nil {
		t.Fatal(err)
	}
	payload, _ := deploy.MarshalBinary()
	precompile := common.HexToAddress("0x7e")
	mk, _ := crypto.GenerateKey()
	marker, _ := types.SignTx(types.NewTx(&types.LegacyTx{Gas: 30000, GasPrice: new(big.Int), To: &precompile, Data: common.Hash{1}.Bytes()}),
		types.HomesteadSigner{}, mk)

	// open returns a chain whose hook asks m.
	open := func(m *heldManager) *chaintest.Chain {
		srv := httptest.NewServer(m)
		t.Cleanup(srv.Close)
		client, _ := enclave.New(enclave.Config{URL: srv.URL})
		db := chain.NewMemoryDatabase()
		p := NewProcessor(privstate.Open(db), client, precompile, false, slog.New(slog.DiscardHandler))
		t.Cleanup(p.Stop)
		return chaintest.OpenWith(t, db, chain.WithBlockHook(p))
	}
	// block builds a block of difficulty 1 on c's head with txs.
	block := func(c *chaintest.Chain, extra byte, txs ...*types.Transaction) (*types.Block, types.Receipts) {
		parent := c.CurrentHeader()
		var receipts types.Receipts
		for range txs {
			receipts = append(receipts, &types.Receipt{Status: types.ReceiptStatusSuccessful})
		}
		header := &types.Header{ParentHash: c.CurrentHash(), Number: new(big.Int).Add(parent.Number, common.Big1), GasLimit: parent.GasLimit,
			Difficulty: big.NewInt(1), Time: parent.Time + 1, Root: parent.Root, BaseFee: new(big.Int), Extra: []byte{extra}}
		return types.NewBlock(header, &types.Body{Transactions: txs}, receipts, trie.NewStackTrie(nil)), receipts
	}
	insert := func(c *chaintest.Chain, b *types.Block, receipts types.Receipts) (chain.InsertResult, error) {
		st, err := c.StateAt(c.GetHeaderByHash(b.ParentHash()).Root)
		if err != nil {
			t.Fatal(err)
		}
		return c.InsertBlock(context.Background(), b, chain.InsertOptions{Executed: &chain.Executed{State: st, Receipts: receipts}})
	}
	privateRoot := func(c *chaintest.Chain, hash common.Hash) common.Hash {
		rec, err := privstate.Open(c.Database()).Record(hash)
		if err != nil || len(rec.Receipts) != 1 || rec.Receipts[0].Status != 1 {
			t.Fatalf("record of %x: %+v %v", hash, rec, err)
		}
		return rec.Root(testGroup)
	}

	// What a manager answering at once gives.
	quick := open(&heldManager{payload: payload})
	qb, qr := block(quick, 0, marker)
	res, err := insert(quick, qb, qr)
	if err != nil {
		t.Fatal(err)
	}
	want := privateRoot(quick, res.Hash)

	held := &heldManager{payload: payload, asked: make(chan struct{}, 1), release: make(chan struct{})}
	c := open(held)
	b, r := block(c, 0, marker)
	sibling, sr := block(c, 1)
	done := make(chan error, 1)
	var got chain.InsertResult
	go func() {
		var err error
		got, err = insert(c, b, r)
		done <- err
	}()
	select {
	case <-held.asked:
	case err := <-done:
		t.Fatalf("insert returned before the manager answered: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the manager was never asked")
	}
	// The manager holds its answer: calls that take the insert lock go on.
	// (Were the lock held, these would wait for the release below, which
	// never comes: the minute is a bound on a hang, not a measurement.)
	locked := make(chan error, 1)
	go func() {
		if _, err := insert(c, sibling, sr); err != nil {
			locked <- err
			return
		}
		locked <- c.Sync()
	}()
	select {
	case err := <-locked:
		if err != nil {
			t.Fatalf("sibling insert or Sync while the manager waits: %v", err)
		}
	case <-time.After(time.Minute):
		close(held.release)
		t.Fatal("the insert lock is held while the manager is waited for")
	}
	select {
	case err := <-done:
		t.Fatalf("the marker's block was stored before the manager answered: %v", err)
	default:
	}
	close(held.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.Hash != res.Hash {
		t.Fatalf("block hash %x, want %x", got.Hash, res.Hash)
	}
	if root := privateRoot(c, got.Hash); root != want || root == (common.Hash{}) {
		t.Fatalf("private state root %x after the wait, want %x", root, want)
	}
}
