package signer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/signer/downstream"
	"github.com/basaltchain/basalt/signer/keys"
)

// fakeNode is a downstream node for the signer's tests: a tiny pool with
// Besu's nonce errors, a record of every request, and hooks to misbehave.
type fakeNode struct {
	t       testing.TB
	chainID *big.Int
	srv     *httptest.Server

	mu       sync.Mutex
	requests []recorded
	nonces   map[common.Address]uint64          // account nonce (mined)
	pool     map[common.Address]map[uint64]bool // pooled nonces
	hashes   map[common.Hash]bool
	raws     [][]byte // every eth_/eea_sendRawTransaction payload
	private  uint64   // answer to priv_get*TransactionCount

	// Fee suggestions: the latest block's baseFeePerGas (nil: the block
	// has none, as before London), eth_gasPrice and
	// eth_maxPriorityFeePerGas.
	baseFee  *big.Int
	gasPrice *big.Int
	tip      *big.Int

	// hook, when set, may answer a request itself (return true).
	hook func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool
	// instant accepts raw transactions without decoding them (benchmark);
	// the pending count of every account is then the number accepted.
	instant  bool
	accepted uint64
}

type recorded struct {
	Path   string
	Method string // JSON-RPC method, or "" for a batch or non-JSON
	Header http.Header
	Body   []byte
}

func newFakeNode(t testing.TB) *fakeNode {
	n := &fakeNode{
		t: t, chainID: big.NewInt(1337),
		nonces: map[common.Address]uint64{},
		pool:   map[common.Address]map[uint64]bool{},
		hashes: map[common.Hash]bool{},
		// A dev network as it was: London with a zero base fee, and a
		// minimum gas price of 1000 wei.
		baseFee:  new(big.Int),
		gasPrice: big.NewInt(1000),
		tip:      big.NewInt(1000),
	}
	n.srv = httptest.NewServer(n)
	t.Cleanup(n.srv.Close)
	return n
}

// client returns a downstream client for the node.
func (n *fakeNode) client(timeout time.Duration) *downstream.Client {
	u, _ := url.Parse(n.srv.URL)
	port, _ := strconv.Atoi(u.Port())
	return downstream.New(downstream.Config{Host: u.Hostname(), Port: port, Path: "/", Timeout: timeout})
}

// setFees sets the fee suggestions (see the fields).
func (n *fakeNode) setFees(baseFee, gasPrice, tip *big.Int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.baseFee, n.gasPrice, n.tip = baseFee, gasPrice, tip
}

func (n *fakeNode) methods() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, r := range n.requests {
		out = append(out, r.Method)
	}
	return out
}

// setHook installs (or, with nil, removes) the request hook.
func (n *fakeNode) setHook(h func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.hook = h
}

// recorded returns the requests received so far.
func (n *fakeNode) recorded() []recorded {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]recorded(nil), n.requests...)
}

func (n *fakeNode) count(method string) int {
	c := 0
	for _, m := range n.methods() {
		if m == method {
			c++
		}
	}
	return c
}

func (n *fakeNode) lastRaw() []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.raws) == 0 {
		return nil
	}
	return n.raws[len(n.raws)-1]
}

func (n *fakeNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var env struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &env)
	if !n.instant {
		n.mu.Lock()
		n.requests = append(n.requests, recorded{Path: r.URL.Path, Method: env.Method, Header: r.Header.Clone(), Body: body})
		n.mu.Unlock()
	}
	n.mu.Lock()
	hook := n.hook
	n.mu.Unlock()
	if hook != nil && hook(w, r, env.Method, body) {
		return
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		n.batch(w, trimmed)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		w.Header().Set("X-Fake", "other")
		w.WriteHeader(http.StatusTeapot)
		fmt.Fprintf(w, "%s %s?%s", r.Method, r.URL.Path, r.URL.RawQuery)
		return
	}
	id := env.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "http://node.example")
	w.Header().Set("X-Node", "fake")
	_, _ = w.Write(n.answer(id, env.Method, env.Params))
}

func (n *fakeNode) batch(w http.ResponseWriter, body []byte) {
	var elems []json.RawMessage
	if json.Unmarshal(body, &elems) != nil || len(elems) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`))
		return
	}
	var out [][]byte
	for _, el := range elems {
		var env struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		if json.Unmarshal(el, &env) != nil {
			out = append(out, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`))
			continue
		}
		if env.ID == nil {
			continue // notification
		}
		out = append(out, n.answer(env.ID, env.Method, env.Params))
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(append([]byte("["), bytes.Join(out, []byte(","))...), ']'))
}

func result(id json.RawMessage, v any) []byte {
	b, _ := json.Marshal(v)
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, b))
}

func rpcErr(id json.RawMessage, code int, msg string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, msg))
}

