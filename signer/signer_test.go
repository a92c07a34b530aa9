package signer

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/privacy/privtx"
	"github.com/basaltchain/basalt/signer/downstream"
)

func TestEthAccounts(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)
	want := fmt.Sprintf(`["%s","%s"]`, strings.ToLower(twoKeys{}.Accounts()[0].Hex()), strings.ToLower(twoKeys{}.Accounts()[1].Hex()))
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_accounts","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_accounts","params":[ ]}`,
	} {
		r := post(t, s.URL, body)
		if r.Status != 200 || string(r.Result) != want || string(r.ID) != "1" {
			t.Errorf("%s: %d %s", body, r.Status, r.Raw)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_accounts","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_accounts","params":{}}`,
	} {
		post(t, s.URL, body).wantError(t, 400, -32602, "Invalid params")
	}
	// Not a notification in the signer: answered with id null.
	r := post(t, s.URL, `{"jsonrpc":"2.0","method":"eth_accounts"}`)
	if string(r.ID) != "null" || string(r.Result) != want {
		t.Errorf("no id: %s", r.Raw)
	}
	post(t, s.URL, `{"jsonrpc":"2.0","id":{},"method":"eth_accounts"}`).wantError(t, 400, -32600, "Invalid Request")
	if len(node.methods()) != 0 {
		t.Errorf("eth_accounts reached the node: %v", node.methods())
	}
}

func TestEthSign(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)
	key, _ := crypto.HexToECDSA("8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63")
	expect := func(msg []byte) string {
		sig, err := crypto.Sign(accounts.TextHash(msg), key)
		if err != nil {
			t.Fatal(err)
		}
		sig[64] += 27
		return hexutil.Encode(sig)
	}
	for _, tc := range []struct {
		msg  string
		data []byte
	}{
		{"Hello Joe", []byte("Hello Joe")},
		{"0xdeadbeef", []byte{0xde, 0xad, 0xbe, 0xef}},
		{"0x", []byte{}},
		{"", []byte{}},
		{"héllo ✓", []byte("héllo ✓")},
		{"0Xab", []byte("0Xab")}, // only a lower-case 0x prefix means hex
	} {
		got := call(t, s.URL, "eth_sign", strings.ToUpper(dev1.Hex()[2:]), tc.msg).str(t)
		if got != expect(tc.data) || len(got) != 132 {
			t.Errorf("%q: %s, want %s", tc.msg, got, expect(tc.data))
		}
		if v := got[130:]; v != "1b" && v != "1c" {
			t.Errorf("%q: v = %s", tc.msg, v)
		}
	}

	// Published vector: TextHash("Hello Joe") (go-ethereum's
	// accounts_test.go); the signature recovers the key over that hash.
	sig := hexutil.MustDecode(call(t, s.URL, "eth_sign", dev1.Hex(), "Hello Joe").str(t))
	sig[64] -= 27
	pub, err := crypto.SigToPub(hexutil.MustDecode("0xa080337ae51c4e064c189e113edd0ba391df9206e2f49db658bb32cf2911730b"), sig)
	if err != nil || crypto.PubkeyToAddress(*pub) != dev1 {
		t.Errorf("does not recover over the published hash: %v", err)
	}
	// A frozen vector (RFC 6979 makes signatures deterministic).
	if got := call(t, s.URL, "eth_sign", dev1.Hex(), "0xdeadbeef").str(t); got != ethSignDeadbeef {
		t.Errorf("frozen vector: %s", got)
	}

	call(t, s.URL, "eth_sign", common.Address{9}.Hex(), "x").wantError(t, 200, -32000, "No unlocked account matches the Sender")
	for _, params := range []string{`[]`, `["` + dev1.Hex() + `"]`, `["` + dev1.Hex() + `","a","b"]`, `{}`, `null`,
		`["nothex","a"]`, `["` + dev1.Hex() + `",5]`, `["` + dev1.Hex() + `","0xzz"]`, `[5,"a"]`} {
		post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_sign","params":`+params+`}`).wantError(t, 400, -32602, "Invalid params")
	}
	if len(node.methods()) != 0 {
		t.Errorf("eth_sign reached the node: %v", node.methods())
	}
}

// ethSignDeadbeef is eth_sign(dev account 1, 0xdeadbeef).
const ethSignDeadbeef = "0x20b1329fc9562acc381d3a2e56606d2794543b953a2ef5bd48cedadf5b68b9a21ad1da9b8e5598f1b0b4c247eb4b4babc72d9ea5e25a55232b1c53a4add562d71b"

func sendTx(t testing.TB, url string, tx map[string]any) *response {
	t.Helper()
	return call(t, url, "eth_sendTransaction", tx)
}

func decodeRaw(t testing.TB, raw []byte) (*types.Transaction, common.Address) {
	t.Helper()
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	from, err := types.Sender(types.LatestSignerForChainID(big.NewInt(1337)), tx)
	if err != nil {
		t.Fatal(err)
	}
	return tx, from
}

