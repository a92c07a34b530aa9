package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/event"
	"github.com/gorilla/websocket"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/testsupport/chaintest"
	"github.com/basaltchain/basalt/txpool"
)

var (
	logAddrA = common.HexToAddress("0x00000000000000000000000000000000000000a1")
	logAddrB = common.HexToAddress("0x00000000000000000000000000000000000000b2")
	topicX   = common.HexToHash("0x1111111111111111111111111111111111111111111111111111111111111111")
	topicY   = common.HexToHash("0x2222222222222222222222222222222222222222222222222222222222222222")
)

type txFeed struct{ feed event.Feed }

func (p *txFeed) SubscribeNewTxs(ch chan<- txpool.NewTxsEvent) event.Subscription {
	return p.feed.Subscribe(ch)
}

type filterEnv struct {
	c    *chaintest.Chain
	sys  *filters.System
	srv  *rpc.Server
	pool *txFeed
}

// newFilterEnv serves the ETH group over a test chain: block 1 has a log by
// A (topics X, Y), block 2 one by B (topic Y) and one by A (topic X).
func newFilterEnv(t *testing.T, maxRange int64) *filterEnv {
	t.Helper()
	db := chain.NewMemoryDatabase()
	t.Cleanup(func() { db.Close() })
	e := &filterEnv{c: chaintest.Open(t, db), pool: new(txFeed)}
	e.c.Append([]*types.Log{chaintest.Log(logAddrA, []byte{1}, topicX, topicY)})
	e.c.Append([]*types.Log{chaintest.Log(logAddrB, []byte{2}, topicY)}, []*types.Log{chaintest.Log(logAddrA, nil, topicX)})
	e.sys = filters.New(e.c.Chain, e.pool, filters.Config{MaxLogsRange: maxRange})
	e.sys.Start()
	t.Cleanup(e.sys.Stop)
	reg := rpc.NewRegistry()
	if err := Register(reg, Groups(&backend.Backend{Chain: e.c.Chain, Filters: e.sys, Config: backend.Config{NetworkID: 1337}})...); err != nil {
		t.Fatal(err)
	}
	srv, err := rpc.NewServer(reg, rpc.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	return e
}

func (e *filterEnv) call(t *testing.T, method string, params string) string {
	t.Helper()
	resp, _ := e.srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
	return string(resp)
}

// result decodes the result of a call, failing on an error response.
func (e *filterEnv) result(t *testing.T, method, params string, v any) {
	t.Helper()
	resp := e.call(t, method, params)
	var out struct {
		Result json.RawMessage
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(resp), &out); err != nil || out.Error != nil {
		t.Fatalf("%s %s: %s", method, params, resp)
	}
	if err := json.Unmarshal(out.Result, v); err != nil {
		t.Fatalf("%s: decode %s: %v", method, out.Result, err)
	}
}

func errorOf(code int, msg string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"error":{"code":%d,"message":%q}}`, code, msg)
}

func TestGetLogsJSON(t *testing.T) {
	e := newFilterEnv(t, 100)
	h1 := e.c.GetCanonicalHash(1)
	var logs []map[string]any
	e.result(t, "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"latest","address":"`+logAddrA.Hex()+`"}]`, &logs)
	if len(logs) != 2 {
		t.Fatalf("logs of A: %v", logs)
	}
	want := map[string]any{
		"address": strings.ToLower(logAddrA.Hex()), "topics": []any{topicX.Hex(), topicY.Hex()}, "data": "0x01",
		"blockNumber": "0x1", "blockHash": h1.Hex(), "blockTimestamp": "0x1", "logIndex": "0x0",
		"transactionIndex": "0x0", "removed": false,
		"transactionHash": e.c.GetBlockByNumber(1).Transactions()[0].Hash().Hex(),
	}
	if fmt.Sprint(logs[0]) != fmt.Sprint(want) {
		t.Fatalf("log object\n got %v\nwant %v", logs[0], want)
	}
	if logs[1]["logIndex"] != "0x1" || logs[1]["transactionIndex"] != "0x1" || logs[1]["data"] != "0x" {
		t.Fatalf("second log %v", logs[1])
	}

	count := func(params string) int {
		var ls []json.RawMessage
		e.result(t, "eth_getLogs", params, &ls)
		return len(ls)
	}
	cases := []struct {
		params string
		want   int
	}{
		{`[{}]`, 2}, // latest..latest: block 2
		{`[{"fromBlock":"earliest"}]`, 3},
		{`[{"fromBlock":"0x1","address":[]}]`, 3},
		{`[{"fromBlock":"0x1","address":["` + logAddrB.Hex() + `","` + logAddrA.Hex() + `"]}]`, 3},
		{`[{"fromBlock":"0x1","topics":["` + topicY.Hex() + `"]}]`, 1},
		{`[{"fromBlock":"0x1","topics":"` + topicX.Hex() + `"}]`, 2},
		{`[{"fromBlock":"0x1","topics":[null,"` + topicY.Hex() + `"]}]`, 1},
		{`[{"fromBlock":"0x1","topics":[["` + topicY.Hex() + `","` + topicX.Hex() + `"]]}]`, 3},
		{`[{"fromBlock":"0x1","topics":[["` + topicY.Hex() + `",null]]}]`, 3},
		{`[{"fromBlock":"0x1","topics":[[],[null]]}]`, 1},
		{`[{"fromBlock":"0x1","topics":[null,null,null]}]`, 0},
		{`[{"fromBlock":"0x1","topics":[]}]`, 3},
		{`[{"fromBlock":"1","toBlock":"0x1"}]`, 1},
		{`[{"fromBlock":"0x2","toBlock":"0x50"}]`, 2},
		{`[{"fromBlock":"0x5","toBlock":"latest"}]`, 0},
		{`[{"blockHash":"` + h1.Hex() + `"}]`, 1},
		{`[{"blockhash":"` + h1.Hex() + `","address":"` + logAddrB.Hex() + `"}]`, 0},
	}
	for _, c := range cases {
		if got := count(c.params); got != c.want {
			t.Errorf("eth_getLogs %s: %d logs, want %d", c.params, got, c.want)
		}
	}
}

