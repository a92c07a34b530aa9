package signer

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

var gwei = big.NewInt(1_000_000_000)

// TestSendTransactionFees checks the fees eth_sendTransaction asks the
// node for, on a chain with a zero base fee, one without base fee (before
// London) and one with a base fee of 1 gwei.
func TestSendTransactionFees(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)
	to := dev2.Hex()
	send := func(tx map[string]any) (*types.Transaction, string) {
		t.Helper()
		before := len(node.methods())
		tx["from"], tx["to"] = dev1.Hex(), to
		sendTx(t, s.URL, tx).str(t)
		signed, _ := decodeRaw(t, node.lastRaw())
		var asked []string
		for _, m := range node.methods()[before:] {
			if m != "eth_getTransactionCount" && m != "eth_sendRawTransaction" {
				asked = append(asked, m)
			}
		}
		return signed, strings.Join(asked, " ")
	}
	al := []map[string]any{{"address": to, "storageKeys": []string{}}}
	twoGwei := new(big.Int).Mul(gwei, big.NewInt(2))

	for _, tc := range []struct {
		name    string
		baseFee *big.Int // of the latest block; nil: none
		tx      map[string]any
		typ     byte
		price   int64    // legacy and type 1
		fee     *big.Int // type 2
		tip     int64    // type 2
		asked   string
	}{
		// Nothing given: the chain decides.
		{"zero base fee", big.NewInt(0), map[string]any{}, types.LegacyTxType, 1000, nil, 0, "eth_getBlockByNumber eth_gasPrice"},
		{"before London", nil, map[string]any{}, types.LegacyTxType, 1000, nil, 0, "eth_getBlockByNumber eth_gasPrice"},
		{"base fee", gwei, map[string]any{}, types.DynamicFeeTxType, 0, new(big.Int).Add(twoGwei, big.NewInt(7)), 7, "eth_getBlockByNumber eth_maxPriorityFeePerGas"},
		{"access list, zero base fee", big.NewInt(0), map[string]any{"accessList": al}, types.AccessListTxType, 1000, nil, 0, "eth_getBlockByNumber eth_gasPrice"},
		{"access list, base fee", gwei, map[string]any{"accessList": al}, types.DynamicFeeTxType, 0, new(big.Int).Add(twoGwei, big.NewInt(7)), 7, "eth_getBlockByNumber eth_maxPriorityFeePerGas"},
		// A type without its fees.
		{"type 0", gwei, map[string]any{"type": "0x0"}, types.LegacyTxType, 1000, nil, 0, "eth_gasPrice"},
		{"type 1", gwei, map[string]any{"type": "0x1", "accessList": al}, types.AccessListTxType, 1000, nil, 0, "eth_gasPrice"},
		{"type 2", gwei, map[string]any{"type": "0x2"}, types.DynamicFeeTxType, 0, new(big.Int).Add(twoGwei, big.NewInt(7)), 7, "eth_getBlockByNumber eth_maxPriorityFeePerGas"},
		{"type 2, zero base fee", big.NewInt(0), map[string]any{"type": "0x2"}, types.DynamicFeeTxType, 0, big.NewInt(7), 7, "eth_getBlockByNumber eth_maxPriorityFeePerGas"},
		{"type 2 before London", nil, map[string]any{"type": "0x2"}, types.DynamicFeeTxType, 0, big.NewInt(7), 7, "eth_getBlockByNumber eth_maxPriorityFeePerGas"},
		// Half of EIP-1559.
		{"tip only", gwei, map[string]any{"maxPriorityFeePerGas": "0x64"}, types.DynamicFeeTxType, 0, new(big.Int).Add(twoGwei, big.NewInt(100)), 100, "eth_getBlockByNumber"},
		{"cap only", gwei, map[string]any{"maxFeePerGas": "0x77359400"}, types.DynamicFeeTxType, 0, twoGwei, 7, "eth_maxPriorityFeePerGas"},
		{"cap below the suggested tip", gwei, map[string]any{"maxFeePerGas": "0x5"}, types.DynamicFeeTxType, 0, big.NewInt(5), 5, "eth_maxPriorityFeePerGas"},
		// Everything given: nothing asked.
		{"gasPrice", gwei, map[string]any{"gasPrice": "0x9"}, types.LegacyTxType, 9, nil, 0, ""},
		{"gasPrice 0", gwei, map[string]any{"gasPrice": "0x0"}, types.LegacyTxType, 0, nil, 0, ""},
		{"both caps", gwei, map[string]any{"maxFeePerGas": "0x9", "maxPriorityFeePerGas": "0x8"}, types.DynamicFeeTxType, 0, big.NewInt(9), 8, ""},
	} {
		node.setFees(tc.baseFee, big.NewInt(1000), big.NewInt(7))
		tx, asked := send(tc.tx)
		if asked != tc.asked {
			t.Errorf("%s: asked %q, want %q", tc.name, asked, tc.asked)
		}
		if tx.Type() != tc.typ {
			t.Errorf("%s: type %d, want %d", tc.name, tx.Type(), tc.typ)
			continue
		}
		if tc.typ == types.DynamicFeeTxType {
			if tx.GasFeeCap().Cmp(tc.fee) != 0 || tx.GasTipCap().Int64() != tc.tip {
				t.Errorf("%s: maxFeePerGas %s maxPriorityFeePerGas %s, want %s %d", tc.name, tx.GasFeeCap(), tx.GasTipCap(), tc.fee, tc.tip)
			}
		} else if tx.GasPrice().Int64() != tc.price {
			t.Errorf("%s: gasPrice %s, want %d", tc.name, tx.GasPrice(), tc.price)
		}
		if tc.tx["accessList"] != nil && len(tx.AccessList()) != 1 {
			t.Errorf("%s: access list lost", tc.name)
		}
	}

	// A free-gas network: the node suggests 0 and gets 0, as EthSigner's
	// default.
	node.setFees(big.NewInt(0), big.NewInt(0), big.NewInt(0))
	if tx, _ := send(map[string]any{}); tx.Type() != types.LegacyTxType || tx.GasPrice().Sign() != 0 {
		t.Errorf("free gas: %+v", tx)
	}

	// Nonce retries sign again with the same fees, asked once.
	node.setFees(gwei, big.NewInt(1000), big.NewInt(7))
	pending := node.pooled(dev1)
	lag := true
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_getTransactionCount" && lag {
			lag = false // the first count is stale: the nonce is taken
			var env struct{ ID json.RawMessage }
			json.Unmarshal(body, &env)
			w.Write(result(env.ID, "0x0"))
			return true
		}
		return false
	})
	if len(pending) == 0 {
		t.Fatal("nothing pooled")
	}
	tx, asked := send(map[string]any{})
	node.setHook(nil)
	if asked != "eth_getBlockByNumber eth_maxPriorityFeePerGas" || tx.Nonce() != uint64(len(pending)) || tx.GasTipCap().Int64() != 7 {
		t.Errorf("retried send: asked %q, nonce %d, tip %s", asked, tx.Nonce(), tx.GasTipCap())
	}
}