func TestSendTransaction(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)
	to := dev2.Hex()

	// Defaults: legacy EIP-155, gas 90000, the node's gas price (its
	// latest block has a zero base fee), value 0, nonce from the node.
	r := sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": to})
	hash := r.str(t)
	if r.Header.Get("X-Node") != "fake" || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("node headers not relayed: %v", r.Header)
	}
	tx, from := decodeRaw(t, node.lastRaw())
	if from != dev1 || tx.Type() != types.LegacyTxType || tx.Gas() != 90000 || tx.GasPrice().Int64() != 1000 ||
		tx.Value().Sign() != 0 || tx.Nonce() != 0 || *tx.To() != dev2 || tx.ChainId().Int64() != 1337 ||
		tx.Hash().Hex() != hash || !tx.Protected() {
		t.Errorf("default tx: %+v from %s", tx, from.Hex())
	}
	if m := strings.Join(node.methods(), " "); m != "eth_getBlockByNumber eth_gasPrice eth_getTransactionCount eth_sendRawTransaction" {
		t.Errorf("node calls %v", m)
	}

	// Every field, nonce chosen by the node.
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": to, "gas": "0x5208", "gasPrice": "0x3e8",
		"value": "0xde0b6b3a7640000", "data": "0xabcd", "chainId": "0x539"}).str(t)
	tx, _ = decodeRaw(t, node.lastRaw())
	if tx.Nonce() != 1 || tx.Gas() != 21000 || tx.GasPrice().Int64() != 1000 || tx.Value().String() != "1000000000000000000" ||
		hex.EncodeToString(tx.Data()) != "abcd" {
		t.Errorf("full tx: %+v", tx)
	}

	// Decimal strings (web3j's decodeQuantity) and input as data.
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "gas": "100000", "gasPrice": "1000", "input": "0x6000"}).str(t)
	tx, _ = decodeRaw(t, node.lastRaw())
	if tx.To() != nil || tx.Gas() != 100000 || tx.GasPrice().Int64() != 1000 || hex.EncodeToString(tx.Data()) != "6000" {
		t.Errorf("creation tx: %+v", tx)
	}
	for _, creation := range []any{"", "0x", nil} {
		sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": creation, "gasPrice": "0x1"}).str(t)
		if tx, _ = decodeRaw(t, node.lastRaw()); tx.To() != nil {
			t.Errorf("to %v: not a creation", creation)
		}
	}

	// EIP-1559 and EIP-2930.
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": to, "maxFeePerGas": "0x7d0", "maxPriorityFeePerGas": "0x3e8"}).str(t)
	tx, _ = decodeRaw(t, node.lastRaw())
	if tx.Type() != types.DynamicFeeTxType || tx.GasFeeCap().Int64() != 2000 || tx.GasTipCap().Int64() != 1000 || tx.ChainId().Int64() != 1337 {
		t.Errorf("1559 tx: %+v", tx)
	}
	al := []map[string]any{{"address": to, "storageKeys": []string{common.Hash{1}.Hex()}}}
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": to, "gasPrice": "0x3e8", "accessList": al}).str(t)
	tx, _ = decodeRaw(t, node.lastRaw())
	if tx.Type() != types.AccessListTxType || len(tx.AccessList()) != 1 || tx.GasPrice().Int64() != 1000 {
		t.Errorf("2930 tx: %+v", tx)
	}
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": to, "type": "0x2", "maxFeePerGas": "0x7d0", "maxPriorityFeePerGas": "0x0", "accessList": al}).str(t)
	if tx, _ = decodeRaw(t, node.lastRaw()); tx.Type() != types.DynamicFeeTxType || len(tx.AccessList()) != 1 {
		t.Errorf("1559 with access list: %+v", tx)
	}

	// A user-given nonce is used as is and not retried.
	before := node.count("eth_getTransactionCount")
	sendTx(t, s.URL, map[string]any{"from": dev2.Hex(), "to": to, "nonce": "0x5"}).str(t)
	if tx, from = decodeRaw(t, node.lastRaw()); tx.Nonce() != 5 || from != dev2 {
		t.Errorf("explicit nonce: %d from %s", tx.Nonce(), from.Hex())
	}
	node.mu.Lock()
	node.nonces[dev1] = 50 // mined past 0
	node.mu.Unlock()
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": to, "nonce": "0x0", "value": "0x1"}).wantError(t, 200, -32001, "Nonce too low")
	if node.count("eth_getTransactionCount") != before {
		t.Error("a nonce was fetched for a request that had one")
	}

	// The params may be the object itself.
	r = post(t, s.URL, `{"jsonrpc":"2.0","id":"a","method":"eth_sendTransaction","params":{"from":"`+dev2.Hex()+`","nonce":"0x6"}}`)
	if r.str(t) == "" || string(r.ID) != `"a"` {
		t.Errorf("object params: %s", r.Raw)
	}

	// Unknown sender: HTTP 400, nothing sent.
	n := len(node.methods())
	sendTx(t, s.URL, map[string]any{"from": common.Address{7}.Hex(), "to": to}).wantError(t, 400, -32000, "No unlocked account matches the Sender")
	if len(node.methods()) != n {
		t.Error("unknown sender reached the node")
	}
}

