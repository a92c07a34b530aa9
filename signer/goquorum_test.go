package signer

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/quorumtx"
	"github.com/basaltchain/basalt/signer/tessera"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

// managers starts two basalt-privacy instances with the Q2T API, B booting
// from A, and waits until each knows the other.
func managers(t *testing.T) (a, b *ptmtest.InProcess) {
	t.Helper()
	dir := t.TempDir()
	q2t := "q2tenabled = true\nq2tport = 0"
	a = ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Extra: q2t})
	b = ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, Extra: q2t, OtherNodes: []string{a.Conf.NodeURL()}})
	ptmtest.WaitFor(t, 20*time.Second, "the two managers to know each other", func() bool {
		_, okA := a.Inst.Table.URLFor(b.Keys[0])
		_, okB := b.Inst.Table.URLFor(a.Keys[0])
		return okA && okB
	})
	return a, b
}

// q2tGet reads a payload by key from a Q2T API as GoQuorum does
// (GET /transaction/{key}, the key escaped; isRaw for a stored-only one).
func q2tGet(t *testing.T, base string, key []byte, raw bool) (int, []byte) {
	t.Helper()
	u := base + "/transaction/" + url.PathEscape(base64.StdEncoding.EncodeToString(key))
	if raw {
		u += "?isRaw=true"
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return resp.StatusCode, body
	}
	var out struct {
		Payload []byte `json:"payload"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("GET %s: %s", u, body)
	}
	return 200, out.Payload
}

// goQuorumNode makes the fake node answer eth_sendRawPrivateTransaction
// as GoQuorum 24.4.1 does (internal/ethapi SendRawPrivateTransaction): the
// transaction must be private (V 37/38) and recover; its data is the key
// of a payload its manager holds raw (ReceiveRaw); the manager shares it
// with privateFor (/sendsignedtx); then the pool takes the transaction at
// the sender's public nonce. sent records each accepted transaction and
// the args it came with.
type goQuorumNode struct {
	*fakeNode
	q2t  string // the node's manager
	sent []quorumSent
	// refuse, when set, answers the next send with this error instead.
	refuse string
}

type quorumSent struct {
	tx   *types.Transaction
	from common.Address
	args rawPrivateArgs
}

func newGoQuorumNode(t *testing.T, q2t string) *goQuorumNode {
	n := &goQuorumNode{fakeNode: newFakeNode(t), q2t: q2t}
	// A GoQuorum chain: no base fee, a free-gas network.
	n.setFees(nil, big0(), big0())
	n.setHook(func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		if method != "eth_sendRawPrivateTransaction" {
			return false
		}
		var env struct {
			ID     json.RawMessage   `json:"id"`
			Params []json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(body, &env)
		w.Header().Set("Content-Type", "application/json")
		w.Write(n.sendRawPrivate(t, env.ID, env.Params))
		return true
	})
	return n
}

func (n *goQuorumNode) sendRawPrivate(t *testing.T, id json.RawMessage, params []json.RawMessage) []byte {
	var raw hexutil.Bytes
	var args rawPrivateArgs
	if len(params) != 2 || json.Unmarshal(params[0], &raw) != nil || json.Unmarshal(params[1], &args) != nil || args.PrivateFor == nil {
		return rpcErr(id, -32602, "invalid params")
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return rpcErr(id, -32000, err.Error())
	}
	if !quorumtx.IsPrivate(tx) {
		return rpcErr(id, -32000, "transaction is not private")
	}
	from, err := quorumtx.Sender(tx)
	if err != nil {
		return rpcErr(id, -32000, "invalid sender")
	}
	if st, _ := q2tGet(t, n.q2t, tx.Data(), true); st != 200 {
		return rpcErr(id, -32000, fmt.Sprintf("%d status: no raw payload", st))
	}
	body, _ := json.Marshal(map[string]any{"hash": tx.Data(), "to": args.PrivateFor, "affectedContractTransactions": []string{}, "privacyFlag": 0})
	resp, err := http.Post(n.q2t+"/sendsignedtx", "application/json", bytes.NewReader(body))
	if err != nil {
		return rpcErr(id, -32000, err.Error())
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		return rpcErr(id, -32000, fmt.Sprintf("%d status from /sendsignedtx", resp.StatusCode))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.refuse != "" {
		msg := n.refuse
		n.refuse = ""
		return rpcErr(id, -32000, msg)
	}
	if tx.Nonce() < n.pendingLocked(from) {
		return rpcErr(id, -32000, "nonce too low")
	}
	if n.pool[from] == nil {
		n.pool[from] = map[uint64]bool{}
	}
	n.pool[from][tx.Nonce()] = true
	n.sent = append(n.sent, quorumSent{tx, from, args})
	return result(id, tx.Hash())
}

func (n *goQuorumNode) lastSent(t *testing.T) quorumSent {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.sent) == 0 {
		t.Fatal("no private transaction reached the node")
	}
	return n.sent[len(n.sent)-1]
}

func big0() *big.Int { return new(big.Int) }

// tesseraClient is a Q2T client for base.
func tesseraClient(t *testing.T, base string) *tessera.Client {
	t.Helper()
	c, err := tessera.New(tessera.Config{URL: base, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGoQuorumPrivateSend: eth_sendTransaction with privateFor stores the
// data with the node's basalt-privacy (its real Q2T API), signs a GoQuorum
// private transaction (V 37/38, Homestead hash, the payload's key as data,
// the sender's public nonce, the node's gas price) and sends it with
// eth_sendRawPrivateTransaction and {privateFor, privateFrom}; the node's
// manager shares the payload, which the recipient's manager then holds.
// Public and private sends from one account share its nonces.
func TestGoQuorumPrivateSend(t *testing.T) {
	pa, pb := managers(t)
	keyA, keyB := pa.Keys[0].String(), pb.Keys[0].String()
	node := newGoQuorumNode(t, pa.Inst.Q2TURL())
	s := signerFor(t, node.fakeNode, func(c *Config) { c.Tessera = tesseraClient(t, pa.Inst.Q2TURL()) })

	code := []byte{0x60, 0x2a, 0x60, 0x00, 0x55}
	hash := sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "data": hexutil.Encode(code), "privateFor": []string{keyB}}).str(t)
	got := node.lastSent(t)
	tx := got.tx
	v, _, _ := tx.RawSignatureValues()
	if got.from != dev1 || tx.Hash().Hex() != hash || tx.To() != nil || tx.Nonce() != 0 || tx.Gas() != DefaultGas ||
		tx.GasPrice().Sign() != 0 || tx.Value().Sign() != 0 || len(tx.Data()) != quorumtx.KeySize || (v.Uint64() != 37 && v.Uint64() != 38) {
		t.Fatalf("private deploy: from %s, %+v (v %v)", got.from.Hex(), tx, v)
	}
	if len(got.args.PrivateFor) != 1 || got.args.PrivateFor[0] != keyB || got.args.PrivateFrom != "" {
		t.Errorf("eth_sendRawPrivateTransaction args %+v, want privateFor [%s]", got.args, keyB)
	}
	if m := strings.Join(node.methods(), " "); m != "eth_gasPrice eth_getTransactionCount eth_sendRawPrivateTransaction" {
		t.Errorf("node calls: %s", m)
	}
	// The recipient's manager holds the payload under the transaction's data.
	if st, p := q2tGet(t, pb.Inst.Q2TURL(), tx.Data(), false); st != 200 || !bytes.Equal(p, code) {
		t.Errorf("B's manager: %d %x, want the code %x", st, p, code)
	}

	// A public send takes the next nonce, then a private call with every
	// field given takes the one after.
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": dev2.Hex(), "gasPrice": "0x0"}).str(t)
	if ptx, _ := decodeRaw(t, node.lastRaw()); ptx.Nonce() != 1 {
		t.Errorf("public send between private ones: nonce %d, want 1", ptx.Nonce())
	}
	contract := common.Address{0xc0}
	input := []byte("set(7)")
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "to": contract.Hex(), "data": hexutil.Encode(input), "gas": "0x30000",
		"gasPrice": "0x5", "privateFrom": keyA, "privateFor": []string{keyB}, "privacyFlag": 0, "restriction": "restricted", "type": "0x0"}).str(t)
	got = node.lastSent(t)
	if got.tx.Nonce() != 2 || *got.tx.To() != contract || got.tx.Gas() != 0x30000 || got.tx.GasPrice().Int64() != 5 || got.args.PrivateFrom != keyA {
		t.Errorf("private call: %+v args %+v", got.tx, got.args)
	}
	if st, p := q2tGet(t, pb.Inst.Q2TURL(), got.tx.Data(), false); st != 200 || !bytes.Equal(p, input) {
		t.Errorf("B's manager: %d %q", st, p)
	}

	// privateFor [] is private to the sender's own party: B does not get it.
	sendTx(t, s.URL, map[string]any{"from": dev2.Hex(), "data": "0x01", "privateFor": []string{}}).str(t)
	got = node.lastSent(t)
	if got.from != dev2 || got.tx.Nonce() != 0 || len(got.args.PrivateFor) != 0 {
		t.Errorf("privateFor []: %+v from %s", got, got.from.Hex())
	}
	if st, _ := q2tGet(t, pb.Inst.Q2TURL(), got.tx.Data(), false); st != 404 {
		t.Errorf("privateFor []: B's manager answered %d, want 404", st)
	}
	if st, p := q2tGet(t, pa.Inst.Q2TURL(), got.tx.Data(), false); st != 200 || !bytes.Equal(p, []byte{1}) {
		t.Errorf("privateFor []: A's manager %d %x", st, p)
	}

	// In a batch beside a node method, as alone.
	before := node.count("eth_sendRawPrivateTransaction")
	body, _ := json.Marshal([]any{
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []any{}},
		map[string]any{"jsonrpc": "2.0", "id": 2, "method": "eth_sendTransaction", "params": []any{
			map[string]any{"from": dev2.Hex(), "data": "0x03", "privateFor": []string{keyB}}}},
	})
	r := post(t, s.URL, string(body))
	if r.Status != 200 || !strings.Contains(r.Raw, `"id":2,"result":"0x`) || node.count("eth_sendRawPrivateTransaction") != before+1 {
		t.Errorf("batch: %d %s", r.Status, r.Raw)
	}
	if got = node.lastSent(t); got.from != dev2 || got.tx.Nonce() != 1 {
		t.Errorf("batch: %+v from %s", got.tx, got.from.Hex())
	}

	// A given nonce is used as is.
	sendTx(t, s.URL, map[string]any{"from": dev2.Hex(), "data": "0x02", "privateFor": []string{keyB}, "nonce": "0x9"}).str(t)
	if got = node.lastSent(t); got.tx.Nonce() != 9 {
		t.Errorf("given nonce: %d", got.tx.Nonce())
	}
}