// TestFeeLookupErrors: a failed lookup is answered with a clear error,
// nothing is signed or sent, and no nonce stays taken.
func TestFeeLookupErrors(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)
	answer := func(method string, status int, body string) {
		node.setHook(func(w http.ResponseWriter, r *http.Request, m string, b []byte) bool {
			if m != method {
				return false
			}
			var env struct{ ID json.RawMessage }
			json.Unmarshal(b, &env)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte(strings.ReplaceAll(body, "ID", string(env.ID))))
			return true
		})
	}
	for _, tc := range []struct {
		name, method string
		status       int
		body         string
		tx           map[string]any
		wantStatus   int
		wantCode     int
		wantMessage  string
	}{
		{"method not found", "eth_maxPriorityFeePerGas", 200, `{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":"Method not found"}}`,
			map[string]any{"type": "0x2"}, 200, -32601,
			"Method not found (eth_maxPriorityFeePerGas, asked for a transaction without fee fields; give gasPrice, or maxFeePerGas and maxPriorityFeePerGas, to skip it)"},
		{"unauthorized", "eth_getBlockByNumber", 401, `{"jsonrpc":"2.0","id":ID,"error":{"code":-40100,"message":"Unauthorized"}}`,
			map[string]any{}, 401, -40100, "Unauthorized (eth_getBlockByNumber, asked for a transaction without fee fields"},
		{"not enabled", "eth_gasPrice", 200, `{"jsonrpc":"2.0","id":ID,"error":{"code":-32604,"message":"Method not enabled"}}`,
			map[string]any{"type": "0x0"}, 200, -32604, "Method not enabled (eth_gasPrice, asked for a transaction without fee fields"},
		{"no block", "eth_getBlockByNumber", 200, `{"jsonrpc":"2.0","id":ID,"result":null}`,
			map[string]any{}, 502, -32603, "Internal error (the node's answer to eth_getBlockByNumber is not a block: null)"},
		{"bad base fee", "eth_getBlockByNumber", 200, `{"jsonrpc":"2.0","id":ID,"result":{"baseFeePerGas":"0xzz"}}`,
			map[string]any{}, 502, -32603, `Internal error (the node's answer to eth_getBlockByNumber is a block whose baseFeePerGas is not a quantity: "0xzz")`},
		{"numeric price", "eth_gasPrice", 200, `{"jsonrpc":"2.0","id":ID,"result":1000}`,
			map[string]any{}, 502, -32603, "Internal error (the node's answer to eth_gasPrice is not a quantity: 1000)"},
		{"huge base fee", "eth_getBlockByNumber", 200, `{"jsonrpc":"2.0","id":ID,"result":{"baseFeePerGas":"0x` + strings.Repeat("f", 64) + `"}}`,
			map[string]any{"maxPriorityFeePerGas": "0x1"}, 502, -32603, "Internal error (maxFeePerGas from the node's base fee 1157920892373161954235709850086879078532699846656405640394575840079131296399"},
		{"not JSON-RPC", "eth_gasPrice", 503, `<html>busy</html>`,
			map[string]any{}, 502, -32603, "Internal error (the node's answer to eth_gasPrice is not JSON-RPC (HTTP 503))"},
	} {
		answer(tc.method, tc.status, tc.body)
		before := len(node.methods())
		tc.tx["from"] = dev1.Hex()
		r := sendTx(t, s.URL, tc.tx)
		if r.Status != tc.wantStatus || r.Error == nil || r.Error.Code != tc.wantCode || !strings.HasPrefix(r.Error.Message, tc.wantMessage) || string(r.ID) != "7" {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
		for _, m := range node.methods()[before:] {
			if m == "eth_getTransactionCount" || m == "eth_sendRawTransaction" {
				t.Errorf("%s: %s after a failed fee lookup", tc.name, m)
			}
		}
	}
	node.setHook(nil)

	// The lookups carry the client's headers (a JWT for the node).
	before := len(node.recorded())
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_sendTransaction", "params": []any{map[string]any{"from": dev1.Hex()}}})
	post(t, s.URL, string(b), "Authorization", "Bearer tok").str(t)
	for _, r := range node.recorded()[before:] {
		if r.Header.Get("Authorization") != "Bearer tok" {
			t.Errorf("%s without the client's headers", r.Method)
		}
	}
	// The failures above took no nonce: this send got nonce 0.
	if tx, _ := decodeRaw(t, node.lastRaw()); tx.Nonce() != 0 {
		t.Errorf("nonce %d after failed lookups", tx.Nonce())
	}

	// A node that does not answer the lookup: 504, nothing sent.
	slow := newFakeNode(t)
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	slow.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_gasPrice" {
			select {
			case <-block:
			case <-r.Context().Done():
			}
			return true
		}
		return false
	})
	s2 := signerFor(t, slow, func(c *Config) { c.Downstream = slow.client(150 * time.Millisecond) })
	sendTx(t, s2.URL, map[string]any{"from": dev1.Hex()}).wantError(t, 504, -32000, "Connection to downstream node timed out")
	if slow.count("eth_getTransactionCount")+slow.count("eth_sendRawTransaction") != 0 {
		t.Errorf("sent after a timed-out lookup: %v", slow.methods())
	}
}