func TestSendTransactionBadInput(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)
	from := dev1.Hex()
	for name, params := range map[string]string{
		"no params":           `null`,
		"empty list":          `[]`,
		"two objects":         `[{"from":"` + from + `"},{}]`,
		"not an object":       `["x"]`,
		"no from":             `[{"to":"` + from + `"}]`,
		"empty from":          `[{"from":""}]`,
		"bad from":            `[{"from":"0x1234"}]`,
		"numeric from":        `[{"from":12}]`,
		"bad to":              `[{"from":"` + from + `","to":"0xzz"}]`,
		"short to":            `[{"from":"` + from + `","to":"0x1234"}]`,
		"numeric gas":         `[{"from":"` + from + `","gas":21000}]`,
		"bad gas":             `[{"from":"` + from + `","gas":"0xzz"}]`,
		"huge gas":            `[{"from":"` + from + `","gas":"0x10000000000000000"}]`,
		"negative value":      `[{"from":"` + from + `","value":"-1"}]`,
		"value > 256 bits":    `[{"from":"` + from + `","value":"0x1` + strings.Repeat("0", 64) + `"}]`,
		"empty quantity":      `[{"from":"` + from + `","value":"0x"}]`,
		"odd data":            `[{"from":"` + from + `","data":"0xabc"}]`,
		"data vs input":       `[{"from":"` + from + `","data":"0xab","input":"0xcd"}]`,
		"wrong chain id":      `[{"from":"` + from + `","chainId":"0x1"}]`,
		"gasPrice and 1559":   `[{"from":"` + from + `","gasPrice":"0x1","maxFeePerGas":"0x2","maxPriorityFeePerGas":"0x1"}]`,
		"tip above cap":       `[{"from":"` + from + `","maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x2"}]`,
		"type 3":              `[{"from":"` + from + `","type":"0x3"}]`,
		"legacy access list":  `[{"from":"` + from + `","type":"0x0","accessList":[]}]`,
		"bad access list":     `[{"from":"` + from + `","accessList":"x"}]`,
		"1559 on type 1":      `[{"from":"` + from + `","type":"0x1","maxFeePerGas":"0x2","maxPriorityFeePerGas":"0x1"}]`,
		"privateFor on eth":   `[{"from":"` + from + `","privateFor":["` + keyB64 + `"]}]`,
		"privateFrom on eth":  `[{"from":"` + from + `","privateFrom":"` + keyB64 + `"}]`,
		"malformed json elem": `[{"from":"` + from + `","gas":}]`,
	} {
		r := post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":`+params+`}`)
		if name == "malformed json elem" {
			// Not JSON at all: the node answers it (its parse error).
			continue
		}
		if r.Status != 400 || r.Error == nil || r.Error.Code != -32602 || !strings.HasPrefix(r.Error.Message, "Invalid params (") {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	for _, m := range node.methods() {
		if m != "" {
			t.Errorf("bad input reached the node: %v", node.methods())
			break
		}
	}
	// eth_signTransaction checks the same way and needs a nonce, and, as
	// it does not ask the node for fees, both fee caps of a type 2
	// transaction.
	call(t, s.URL, "eth_signTransaction", map[string]any{"from": from}).wantError(t, 400, -32602, "Invalid params (nonce is required")
	call(t, s.URL, "eth_signTransaction", map[string]any{"from": from, "nonce": "0x1", "maxFeePerGas": "0x2"}).
		wantError(t, 400, -32602, "Invalid params (eth_signTransaction does not ask the node for fees: a type 2 transaction needs both maxFeePerGas and maxPriorityFeePerGas)")
	call(t, s.URL, "eth_signTransaction", map[string]any{"from": common.Address{3}.Hex(), "nonce": "0x1"}).wantError(t, 200, -32000, "No unlocked account")
}

func TestSignTransaction(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)
	raw := call(t, s.URL, "eth_signTransaction", map[string]any{"from": dev1.Hex(), "to": dev2.Hex(), "nonce": "0x9", "gasPrice": "0x3e8"}).str(t)
	tx, from := decodeRaw(t, hexutil.MustDecode(raw))
	if from != dev1 || tx.Nonce() != 9 || tx.GasPrice().Int64() != 1000 || *tx.To() != dev2 {
		t.Errorf("signed %+v from %s", tx, from.Hex())
	}
	// Without fees: the spec's gasPrice 0, not the node's.
	raw = call(t, s.URL, "eth_signTransaction", map[string]any{"from": dev1.Hex(), "nonce": "0x9"}).str(t)
	if tx, _ = decodeRaw(t, hexutil.MustDecode(raw)); tx.Type() != types.LegacyTxType || tx.GasPrice().Sign() != 0 {
		t.Errorf("signed without fees: %+v", tx)
	}
	if len(node.methods()) != 0 {
		t.Errorf("eth_signTransaction reached the node: %v", node.methods())
	}
}