// TestGoQuorumPrivateRetry: a nonce the node refuses is replaced and the
// same stored payload signed again (stored once).
func TestGoQuorumPrivateRetry(t *testing.T) {
	pa, pb := managers(t)
	node := newGoQuorumNode(t, pa.Inst.Q2TURL())
	s := signerFor(t, node.fakeNode, func(c *Config) { c.Tessera = tesseraClient(t, pa.Inst.Q2TURL()) })
	node.mu.Lock()
	node.refuse = "nonce too low"
	node.mu.Unlock()
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "data": "0xaa", "privateFor": []string{pb.Keys[0].String()}}).str(t)
	if c := node.count("eth_sendRawPrivateTransaction"); c != 2 {
		t.Fatalf("sends: %d, want 2 (one refused, one retried)", c)
	}
	var datas []string
	for _, r := range node.recorded() {
		if r.Method != "eth_sendRawPrivateTransaction" {
			continue
		}
		var env struct {
			Params []json.RawMessage `json:"params"`
		}
		json.Unmarshal(r.Body, &env)
		var raw hexutil.Bytes
		json.Unmarshal(env.Params[0], &raw)
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(raw); err != nil {
			t.Fatal(err)
		}
		datas = append(datas, hex.EncodeToString(tx.Data()))
	}
	if datas[0] != datas[1] {
		t.Errorf("the retry stored the payload again: %v", datas)
	}
}