func (n *fakeNode) answer(id json.RawMessage, method string, params []json.RawMessage) []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch method {
	case "eth_blockNumber":
		return result(id, "0x10")
	case "eth_chainId":
		return result(id, hexutil.EncodeBig(n.chainID))
	case "eth_gasPrice":
		return result(id, hexutil.EncodeBig(n.gasPrice))
	case "eth_maxPriorityFeePerGas":
		return result(id, hexutil.EncodeBig(n.tip))
	case "eth_getBlockByNumber":
		if len(params) != 2 || string(params[0]) != `"latest"` || string(params[1]) != "false" {
			return rpcErr(id, -32602, "Invalid params")
		}
		block := map[string]any{"number": "0x10", "gasLimit": "0x1c9c380"}
		if n.baseFee != nil {
			block["baseFeePerGas"] = hexutil.EncodeBig(n.baseFee)
		}
		return result(id, block)
	case "eth_getTransactionCount":
		var a common.Address
		if len(params) != 2 || json.Unmarshal(params[0], &a) != nil || string(params[1]) != `"pending"` {
			return rpcErr(id, -32602, "Invalid params")
		}
		if n.instant {
			return result(id, hexutil.Uint64(n.accepted))
		}
		return result(id, hexutil.Uint64(n.pendingLocked(a)))
	case "priv_getTransactionCount", "priv_getEeaTransactionCount":
		return result(id, hexutil.Uint64(n.private))
	case "eea_sendRawTransaction":
		var raw hexutil.Bytes
		if len(params) != 1 || json.Unmarshal(params[0], &raw) != nil {
			return rpcErr(id, -32602, "Invalid params")
		}
		n.raws = append(n.raws, raw)
		return result(id, crypto.Keccak256Hash(raw))
	case "eth_sendRawTransaction":
		var raw hexutil.Bytes
		if len(params) != 1 || json.Unmarshal(params[0], &raw) != nil {
			return rpcErr(id, -32602, "Invalid params")
		}
		if n.instant {
			n.accepted++
			return result(id, crypto.Keccak256Hash(raw))
		}
		n.raws = append(n.raws, raw)
		return n.addLocked(id, raw)
	}
	return rpcErr(id, -32601, "Method not found")
}

func (n *fakeNode) pendingLocked(a common.Address) uint64 {
	p := n.nonces[a]
	for n.pool[a][p] {
		p++
	}
	return p
}

func (n *fakeNode) addLocked(id json.RawMessage, raw []byte) []byte {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return rpcErr(id, -32602, "Invalid params")
	}
	if tx.ChainId().Cmp(n.chainID) != 0 {
		return rpcErr(id, -32000, "Wrong chainId")
	}
	from, err := types.Sender(types.LatestSignerForChainID(n.chainID), tx)
	if err != nil {
		return rpcErr(id, -32002, "Invalid signature")
	}
	if n.hashes[tx.Hash()] {
		return rpcErr(id, -32000, "Known transaction")
	}
	if tx.Nonce() < n.nonces[from] {
		return rpcErr(id, -32001, "Nonce too low (account nonce is higher)")
	}
	if n.pool[from] == nil {
		n.pool[from] = map[uint64]bool{}
	}
	if n.pool[from][tx.Nonce()] {
		return rpcErr(id, -32000, "Replacement transaction underpriced")
	}
	n.pool[from][tx.Nonce()] = true
	n.hashes[tx.Hash()] = true
	return result(id, tx.Hash())
}

// pooled returns the nonces in the pool for a.
func (n *fakeNode) pooled(a common.Address) map[uint64]bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[uint64]bool{}
	for k := range n.pool[a] {
		out[k] = true
	}
	return out
}

// Test keys: the dev network's first two accounts.
var (
	devKey1, _ = keys.ParseHexKey("8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63")
	devKey2, _ = keys.ParseHexKey("c87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3")
	dev1       = devKey1.Address()
	dev2       = devKey2.Address()
)

// twoKeys is a store of devKey1 and devKey2.
type twoKeys struct{}

func (twoKeys) Accounts() []common.Address {
	a := []common.Address{dev1, dev2}
	if strings.ToLower(dev2.Hex()) < strings.ToLower(dev1.Hex()) {
		a[0], a[1] = a[1], a[0]
	}
	return a
}

func (twoKeys) Key(a common.Address) (keys.Key, bool) {
	switch a {
	case dev1:
		return devKey1, true
	case dev2:
		return devKey2, true
	}
	return nil, false
}

// signerFor starts a signer in front of node.
func signerFor(t testing.TB, node *fakeNode, mutate ...func(*Config)) *httptest.Server {
	t.Helper()
	cfg := Config{ChainID: big.NewInt(1337), Keys: twoKeys{}, Downstream: node.client(2 * time.Second)}
	for _, m := range mutate {
		m(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// response is a parsed answer from the signer.
type response struct {
	Status int
	Header http.Header
	Raw    string
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func post(t testing.TB, url, body string, hdr ...string) *response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	r := &response{Status: resp.StatusCode, Header: resp.Header, Raw: string(data)}
	_ = json.Unmarshal(data, r)
	return r
}

func call(t testing.TB, url, method string, params ...any) *response {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	return post(t, url, string(b))
}

// wantError checks an error answer.
func (r *response) wantError(t testing.TB, status, code int, msgPrefix string) {
	t.Helper()
	if r.Status != status || r.Error == nil || r.Error.Code != code || !strings.HasPrefix(r.Error.Message, msgPrefix) {
		t.Errorf("want %d %d %q..., got %d %s", status, code, msgPrefix, r.Status, r.Raw)
	}
}

func (r *response) str(t testing.TB) string {
	t.Helper()
	var s string
	if r.Error != nil || json.Unmarshal(r.Result, &s) != nil {
		t.Fatalf("want a string result, got %d %s", r.Status, r.Raw)
	}
	return s
}