const keyB64 = "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo="
const keyB64b = "Ko2bVqD+nNlNYL5EE7y3IdOnviftjiizpjRt+HTuFBs="
const groupB64 = "DyAOiF/ynpc+JXa2YAGB0bCitSlOMNm+ShmB/7M6C4w="

func TestEEASendTransaction(t *testing.T) {
	node := newFakeNode(t)
	node.private = 4
	s := signerFor(t, node)
	b64 := func(s string) []byte { b, _ := base64.StdEncoding.DecodeString(s); return b }

	// privateFor: nonce from priv_getEeaTransactionCount.
	r := call(t, s.URL, "eea_sendTransaction", map[string]any{
		"from": dev1.Hex(), "to": dev2.Hex(), "data": "0x0102", "gas": "0x76c0", "gasPrice": "0x3e8",
		"privateFrom": keyB64, "privateFor": []string{keyB64b}, "restriction": "restricted",
	})
	hash := r.str(t)
	raw := node.lastRaw()
	if crypto.Keccak256Hash(raw).Hex() != hash {
		t.Errorf("the node's answer was not relayed")
	}
	tx, err := privtx.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if from, err := tx.Sender(); err != nil || from != dev1 {
		t.Errorf("sender %s %v", from.Hex(), err)
	}
	if tx.ChainID().Int64() != 1337 || tx.Nonce != 4 || tx.Gas != 30400 || tx.GasPrice.Int64() != 1000 ||
		*tx.To != dev2 || tx.Value.Sign() != 0 || hex.EncodeToString(tx.Data) != "0102" ||
		string(tx.PrivateFrom) != string(b64(keyB64)) || len(tx.PrivateFor) != 1 || string(tx.PrivateFor[0]) != string(b64(keyB64b)) ||
		tx.PrivacyGroupID != nil || tx.Restriction != "restricted" {
		t.Errorf("private tx %+v", tx)
	}
	var nonceReq struct {
		Params []any `json:"params"`
	}
	reqs := node.recorded()
	json.Unmarshal(reqs[0].Body, &nonceReq)
	if reqs[0].Method != "priv_getEeaTransactionCount" || fmt.Sprint(nonceReq.Params) != fmt.Sprintf("[%s %s [%s]]", strings.ToLower(dev1.Hex()), keyB64, keyB64b) {
		t.Errorf("nonce request %s %s", reqs[0].Method, reqs[0].Body)
	}
	if reqs[1].Method != "eea_sendRawTransaction" {
		t.Errorf("sent with %s", reqs[1].Method)
	}

	// privacyGroupId: nonce from priv_getTransactionCount; defaults.
	call(t, s.URL, "eea_sendTransaction", map[string]any{
		"from": dev1.Hex(), "privateFrom": keyB64, "privacyGroupId": groupB64, "restriction": "restricted", "value": "0x0",
	}).str(t)
	tx, _ = privtx.Decode(node.lastRaw())
	if tx.To != nil || tx.Gas != 90000 || tx.GasPrice.Sign() != 0 || string(tx.PrivacyGroupID) != string(b64(groupB64)) || tx.PrivateFor != nil {
		t.Errorf("group tx %+v", tx)
	}
	reqs = node.recorded()
	json.Unmarshal(reqs[2].Body, &nonceReq)
	if reqs[2].Method != "priv_getTransactionCount" || fmt.Sprint(nonceReq.Params) != fmt.Sprintf("[%s %s]", strings.ToLower(dev1.Hex()), groupB64) {
		t.Errorf("group nonce request %s %s", reqs[2].Method, reqs[2].Body)
	}

	// A given nonce is used as is.
	call(t, s.URL, "eea_sendTransaction", map[string]any{
		"from": dev1.Hex(), "privateFrom": keyB64, "privateFor": []string{}, "restriction": "restricted", "nonce": "0x11",
	}).str(t)
	if tx, _ = privtx.Decode(node.lastRaw()); tx.Nonce != 17 || tx.PrivateFor == nil || len(tx.PrivateFor) != 0 {
		t.Errorf("explicit nonce %+v", tx)
	}

	n := len(node.methods())
	valid := map[string]any{"from": dev1.Hex(), "privateFrom": keyB64, "privateFor": []string{keyB64b}, "restriction": "restricted"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range valid {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for name, tc := range map[string]struct {
		tx   map[string]any
		want string
	}{
		"value":               {with("value", "0x1"), "Invalid params (Non-zero value, private transactions cannot transfer ether)"},
		"unrestricted":        {with("restriction", "unrestricted"), `Invalid params (restriction must be "restricted")`},
		"no restriction":      {with("restriction", nil), "Invalid params (restriction is required)"},
		"no privateFrom":      {with("privateFrom", nil), "Invalid params (privateFrom is required)"},
		"short privateFrom":   {with("privateFrom", "AAAA"), "Invalid params (privateFrom must be a Base64 32-byte key)"},
		"neither":             {with("privateFor", nil), "Invalid params (give exactly one of privateFor and privacyGroupId)"},
		"both":                {with("privacyGroupId", groupB64), "Invalid params (give exactly one of privateFor and privacyGroupId)"},
		"bad privateFor":      {with("privateFor", []string{"!!"}), "Invalid params (privateFor must be a Base64 32-byte key)"},
		"privateFor string":   {with("privateFor", keyB64), "Invalid params (privateFor must be a list"},
		"1559":                {with("maxFeePerGas", "0x1"), "Invalid params (maxFeePerGas is not supported"},
		"type 2":              {with("type", "0x2"), "Invalid params (private transactions are legacy"},
		"wrong chain":         {with("chainId", "0x1"), "Invalid params (chainId 1 does not match"},
		"unknown from":        {with("from", common.Address{5}.Hex()), "No unlocked account"},
		"no from":             {with("from", nil), "Invalid params (from is required)"},
		"bad group":           {with("privateFor", nil), ""},
		"numeric restriction": {with("restriction", 1), "Invalid params (restriction must be a string)"},
	} {
		if name == "bad group" {
			tc.tx["privacyGroupId"] = "AAAA"
			tc.want = "Invalid params (privacyGroupId must be a Base64 32-byte key)"
		}
		r := call(t, s.URL, "eea_sendTransaction", tc.tx)
		if r.Status != 400 || r.Error == nil || !strings.HasPrefix(r.Error.Message, tc.want) {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	if len(node.methods()) != n {
		t.Errorf("bad private transactions reached the node: %v", node.methods()[n:])
	}
}

func TestNonceRetries(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)
	// Another client sent nonces 0..2 directly to the node behind the
	// signer's back, and the node's pending count lags (it says 0).
	node.mu.Lock()
	node.pool[dev1] = map[uint64]bool{0: true, 1: true, 2: true}
	node.mu.Unlock()
	lag := true
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_getTransactionCount" && lag {
			var env struct{ ID json.RawMessage }
			json.Unmarshal(body, &env)
			w.Write(result(env.ID, "0x0"))
			return true
		}
		return false
	})
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": dev2.Hex()}).str(t)
	if tx, _ := decodeRaw(t, node.lastRaw()); tx.Nonce() != 3 {
		t.Errorf("nonce %d after retries", tx.Nonce())
	}
	if c := node.count("eth_sendRawTransaction"); c != 4 {
		t.Errorf("%d sends, want 4 (0, 1, 2 refused as underpriced, 3 accepted)", c)
	}

	// Nonce too low: the account moved on; the count catches up.
	lag = false
	node.mu.Lock()
	node.nonces[dev2] = 5
	node.mu.Unlock()
	tooLow := 0
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_getTransactionCount" && tooLow < 2 {
			tooLow++
			var env struct{ ID json.RawMessage }
			json.Unmarshal(body, &env)
			w.Write(result(env.ID, "0x2"))
			return true
		}
		return false
	})
	sendTx(t, s.URL, map[string]any{"from": dev2.Hex(), "to": dev1.Hex()}).str(t)
	if tx, _ := decodeRaw(t, node.lastRaw()); tx.Nonce() != 5 {
		t.Errorf("nonce %d after Nonce too low", tx.Nonce())
	}

	// Retries run out: 1 + 10 attempts, then 400 -32603.
	before := node.count("eth_sendRawTransaction")
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_sendRawTransaction" {
			var env struct{ ID json.RawMessage }
			json.Unmarshal(body, &env)
			w.Write(rpcErr(env.ID, -32000, "Known transaction"))
			return true
		}
		return false
	})
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": dev2.Hex()}).wantError(t, 400, -32603, "Internal error (no free nonce after 10 retries: Known transaction)")
	if c := node.count("eth_sendRawTransaction") - before; c != 11 {
		t.Errorf("%d attempts, want 11", c)
	}

	// Other errors are the node's answer, not retried.
	before = node.count("eth_sendRawTransaction")
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_sendRawTransaction" {
			var env struct{ ID json.RawMessage }
			json.Unmarshal(body, &env)
			w.Write(rpcErr(env.ID, -32009, "Gas price below configured minimum gas price"))
			return true
		}
		return false
	})
	r := sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": dev2.Hex()})
	r.wantError(t, 200, -32009, "Gas price below configured minimum gas price")
	if string(r.ID) != "7" || node.count("eth_sendRawTransaction")-before != 1 {
		t.Errorf("id %s, %d attempts", r.ID, node.count("eth_sendRawTransaction")-before)
	}

	// An error from the nonce request is returned with its status.
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_getTransactionCount" {
			if r.Header.Get("Authorization") != "Bearer tok" {
				t.Errorf("client headers not sent with the nonce request: %v", r.Header)
			}
			w.WriteHeader(401)
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-40100,"message":"Unauthorized"}}`))
			return true
		}
		return false
	})
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "x", "method": "eth_sendTransaction", "params": []any{map[string]any{"from": dev1.Hex()}}})
	r = post(t, s.URL, string(b), "Authorization", "Bearer tok")
	r.wantError(t, 401, -40100, "Unauthorized")
	if string(r.ID) != `"x"` {
		t.Errorf("id %s", r.ID)
	}
	// A nonce that is not a quantity.
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_getTransactionCount" {
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":7}`))
			return true
		}
		return false
	})
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex()}).wantError(t, 502, -32603, "Internal error (the node's answer to eth_getTransactionCount is not a nonce")
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_getTransactionCount" {
			w.WriteHeader(404)
			w.Write([]byte(`<html>not here</html>`))
			return true
		}
		return false
	})
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex()}).wantError(t, 502, -32603, "Internal error (the node's answer to eth_getTransactionCount is not JSON-RPC (HTTP 404))")
}