// TestGoQuorumPrivateRefused: what basalt-signer does not send, refused
// before anything reaches the node or the manager.
func TestGoQuorumPrivateRefused(t *testing.T) {
	var storeCalls int
	manager := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		storeCalls++
		http.Error(w, "unexpected", 500)
	}))
	t.Cleanup(manager.Close)
	node := newFakeNode(t)
	s := signerFor(t, node, func(c *Config) { c.Tessera = tesseraClient(t, manager.URL) })
	keyB := "Ko2bVqD+nNlNYL5EE7y3IdOnviftjiizpjRt+HTuFBs="
	base := func(extra map[string]any) map[string]any {
		tx := map[string]any{"from": dev1.Hex(), "data": "0x6000", "privateFor": []string{keyB}}
		for k, v := range extra {
			tx[k] = v
		}
		return tx
	}
	for name, tc := range map[string]struct {
		tx     map[string]any
		status int
		code   int
		msg    string
	}{
		"value":              {base(map[string]any{"value": "0x1"}), 200, -30200, "ether value is not supported for private transactions"},
		"party protection":   {base(map[string]any{"privacyFlag": 1}), 400, -32602, "Invalid params (privacyFlag 1 (party protection) is not supported"},
		"mandatory flag":     {base(map[string]any{"privacyFlag": 2, "mandatoryFor": []string{keyB}}), 400, -32602, "Invalid params (privacyFlag 2 (mandatory recipients) is not supported"},
		"psv":                {base(map[string]any{"privacyFlag": 3}), 400, -32602, "Invalid params (privacyFlag 3 (private state validation) is not supported"},
		"flag as string":     {base(map[string]any{"privacyFlag": "0x1"}), 400, -32602, "Invalid params (privacyFlag must be a number"},
		"mandatoryFor":       {base(map[string]any{"mandatoryFor": []string{keyB}}), 400, -32602, "Invalid params (mandatoryFor (mandatory recipients) is not supported"},
		"privacy group":      {base(map[string]any{"privacyGroupId": keyB}), 400, -32602, "Invalid params (privacyGroupId cannot be combined with privateFor"},
		"fee cap":            {base(map[string]any{"maxFeePerGas": "0x1"}), 400, -32602, "Invalid params (maxFeePerGas is not supported: GoQuorum private transactions are legacy"},
		"type 2":             {base(map[string]any{"type": "0x2"}), 400, -32602, "Invalid params (GoQuorum private transactions are legacy transactions (type 0))"},
		"no data":            {base(map[string]any{"data": nil}), 400, -32602, "Invalid params (data is required"},
		"bad recipient":      {base(map[string]any{"privateFor": []string{"bm90IGEga2V5"}}), 400, -32602, "Invalid params (privateFor must be a Base64 32-byte key)"},
		"recipients as text": {base(map[string]any{"privateFor": keyB}), 400, -32602, "Invalid params (privateFor must be a list of Base64 keys)"},
		"bad sender key":     {base(map[string]any{"privateFrom": "x"}), 400, -32602, "Invalid params (privateFrom must be a Base64 32-byte key)"},
		"unrestricted":       {base(map[string]any{"restriction": "unrestricted"}), 400, -32602, `Invalid params (restriction must be "restricted")`},
		"privateFrom alone":  {map[string]any{"from": dev1.Hex(), "data": "0x6000", "privateFrom": keyB}, 400, -32602, "Invalid params (privateFrom without privateFor"},
		"unknown account":    {map[string]any{"from": common.Address{7}.Hex(), "data": "0x6000", "privateFor": []string{keyB}}, 400, -32000, "No unlocked account matches the Sender"},
	} {
		t.Run(name, func(t *testing.T) {
			sendTx(t, s.URL, tc.tx).wantError(t, tc.status, tc.code, tc.msg)
		})
	}
	call(t, s.URL, "eth_signTransaction", base(map[string]any{"nonce": "0x0"})).wantError(t, 400, -32602, "Invalid params (privateFor is not supported by eth_signTransaction")
	if len(node.methods()) != 0 || storeCalls != 0 {
		t.Errorf("refused requests reached the node %v or the manager (%d)", node.methods(), storeCalls)
	}

	// Without --tessera-url privateFor is refused, saying what is missing.
	bare := signerFor(t, node)
	sendTx(t, bare.URL, base(nil)).wantError(t, 200, -32000, "GoQuorum private transactions (eth_sendTransaction with privateFor) need the privacy manager's Q2T API: start basalt-signer with --tessera-url")
	if len(node.methods()) != 0 {
		t.Errorf("reached the node: %v", node.methods())
	}
}

