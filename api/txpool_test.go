package api

import (
	"context"
	"encoding/json"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/testsupport/chaintest"
	"github.com/basaltchain/basalt/txpool"
)

// richState gives every account nonce 0 and a large balance.
type richState struct{}

func (richState) Nonce(common.Address) uint64 { return 0 }
func (richState) Balance(common.Address) *uint256.Int {
	return uint256.MustFromDecimal("1000000000000000000000000")
}

// txPoolEnv is a TXPOOL server on a real pool holding, from key A, a local
// pending transfer (nonce 0) and a local queued one (nonce 2), and from
// key B a remote pending contract creation.
type txPoolEnv struct {
	srv          *rpc.Server
	pool         *txpool.Pool
	a, b         common.Address
	txs          []*types.Transaction // pending, queued, remote creation
	recipient    common.Address
	gasPriceWeis *big.Int
}

func newTxPoolEnv(t testing.TB) *txPoolEnv {
	t.Helper()
	db := chain.NewMemoryDatabase()
	t.Cleanup(func() { db.Close() })
	c := chaintest.Open(t, db)
	cfg := txpool.DefaultConfig()
	pool, err := txpool.New(cfg, c.Chain.Config(), c.Chain.CurrentHeader(), richState{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	keyA, _ := crypto.GenerateKey()
	keyB, _ := crypto.GenerateKey()
	e := &txPoolEnv{pool: pool, a: crypto.PubkeyToAddress(keyA.PublicKey), b: crypto.PubkeyToAddress(keyB.PublicKey),
		recipient: common.HexToAddress("0x00000000000000000000000000000000000b0b01"), gasPriceWeis: big.NewInt(2_000_000_000)}
	signer := types.LatestSigner(c.Chain.Config())
	e.txs = []*types.Transaction{
		types.MustSignNewTx(keyA, signer, &types.LegacyTx{Nonce: 0, To: &e.recipient, Value: big.NewInt(7), Gas: 21000, GasPrice: e.gasPriceWeis}),
		types.MustSignNewTx(keyA, signer, &types.LegacyTx{Nonce: 2, To: &e.recipient, Value: big.NewInt(9), Gas: 30000, GasPrice: e.gasPriceWeis}),
		types.MustSignNewTx(keyB, signer, &types.LegacyTx{Nonce: 0, Value: big.NewInt(0), Gas: 100000, GasPrice: e.gasPriceWeis, Data: []byte{0x60, 0x00}}),
	}
	for _, tx := range e.txs[:2] {
		if err := pool.AddLocal(tx); err != nil {
			t.Fatal(err)
		}
	}
	if errs := pool.AddRemotes(e.txs[2:]); errs[0] != nil {
		t.Fatal(errs[0])
	}
	reg := rpc.NewRegistry()
	if err := Register(reg, Groups(&backend.Backend{Chain: c.Chain, Pool: unjournaled{pool}, Config: backend.Config{NetworkID: 1337}})...); err != nil {
		t.Fatal(err)
	}
	e.srv, err = rpc.NewServer(reg, rpc.Config{APIs: []string{rpctypes.GroupTxPool}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *txPoolEnv) result(t *testing.T, method string, params ...any) json.RawMessage {
	t.Helper()
	res, err := callPeer(t, e.srv, method, params...)
	if err != nil {
		t.Fatalf("%s %v: %v", method, params, err)
	}
	return res
}

func TestTxPoolBesuMethods(t *testing.T) {
	e := newTxPoolEnv(t)
	if got := string(e.result(t, "txpool_besuStatistics")); got != `{"maxSize":4096,"localCount":2,"remoteCount":1}` {
		t.Errorf("txpool_besuStatistics = %s", got)
	}
	// The API documents' txpool_client* names, with this client's name.
	if got := string(e.result(t, "txpool_basaltStatistics")); got != `{"maxSize":4096,"localCount":2,"remoteCount":1}` {
		t.Errorf("txpool_basaltStatistics = %s", got)
	}
	if got, want := string(e.result(t, "txpool_basaltTransactions")), string(e.result(t, "txpool_besuTransactions")); got != want {
		t.Errorf("txpool_basaltTransactions = %s, txpool_besuTransactions %s", got, want)
	}

	var entries []map[string]any
	if err := json.Unmarshal(e.result(t, "txpool_besuTransactions"), &entries); err != nil || len(entries) != 3 {
		t.Fatalf("txpool_besuTransactions: %v %v", entries, err)
	}
	iso := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$`)
	for i, en := range entries {
		if len(en) != 3 || en["hash"] != e.txs[i].Hash().Hex() || en["isReceivedFromLocalSource"] != (i < 2) ||
			!iso.MatchString(en["addedToPoolAt"].(string)) {
			t.Errorf("entry %d = %v", i, en)
		}
	}

	type pendingTx struct {
		Hash        common.Hash     `json:"hash"`
		From        common.Address  `json:"from"`
		Nonce       hexutil.Uint64  `json:"nonce"`
		PublicKey   hexutil.Bytes   `json:"publicKey"`
		Raw         hexutil.Bytes   `json:"raw"`
		BlockHash   json.RawMessage `json:"blockHash"`
		BlockNumber json.RawMessage `json:"blockNumber"`
	}
	pending := func(params ...any) []pendingTx {
		t.Helper()
		var out []pendingTx
		if err := json.Unmarshal(e.result(t, "txpool_besuPendingTransactions", params...), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := pending()
	if len(all) != 3 {
		t.Fatalf("all pending: %+v", all)
	}
	for i, p := range all {
		raw, _ := e.txs[i].MarshalBinary()
		pub, _ := crypto.UnmarshalPubkey(append([]byte{4}, p.PublicKey...))
		if p.Hash != e.txs[i].Hash() || string(p.Raw) != string(raw) || pub == nil ||
			crypto.PubkeyToAddress(*pub) != p.From || p.BlockHash != nil || p.BlockNumber != nil {
			t.Errorf("pending %d = %+v", i, p)
		}
	}
	for _, c := range []struct {
		params []any
		want   []int
	}{
		{[]any{1}, []int{0}},
		{[]any{"0x2"}, []int{0, 1}},
		{[]any{10, map[string]any{"from": map[string]any{"eq": e.a}}}, []int{0, 1}},
		{[]any{10, map[string]any{"from": map[string]any{"eq": e.a}, "nonce": map[string]any{"gt": "0x0"}}}, []int{1}},
		{[]any{10, map[string]any{"to": map[string]any{"action": "contract_creation"}}}, []int{2}},
		{[]any{10, map[string]any{"to": map[string]any{"eq": e.recipient}, "gas": map[string]any{"lt": "0x7530"}}}, []int{0}},
		{[]any{10, map[string]any{"value": map[string]any{"eq": "0x9"}}}, []int{1}},
		{[]any{10, map[string]any{"gasPrice": map[string]any{"gt": "0x1"}}}, []int{0, 1, 2}},
		{[]any{0}, nil},
	} {
		got := pending(c.params...)
		var idx []int
		for _, p := range got {
			for i, tx := range e.txs {
				if tx.Hash() == p.Hash {
					idx = append(idx, i)
				}
			}
		}
		if len(idx) != len(c.want) || (len(idx) > 0 && !equalInts(idx, c.want)) {
			t.Errorf("%v: got %v, want %v", c.params, idx, c.want)
		}
	}
	for _, c := range []struct {
		params []any
		msg    string
	}{
		{[]any{-1}, "Invalid transaction limit params"},
		{[]any{"x"}, "Invalid transaction limit params"},
		{[]any{1, map[string]any{"from": map[string]any{"gt": e.a}}}, "Invalid pending transactions params"},
		{[]any{1, map[string]any{"gas": map[string]any{"action": "contract_creation"}}}, "Invalid pending transactions params"},
		{[]any{1, map[string]any{"nonce": map[string]any{"eq": "12"}}}, "Invalid pending transactions params"},
		{[]any{1, map[string]any{"color": map[string]any{"eq": "0x1"}}}, "Invalid pending transactions params"},
		{[]any{1, "x"}, "Invalid pending transactions params"},
	} {
		_, err := callPeer(t, e.srv, "txpool_besuPendingTransactions", c.params...)
		if e, ok := err.(*rpctypes.Error); !ok || e.Code != -32602 || e.Message != c.msg {
			t.Errorf("%v: %v, want -32602 %s", c.params, err, c.msg)
		}
	}
}

func equalInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestTxPoolGethMethods(t *testing.T) {
	e := newTxPoolEnv(t)
	if got := string(e.result(t, "txpool_status")); got != `{"pending":"0x2","queued":"0x1"}` {
		t.Errorf("txpool_status = %s", got)
	}

	var content struct {
		Pending map[string]map[string]map[string]any
		Queued  map[string]map[string]map[string]any
	}
	if err := json.Unmarshal(e.result(t, "txpool_content"), &content); err != nil {
		t.Fatal(err)
	}
	a, b := e.a.Hex(), e.b.Hex()
	if len(content.Pending) != 2 || len(content.Queued) != 1 ||
		content.Pending[a]["0"]["hash"] != e.txs[0].Hash().Hex() ||
		content.Queued[a]["2"]["hash"] != e.txs[1].Hash().Hex() ||
		content.Pending[b]["0"]["hash"] != e.txs[2].Hash().Hex() {
		t.Fatalf("txpool_content = %+v", content)
	}
	if tx := content.Pending[a]["0"]; tx["blockHash"] != nil || tx["from"] != strings.ToLower(a) || tx["nonce"] != "0x0" {
		t.Errorf("content tx = %v", tx)
	}
	// The spec's PendingTransactionInfo: every block field present, null.
	for _, f := range []string{"blockHash", "blockNumber", "blockTimestamp", "transactionIndex"} {
		if v, ok := content.Queued[a]["2"][f]; !ok || v != nil {
			t.Errorf("content tx %s = %v (present %v)", f, v, ok)
		}
	}

	var from struct {
		Pending map[string]map[string]any
		Queued  map[string]map[string]any
	}
	if err := json.Unmarshal(e.result(t, "txpool_contentFrom", e.a), &from); err != nil {
		t.Fatal(err)
	}
	if len(from.Pending) != 1 || len(from.Queued) != 1 || from.Queued["2"]["hash"] != e.txs[1].Hash().Hex() {
		t.Errorf("txpool_contentFrom = %+v", from)
	}
	if got := string(e.result(t, "txpool_contentFrom", common.Address{})); got != `{"pending":{},"queued":{}}` {
		t.Errorf("txpool_contentFrom of a stranger = %s", got)
	}
	if _, err := callPeer(t, e.srv, "txpool_contentFrom", "0x12"); err == nil || err.(*rpctypes.Error).Code != -32602 {
		t.Errorf("bad address: %v", err)
	}

	var inspect struct{ Pending, Queued map[string]map[string]string }
	if err := json.Unmarshal(e.result(t, "txpool_inspect"), &inspect); err != nil {
		t.Fatal(err)
	}
	rcpt := e.recipient.Hex()
	if got := inspect.Pending[a]["0"]; got != rcpt+": 7 wei + 21000 gas × 2000000000 wei" {
		t.Errorf("inspect pending = %q", got)
	}
	if got := inspect.Queued[a]["2"]; got != rcpt+": 9 wei + 30000 gas × 2000000000 wei" {
		t.Errorf("inspect queued = %q", got)
	}
	if got := inspect.Pending[b]["0"]; got != "contract creation: 0 wei + 100000 gas × 2000000000 wei" {
		t.Errorf("inspect creation = %q", got)
	}
}

func TestIsoInstant(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want string
	}{
		{1571957080618_000_000, "2019-10-24T22:44:40.618Z"},
		{1571957080618_999_999, "2019-10-24T22:44:40.618Z"},
		{1571957080000_000_000, "2019-10-24T22:44:40Z"},
		{1571957080010_000_000, "2019-10-24T22:44:40.010Z"},
	} {
		if got := isoInstant(timeUnixNano(c.ns)); got != c.want {
			t.Errorf("%d: %s, want %s", c.ns, got, c.want)
		}
	}
}

func timeUnixNano(ns int64) time.Time { return time.Unix(0, ns) }

// FuzzTxPoolParams sends arbitrary params to the TXPOOL methods that take
// any: every answer is a result or a parameter error, never an internal
// error from a panic.
func FuzzTxPoolParams(f *testing.F) {
	for _, s := range []string{`[]`, `[1]`, `["0x2",{"from":{"eq":"0x00000000000000000000000000000000000000a1"}}]`,
		`[3,{"to":{"action":"contract_creation"},"gas":{"lt":"0x1"}}]`, `[1,{"nonce":{"gt":"0x"}}]`, `[null,null]`, `["0x12"]`} {
		f.Add(s)
	}
	e := newTxPoolEnv(f)
	f.Fuzz(func(t *testing.T, params string) {
		for _, m := range []string{"txpool_besuPendingTransactions", "txpool_contentFrom", "txpool_basaltStatistics", "txpool_basaltTransactions", "txpool_content"} {
			resp, _ := e.srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":`+params+`}`))
			if strings.Contains(string(resp), `"code":-32603`) {
				t.Fatalf("%s %s: %s", m, params, resp)
			}
		}
	})
}

// unjournaled submits to the pool alone (a node without a journal).
type unjournaled struct{ *txpool.Pool }

func (p unjournaled) Submit(_ context.Context, tx *types.Transaction) error { return p.AddLocal(tx) }