func TestConcurrentSendsGetDistinctNonces(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for range n {
		wg.Go(func() {
			body := `{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"` + dev1.Hex() + `","to":"` + dev2.Hex() + `","gasPrice":"0x3e8"}]}`
			resp, err := http.Post(s.URL, "application/json", strings.NewReader(body))
			if err != nil {
				errs <- err.Error()
				return
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(data), `"result"`) {
				errs <- string(data)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("send failed: %s", e)
	}
	pooled := node.pooled(dev1)
	for i := range uint64(n) {
		if !pooled[i] {
			t.Fatalf("nonce %d missing; pool %v", i, pooled)
		}
	}
	if len(pooled) != n {
		t.Errorf("%d nonces pooled, want %d", len(pooled), n)
	}
}

func TestDownstreamFailures(t *testing.T) {
	// Connection refused.
	node := newFakeNode(t)
	s := signerFor(t, node)
	node.srv.Close()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"` + dev1.Hex() + `"}]}`,
	} {
		r := post(t, s.URL, body)
		r.wantError(t, 504, -32000, "Failed to connect to downstream node")
		if !strings.Contains(r.Raw, `"id":1,`) || strings.Contains(r.Raw, "data") {
			t.Errorf("the request's id, no data (nothing was sent): %s", r.Raw)
		}
	}
	// A passed-through request keeps its id, whatever its type; a batch gets
	// one error per request, none for a notification.
	want := `{"jsonrpc":"2.0","id":"q","error":{"code":-32000,"message":"Failed to connect to downstream node"}}`
	if r := post(t, s.URL, `{"jsonrpc":"2.0","id":"q","method":"eth_blockNumber","params":[]}`); r.Status != 504 || r.Raw != want {
		t.Errorf("pass-through: %d %s", r.Status, r.Raw)
	}
	for _, body := range []string{
		`[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":2,"method":"eth_accounts"}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":2,"method":"net_version"}]`,
	} {
		r := post(t, s.URL, body)
		want := `[{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Failed to connect to downstream node"}},` +
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Failed to connect to downstream node"}}]`
		if r.Status != 504 || r.Raw != want {
			t.Errorf("batch %s: %d %s", body, r.Status, r.Raw)
		}
	}
	resp, err := http.Get(s.URL + "/other")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 504 {
		t.Errorf("GET with the node down: %d", resp.StatusCode)
	}

	// Timeouts: the send is not signed again with another nonce.
	slow := newFakeNode(t)
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	var slowRaw atomic.Value // []byte; the hook runs on the server's goroutine
	slow.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method == "eth_sendRawTransaction" {
			slowRaw.Store(rawParam(t, body))
		}
		if method == "eth_sendRawTransaction" || method == "eth_blockNumber" {
			select {
			case <-block:
			case <-r.Context().Done():
			}
			return true
		}
		return false
	})
	s = signerFor(t, slow, func(c *Config) { c.Downstream = slow.client(150 * time.Millisecond) })
	post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`).wantError(t, 504, -32000, "Connection to downstream node timed out")
	r := sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": dev2.Hex()})
	r.wantError(t, 504, -32000, "Connection to downstream node timed out")
	if c := slow.count("eth_sendRawTransaction"); c != 1 {
		t.Errorf("signed and sent %d times", c)
	}
	if tx, _ := decodeRaw(t, slowRaw.Load().([]byte)); !strings.Contains(r.Raw, `"data":{"requestSent":true,"transactionHash":"`+tx.Hash().Hex()+`"}`) {
		t.Errorf("a timed-out send names the transaction to look for: %s", r.Raw)
	}
	// The timed-out nonce stays taken only while the burst lasts: the next
	// call, alone, trusts the node's count again.
	slow.setHook(nil)
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": dev2.Hex()}).str(t)
	if tx, _ := decodeRaw(t, slow.lastRaw()); tx.Nonce() != 0 {
		t.Errorf("nonce %d after a timeout", tx.Nonce())
	}
}

// TestDownstreamLost: a connection that breaks after the request was sent
// is told apart from one that could not be made — the node may hold the
// transaction — with its own code, and the hash to check.
func TestDownstreamLost(t *testing.T) {
	node := newFakeNode(t)
	var raw atomic.Value // []byte
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method != "eth_sendRawTransaction" && method != "eth_blockNumber" {
			return false
		}
		if method == "eth_sendRawTransaction" {
			raw.Store(rawParam(t, body))
		}
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close() // the request arrived; the answer never leaves
		}
		return true
	})
	s := signerFor(t, node)
	r := post(t, s.URL, `{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}`)
	if want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32050,"message":"Connection to downstream node lost after the request was sent","data":{"requestSent":true}}}`; r.Status != 502 || r.Raw != want {
		t.Errorf("pass-through: %d %s", r.Status, r.Raw)
	}
	r = sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": dev2.Hex()})
	r.wantError(t, 502, -32050, "Connection to downstream node lost after the request was sent")
	tx, _ := decodeRaw(t, raw.Load().([]byte))
	if !strings.Contains(r.Raw, `"data":{"requestSent":true,"transactionHash":"`+tx.Hash().Hex()+`"}`) || node.count("eth_sendRawTransaction") != 1 {
		t.Errorf("send: %s (sent %d times)", r.Raw, node.count("eth_sendRawTransaction"))
	}
}