func TestFilterErrors(t *testing.T) {
	e := newFilterEnv(t, 100)
	invalidFilter := errorOf(-32602, "Invalid filter params")
	cases := []struct{ method, params, want string }{
		// Besu's fixtures (../shared/conformance/besu/jsonrpc).
		{"eth_getLogs", `[{"fromBlock":"0x20","toBlock":"0x17"}]`, errorOf(-32602, "Invalid params")},
		{"eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x1","blockhash":"` + e.c.GetCanonicalHash(1).Hex() + `"}]`, invalidFilter},
		{"eth_getLogs", `[{"blockhash":"0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]`, errorOf(-32000, "Block not found")},
		{"eth_newFilter", `[{"address":["foo"]}]`, invalidFilter},
		{"eth_getFilterChanges", `["0x8000000000000000"]`, errorOf(-32000, "Filter not found")},
		{"eth_getFilterChanges", `["0x00FFFFFFFFFFFFFFFF"]`, errorOf(-32000, "Filter not found")},
		{"eth_uninstallFilter", `["0x61"]`, `{"jsonrpc":"2.0","id":1,"result":false}`},
		// Bad input.
		{"eth_getLogs", `[]`, invalidFilter},
		{"eth_getLogs", `[null]`, invalidFilter},
		{"eth_getLogs", `["latest"]`, invalidFilter},
		{"eth_getLogs", `[{"fromBlock":"0x"}]`, invalidFilter},
		{"eth_getLogs", `[{"fromBlock":"-1"}]`, invalidFilter},
		{"eth_getLogs", `[{"fromBlock":"0xzz"}]`, invalidFilter},
		{"eth_getLogs", `[{"fromBlock":{"a":1}}]`, invalidFilter},
		{"eth_getLogs", `[{"address":"0x` + strings.Repeat("1", 41) + `"}]`, invalidFilter},
		{"eth_getLogs", `[{"address":17}]`, invalidFilter},
		{"eth_getLogs", `[{"topics":[["0x12"],"0xgg"]}]`, invalidFilter},
		{"eth_getLogs", `[{"topics":[[["` + topicX.Hex() + `"]]]}]`, invalidFilter},
		{"eth_getLogs", `[{"topics":[null,null,null,null,null]}]`, errorOf(-32602, "Invalid filter params (more than 4 topic positions)")},
		{"eth_getLogs", `[{"fromBlock":"0x0","toBlock":"0x65"}]`, errorOf(-32005, "Requested range exceeds maximum RPC range limit")},
		{"eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0xffffffffffffff"}]`, errorOf(-32005, "Requested range exceeds maximum RPC range limit")},
		{"eth_getFilterChanges", `[]`, invalidFilter},
		{"eth_getFilterChanges", `[{}]`, invalidFilter},
		{"eth_getFilterChanges", `[97]`, errorOf(-32000, "Filter not found")},
		{"eth_getFilterLogs", `["0x1"]`, errorOf(-32000, "Logs filter not found")},
		{"eth_uninstallFilter", `["not an id"]`, `{"jsonrpc":"2.0","id":1,"result":false}`},
		{"eth_subscribe", `["newHeads"]`, errorOf(-32604, "Method not enabled")},
		{"eth_unsubscribe", `["0x1"]`, errorOf(-32604, "Method not enabled")},
	}
	for _, c := range cases {
		if got := e.call(t, c.method, c.params); got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.method, c.params, got, c.want)
		}
	}
	// eth_getFilterLogs of a block filter: Besu's "Logs filter not found".
	var id string
	e.result(t, "eth_newBlockFilter", `[]`, &id)
	if got := e.call(t, "eth_getFilterLogs", `["`+id+`"]`); got != errorOf(-32000, "Logs filter not found") {
		t.Errorf("getFilterLogs of a block filter: %s", got)
	}
}

func TestFiltersOverJSONRPC(t *testing.T) {
	e := newFilterEnv(t, 0)
	var logFilter, blockFilter, txFilter, allFilter string
	e.result(t, "eth_newFilter", `[{"address":"`+logAddrA.Hex()+`"}]`, &logFilter)
	e.result(t, "eth_newFilter", `[{"fromBlock":"earliest","toBlock":"latest","topics":[["`+topicX.Hex()+`","`+topicY.Hex()+`"]]}]`, &allFilter)
	e.result(t, "eth_newBlockFilter", `[]`, &blockFilter)
	e.result(t, "eth_newPendingTransactionFilter", `[]`, &txFilter)
	for _, id := range []string{logFilter, blockFilter, txFilter} {
		if !strings.HasPrefix(id, "0x") || len(id) > 34 || strings.HasPrefix(id, "0x0") {
			t.Fatalf("filter id %q", id)
		}
	}
	b3 := e.c.Append([]*types.Log{chaintest.Log(logAddrA, []byte{3}, topicY)})
	tx := types.NewTx(&types.LegacyTx{Nonce: 77})
	e.pool.feed.Send(txpool.NewTxsEvent{Txs: []*types.Transaction{tx}})

	var hashes []common.Hash
	waitUntil(t, func() bool {
		e.result(t, "eth_getFilterChanges", `["`+blockFilter+`"]`, &hashes)
		return len(hashes) > 0
	})
	if len(hashes) != 1 || hashes[0] != e.c.Hash(b3.Header()) {
		t.Fatalf("block filter changes %v", hashes)
	}
	waitUntil(t, func() bool { e.result(t, "eth_getFilterChanges", `["`+txFilter+`"]`, &hashes); return len(hashes) > 0 })
	if hashes[0] != tx.Hash() {
		t.Fatalf("pending filter changes %v", hashes)
	}
	var logs []LogJSON
	e.result(t, "eth_getFilterChanges", `["`+logFilter+`"]`, &logs)
	if len(logs) != 1 || logs[0].BlockNumber != 3 || logs[0].Removed {
		t.Fatalf("log filter changes %+v", logs)
	}
	e.result(t, "eth_getFilterChanges", `["`+logFilter+`"]`, &logs)
	if len(logs) != 0 {
		t.Fatalf("second poll %+v", logs)
	}
	e.result(t, "eth_getFilterLogs", `["`+allFilter+`"]`, &logs)
	if len(logs) != 4 {
		t.Fatalf("filter logs %+v", logs)
	}
	var ok bool
	e.result(t, "eth_uninstallFilter", `["`+logFilter+`"]`, &ok)
	if !ok || e.call(t, "eth_getFilterChanges", `["`+logFilter+`"]`) != errorOf(-32000, "Filter not found") {
		t.Fatal("uninstall")
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type wsClient struct {
	t *testing.T
	c *websocket.Conn
}

func dialFilterWS(t *testing.T, e *filterEnv) (*wsClient, string) {
	t.Helper()
	h := rpc.NewWSHandler(e.srv, rpc.WSConfig{})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close() })
	url := "ws" + strings.TrimPrefix(ts.URL, "http")
	return newWSClient(t, url), url
}

func newWSClient(t *testing.T, url string) *wsClient {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &wsClient{t, c}
}

func (w *wsClient) send(id int, method, params string) {
	w.t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	if err := w.c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		w.t.Fatal(err)
	}
}

// next reads one message.
func (w *wsClient) next() map[string]json.RawMessage {
	w.t.Helper()
	w.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, msg, err := w.c.ReadMessage()
	if err != nil {
		w.t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		w.t.Fatalf("%s: %v", msg, err)
	}
	return m
}

func (w *wsClient) subscribe(id int, params string) string {
	w.t.Helper()
	w.send(id, "eth_subscribe", params)
	m := w.next()
	var sub string
	if err := json.Unmarshal(m["result"], &sub); err != nil {
		w.t.Fatalf("eth_subscribe %s: %s", params, m["error"])
	}
	return sub
}

type notificationMsg struct {
	Method string `json:"method"`
	Params struct {
		Subscription string          `json:"subscription"`
		Result       json.RawMessage `json:"result"`
	} `json:"params"`
}

func (w *wsClient) notification() notificationMsg {
	w.t.Helper()
	m := w.next()
	raw, _ := json.Marshal(m)
	var n notificationMsg
	if err := json.Unmarshal(raw, &n); err != nil || n.Method != "eth_subscription" || m["id"] != nil {
		w.t.Fatalf("not a notification: %s", raw)
	}
	return n
}

func TestSubscriptions(t *testing.T) {
	e := newFilterEnv(t, 0)
	w, url := dialFilterWS(t, e)
	heads := w.subscribe(1, `["newHeads"]`)
	logs := w.subscribe(2, `["logs",{"address":"`+logAddrA.Hex()+`","topics":[null,"`+topicY.Hex()+`"]}]`)
	pending := w.subscribe(3, `["newPendingTransactions"]`)
	w.subscribe(4, `["syncing"]`)
	if heads == logs || logs == pending {
		t.Fatalf("ids %s %s %s", heads, logs, pending)
	}

	b3 := e.c.Append([]*types.Log{chaintest.Log(logAddrA, []byte{9}, topicX, topicY), chaintest.Log(logAddrA, nil, topicX)})
	n := w.notification()
	var block map[string]any
	json.Unmarshal(n.Params.Result, &block)
	if n.Params.Subscription != heads || block["hash"] != e.c.Hash(b3.Header()).Hex() || block["number"] != "0x3" {
		t.Fatalf("newHeads notification %s %v", n.Params.Subscription, block)
	}
	if txs, _ := block["transactions"].([]any); len(txs) != 1 || txs[0] != b3.Transactions()[0].Hash().Hex() {
		t.Fatalf("newHeads transactions %v", block["transactions"])
	}
	n = w.notification()
	var lg LogJSON
	json.Unmarshal(n.Params.Result, &lg)
	if n.Params.Subscription != logs || lg.BlockNumber != 3 || len(lg.Topics) != 2 || lg.Removed {
		t.Fatalf("logs notification %s %+v", n.Params.Subscription, lg)
	}

	tx := types.NewTx(&types.LegacyTx{Nonce: 5})
	e.pool.feed.Send(txpool.NewTxsEvent{Txs: []*types.Transaction{tx}})
	n = w.notification()
	if n.Params.Subscription != pending || string(n.Params.Result) != `"`+tx.Hash().Hex()+`"` {
		t.Fatalf("pending notification %s %s", n.Params.Subscription, n.Params.Result)
	}

	// A reorg: the log of block 3 comes back removed.
	b, rs := e.c.Build(e.c.GetHeaderByNumber(2), 5, 'r')
	e.c.Insert(b, rs, false)
	for range 2 {
		n = w.notification()
		if n.Params.Subscription == logs {
			json.Unmarshal(n.Params.Result, &lg)
			if !lg.Removed || lg.BlockHash != e.c.Hash(b3.Header()) {
				t.Fatalf("removed log %+v", lg)
			}
		} else if n.Params.Subscription != heads {
			t.Fatalf("unexpected notification %+v", n)
		}
	}

	// Unsubscribing: only one's own subscriptions.
	other := newWSClient(t, url)
	other.send(1, "eth_unsubscribe", `["`+heads+`"]`)
	if m := other.next(); string(m["error"]) != `{"code":-32000,"message":"Subscription not found"}` {
		t.Fatalf("unsubscribe another connection's: %s", m["error"])
	}
	w.send(9, "eth_unsubscribe", `["`+heads+`"]`)
	if m := w.next(); string(m["result"]) != "true" {
		t.Fatalf("unsubscribe: %v", m)
	}
	w.send(10, "eth_unsubscribe", `["`+heads+`"]`)
	if m := w.next(); string(m["error"]) != `{"code":-32000,"message":"Subscription not found"}` {
		t.Fatalf("unsubscribe twice: %s", m["error"])
	}
	for _, bad := range []string{`[]`, `["nope"]`, `[42]`, `["logs",{"address":"x"}]`, `["newHeads",{"includeTransactions":"yes"}]`} {
		w.send(11, "eth_subscribe", bad)
		if m := w.next(); string(m["error"]) != `{"code":-32602,"message":"Invalid subscription params"}` {
			t.Errorf("eth_subscribe %s: %s", bad, m["error"])
		}
	}

	// Closing the connection ends its subscriptions.
	before := e.sys.SubscriptionCount()
	w.c.Close()
	waitUntil(t, func() bool { return e.sys.SubscriptionCount() == before-3 })
}

func TestSubscriptionLimitPerConnection(t *testing.T) {
	e := newFilterEnv(t, 0)
	w, _ := dialFilterWS(t, e)
	batch := "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]},`, MaxSubscriptionsPerConnection)
	batch = strings.TrimSuffix(batch, ",") + "]"
	if err := w.c.WriteMessage(websocket.TextMessage, []byte(batch)); err != nil {
		t.Fatal(err)
	}
	w.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, msg, err := w.c.ReadMessage(); err != nil || strings.Contains(string(msg), "error") {
		t.Fatalf("%d subscriptions: %.300s %v", MaxSubscriptionsPerConnection, msg, err)
	}
	w.send(2, "eth_subscribe", `["logs"]`)
	if m := w.next(); string(m["error"]) != `{"code":-32005,"message":"Maximum number of active subscriptions exceeded"}` {
		t.Fatalf("one more: %s", m["error"])
	}
}