// TestGoQuorumManagerFailures: a manager that refuses, is down or answers
// nonsense gets a clear error, and no transaction is signed or sent.
func TestGoQuorumManagerFailures(t *testing.T) {
	pa, _ := managers(t)
	node := newGoQuorumNode(t, pa.Inst.Q2TURL())
	s := signerFor(t, node.fakeNode, func(c *Config) { c.Tessera = tesseraClient(t, pa.Inst.Q2TURL()) })
	// A sender key the manager does not hold: basalt-privacy refuses.
	notHeld := "Ko2bVqD+nNlNYL5EE7y3IdOnviftjiizpjRt+HTuFBs="
	r := sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "data": "0x01", "privateFrom": notHeld, "privateFor": []string{}})
	r.wantError(t, 200, -32000, "Privacy manager refused to store the private payload (HTTP 400")

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"key":"c2hvcnQ="}`))
	}))
	t.Cleanup(bad.Close)
	s = signerFor(t, node.fakeNode, func(c *Config) { c.Tessera = tesseraClient(t, bad.URL) })
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "data": "0x01", "privateFor": []string{}}).
		wantError(t, 502, -32603, "Internal error (the privacy manager's answer to /storeraw is not a storeraw answer")

	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	s = signerFor(t, node.fakeNode, func(c *Config) { c.Tessera = tesseraClient(t, downURL) })
	sendTx(t, s.URL, map[string]any{"from": dev1.Hex(), "data": "0x01", "privateFor": []string{}}).
		wantError(t, 504, -32000, "Failed to connect to privacy manager ("+downURL)

	if c := node.count("eth_sendRawPrivateTransaction") + node.count("eth_getTransactionCount"); c != 0 {
		t.Errorf("a failed store still took a nonce or sent: %v", node.methods())
	}

	// /readiness leaves the manager out: public sends work without it.
	for _, tc := range []struct {
		q2t    string
		status int
		reason string
	}{{pa.Inst.Q2TURL(), 200, ""}, {downURL, 200, ""}} {
		s = signerFor(t, node.fakeNode, func(c *Config) { c.Tessera = tesseraClient(t, tc.q2t) })
		resp, err := http.Get(s.URL + "/readiness")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out struct{ Status, Reason string }
		json.Unmarshal(body, &out)
		if resp.StatusCode != tc.status || !strings.HasPrefix(out.Reason, tc.reason) {
			t.Errorf("readiness with manager %s: %d %s", tc.q2t, resp.StatusCode, body)
		}
	}
}

// BenchmarkGoQuorumSend measures eth_sendTransaction with privateFor
// through the signer from 32 concurrent clients, with the nonce given: a
// /storeraw on an in-process basalt-privacy (memory storage), the V 37/38
// signature, and eth_sendRawPrivateTransaction to a node that accepts at
// once. Compare BenchmarkSendTransaction/given-nonce for the public path.
//
//	go test -run XXX -bench 'GoQuorumSend|SendTransaction/given' -benchtime 5000x ./signer/
func BenchmarkGoQuorumSend(b *testing.B) {
	pa := ptmtest.StartInProcess(b, ptmtest.Conf{Dir: b.TempDir(), Keys: []string{"a"}, Extra: "q2tenabled = true\nq2tport = 0"})
	node := newFakeNode(b)
	node.instant = true
	node.setHook(func(w http.ResponseWriter, _ *http.Request, method string, body []byte) bool {
		if method != "eth_sendRawPrivateTransaction" {
			return false
		}
		var env struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &env)
		w.Write(result(env.ID, common.Hash{1}))
		return true
	})
	c, err := tessera.New(tessera.Config{URL: pa.Inst.Q2TURL()})
	if err != nil {
		b.Fatal(err)
	}
	s := signerFor(b, node, func(cfg *Config) { cfg.Tessera = c })
	data := hexutil.Encode(bytes.Repeat([]byte{0x60}, 1024))
	recipient := "Ko2bVqD+nNlNYL5EE7y3IdOnviftjiizpjRt+HTuFBs="
	runClients(b, s.URL, func(i int64) string {
		return `{"jsonrpc":"2.0","id":` + strconv.FormatInt(i, 10) + `,"method":"eth_sendTransaction","params":[{"from":"` + dev1.Hex() +
			`","gas":"0x30000","gasPrice":"0x0","nonce":"0x` + strconv.FormatInt(i, 16) + `","data":"` + data + `","privateFor":["` + recipient + `"]}]}`
	})
}