// rawParam returns the transaction bytes of an eth_sendRawTransaction body.
func rawParam(t *testing.T, body []byte) []byte {
	var req struct{ Params []hexutil.Bytes }
	if err := json.Unmarshal(body, &req); err != nil || len(req.Params) != 1 {
		t.Errorf("eth_sendRawTransaction body %s", body)
		return nil
	}
	return req.Params[0]
}

func TestProxy(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node, func(c *Config) { c.CORSOrigins = []string{"http://app.example"} })

	// A proxied call returns exactly the node's answer.
	r := post(t, s.URL, `{"jsonrpc":"2.0","id":"q","method":"eth_blockNumber","params":[]}`, "Authorization", "Bearer x", "Origin", "http://app.example")
	if r.Raw != `{"jsonrpc":"2.0","id":"q","result":"0x10"}` || r.Header.Get("X-Node") != "fake" ||
		r.Header.Get("Access-Control-Allow-Origin") != "http://app.example" {
		t.Errorf("proxied: %d %v %s", r.Status, r.Header, r.Raw)
	}
	got := node.recorded()[0]
	if got.Header.Get("Authorization") != "Bearer x" || got.Header.Get("Origin") != "" ||
		got.Header.Get("X-Forwarded-Host") == "" || string(got.Body) != `{"jsonrpc":"2.0","id":"q","method":"eth_blockNumber","params":[]}` {
		t.Errorf("forwarded request: %v %s", got.Header, got.Body)
	}
	// Unknown methods and malformed requests are the node's to answer.
	r = post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"foo_bar","params":[]}`)
	if r.Raw != `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}` {
		t.Errorf("unknown method: %s", r.Raw)
	}
	for _, body := range []string{`{"id":1}`, `not json`, ``, `{"method":"eth_sendTransaction"`} {
		n := len(node.methods())
		post(t, s.URL, body)
		if len(node.methods()) != n+1 {
			t.Errorf("%q not forwarded", body)
		}
	}

	// Other paths and methods.
	resp, err := http.Get(s.URL + "/liveness?x=1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot || string(b) != "GET /liveness?x=1" || resp.Header.Get("X-Fake") != "other" {
		t.Errorf("GET relayed: %d %q", resp.StatusCode, b)
	}
	resp, err = http.Get(s.URL + "/upcheck")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "I'm up!" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("upcheck: %d %q", resp.StatusCode, b)
	}

	// Transport checks come first: nothing reaches the node.
	n := len(node.methods())
	if r := post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`, "Host", "evil.example"); r.Status != 403 || r.Raw != `{"message":"Host not authorized."}` {
		t.Errorf("foreign host: %d %s", r.Status, r.Raw)
	}
	r = post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}`, "Origin", "http://evil.example")
	if r.Status != 403 {
		t.Errorf("foreign origin: %d", r.Status)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"` + dev1.Hex() + `","data":"0x` + strings.Repeat("00", 3<<20) + `"}]}`
	r = post(t, s.URL, big)
	if r.Status != 413 || r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("oversized: %d %.200s", r.Status, r.Raw)
	}
	if len(node.methods()) != n {
		t.Errorf("refused requests reached the node: %v", node.methods()[n:])
	}
}