func FuzzFilterArgs(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"fromBlock":"0x17","toBlock":"latest","address":["0x6295ee1b4f6dd65047762f924ecd367c17eabf8f"]}`,
		`{"address":"0x6295ee1b4f6dd65047762f924ecd367c17eabf8f","topics":[null,["0x01",null],"0x02"]}`,
		`{"blockhash":"0x3c419f39b340a4c35cc27b8f7880b779dc1abb9814ad13a2a5a55b885cc8ec2d"}`,
		`{"fromBlock":"0x20","toBlock":"0x17"}`, `{"topics":"0x01"}`, `{"address":["foo"]}`, `[]`, `null`, `"x"`,
		`{"fromBlock":"-0x1"}`, `{"topics":[[[]]]}`, `{"address":[1,2]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var args FilterArgs
		if err := args.UnmarshalJSON(data); err != nil {
			if _, ok := err.(*rpctypes.Error); !ok {
				t.Fatalf("error %v is not a JSON-RPC error", err)
			}
			return
		}
		if args.BlockHash != nil && (args.FromBlock != nil || args.ToBlock != nil) {
			t.Fatal("block hash with a range accepted")
		}
		if _, err := args.criteria(); err == nil {
			bound(args.FromBlock)
			bound(args.ToBlock)
		}
	})
}