func TestBatch(t *testing.T) {
	node := newFakeNode(t)
	s := signerFor(t, node)

	// No signer method: the batch goes through unchanged.
	body := `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","id":2,"method":"eth_chainId","params":[]}]`
	r := post(t, s.URL, body)
	if r.Raw != `[{"jsonrpc":"2.0","id":1,"result":"0x10"},{"jsonrpc":"2.0","id":2,"result":"0x539"}]` || string(node.recorded()[0].Body) != body {
		t.Errorf("plain batch: %s", r.Raw)
	}
	if r := post(t, s.URL, `[]`); r.Status != 400 {
		t.Errorf("empty batch not the node's: %d %s", r.Status, r.Raw)
	}

	// Mixed: the signer's methods run here, in order; the rest go to the
	// node in one batch; responses keep request order.
	tx := `{"from":"` + dev1.Hex() + `","to":"` + dev2.Hex() + `","gasPrice":"0x1"}`
	body = `[{"jsonrpc":"2.0","id":"a","method":"eth_sendTransaction","params":[` + tx + `]},` +
		`{"jsonrpc":"2.0","id":"b","method":"eth_blockNumber","params":[]},` +
		`{"jsonrpc":"2.0","method":"eth_blockNumber","params":[]},` +
		`{"jsonrpc":"2.0","id":"c","method":"eth_accounts"},` +
		`5,` +
		`{"jsonrpc":"2.0","id":"d","method":"eth_sendTransaction","params":[` + tx + `]},` +
		`{"jsonrpc":"2.0","id":"e","method":"eth_sign","params":[]}]`
	r = post(t, s.URL, body)
	var arr []response
	if err := json.Unmarshal([]byte(r.Raw), &arr); err != nil || r.Status != 200 {
		t.Fatalf("mixed batch: %d %s", r.Status, r.Raw)
	}
	ids := []string{}
	for _, a := range arr {
		ids = append(ids, string(a.ID))
	}
	if strings.Join(ids, " ") != `"a" "b" "c" null "d" "e"` {
		t.Fatalf("response ids %v: %s", ids, r.Raw)
	}
	if arr[0].Error != nil || arr[4].Error != nil || string(arr[1].Result) != `"0x10"` || arr[3].Error == nil || arr[5].Error == nil || arr[5].Error.Code != -32602 {
		t.Errorf("mixed batch results: %s", r.Raw)
	}
	pooled := node.pooled(dev1)
	if len(pooled) != 2 || !pooled[0] || !pooled[1] {
		t.Errorf("two sends in a batch: pool %v", pooled)
	}

	// Too large.
	elems := make([]string, DefaultMaxBatchSize+1)
	for i := range elems {
		elems[i] = `{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}`
	}
	post(t, s.URL, "["+strings.Join(elems, ",")+"]").wantError(t, 200, -32005, "Number of requests exceeds max batch size")

	// The node refusing the rest as a whole answers for the batch; nothing
	// is signed.
	node.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if len(body) > 0 && body[0] == '[' {
			w.WriteHeader(401)
			w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-40100,"message":"Unauthorized"}}`))
			return true
		}
		return false
	})
	n := node.count("eth_sendRawTransaction")
	post(t, s.URL, `[{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[`+tx+`]},{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}]`).
		wantError(t, 401, -40100, "Unauthorized")
	if node.count("eth_sendRawTransaction") != n {
		t.Error("signed although the node refused the batch")
	}
}

func TestPathPrefix(t *testing.T) {
	for _, tc := range []struct{ prefix, in, want string }{
		{"/", "/", "/"},
		{"/", "/a/b", "/a/b"},
		{"rpc", "/", "/rpc"},
		{"/rpc/", "/", "/rpc"},
		{"//rpc//x/", "//y//", "/rpc/x/y"},
		{"", "", "/"},
	} {
		c := downstream.New(downstream.Config{Host: "127.0.0.1", Port: 1, Path: tc.prefix})
		if got := c.Path(tc.in); got != tc.want {
			t.Errorf("prefix %q path %q: %q, want %q", tc.prefix, tc.in, got, tc.want)
		}
	}

	// Through the signer: JSON-RPC and other paths land under the prefix.
	node := newFakeNode(t)
	s := signerFor(t, node, func(c *Config) {
		u, _ := url.Parse(node.srv.URL)
		port, _ := strconv.Atoi(u.Port())
		c.Downstream = downstream.New(downstream.Config{Host: u.Hostname(), Port: port, Path: "/rpc/v1/"})
	})
	post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex()})
	resp, err := http.Get(s.URL + "/x/y")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var paths []string
	for _, r := range node.recorded() {
		paths = append(paths, r.Path)
	}
	if strings.Join(paths, " ") != "/rpc/v1 /rpc/v1 /rpc/v1/x/y" {
		t.Errorf("paths %v", paths)
	}
}