func FuzzFilterID(f *testing.F) {
	for _, s := range []string{`"0x1"`, `"0x00FFFFFFFFFFFFFFFF"`, `97`, `null`, `{}`, `"0X0abc"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var id FilterID
		if err := id.UnmarshalJSON(data); err != nil {
			if _, ok := err.(*rpctypes.Error); !ok {
				t.Fatalf("error %v is not a JSON-RPC error", err)
			}
		}
	})
}

func TestFilterLimitError(t *testing.T) {
	db := chain.NewMemoryDatabase()
	t.Cleanup(func() { db.Close() })
	c := chaintest.Open(t, db)
	sys := filters.New(c.Chain, nil, filters.Config{MaxFilters: 2})
	f := &Filters{b: &backend.Backend{Chain: c.Chain, Filters: sys}, sys: sys}
	for range 2 {
		if _, err := f.NewBlockFilter(); err != nil {
			t.Fatal(err)
		}
	}
	// The method answers the filter system's error; JSON-RPC maps it.
	_, err := f.NewPendingTransactionFilter()
	if e := jsonrpcError(err); e == nil || e.Code != -32005 || e.Message != "Maximum number of active filters exceeded" {
		t.Fatalf("third filter: %v", err)
	}
	if _, err := f.NewFilter(FilterArgs{}); err == nil {
		t.Fatal("log filter over the limit")
	}
}
