package privacy

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gorilla/websocket"
	"golang.org/x/crypto/scrypt"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/clique"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/privacy/privtx"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// storeRuntime is a hand-assembled contract: called with no data it returns
// slot 0; called with a 32-byte word it stores it in slot 0 and logs it
// (LOG1, topic 0x2a). storeInit deploys it.
const (
	storeRuntime = "36600f57600054600052602060" + "00f35b600035806000556000526" + "02a60206000a100"
	storeInit    = "0x6022806" + "00b6000396000f3" + storeRuntime
)

// privChainID is the chain of the privacy network.
const privChainID = 2018

// privNode is one member of the privacy network: a basalt node and its
// basalt-privacy.
type privNode struct {
	*testnode.P2PNode
	ptm   *ptmtest.Process
	key   string // the manager key, Base64
	wsURL string
}

// privacyGenesis is a free-gas Clique genesis (Berlin: no base fee) with the
// given signers and one-second blocks.
func privacyGenesis(t testing.TB, signers ...common.Address) string {
	t.Helper()
	extra := clique.GenesisExtra(signers...)
	g := fmt.Sprintf(`{
  "config": {"chainId": %d, "berlinBlock": 0,
    "clique": {"blockperiodseconds": 1, "epochlength": 30000, "createemptyblocks": true}},
  "difficulty": "0x1", "extraData": "%s", "gasLimit": "0x1fffffffffffff",
  "timestamp": "0x5c51a607", "alloc": {}
}`, privChainID, hexutil.Encode(extra))
	path := filepath.Join(t.TempDir(), "genesis.json")
	if err := os.WriteFile(path, []byte(g), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// startPrivacyNetwork starts three basalt-privacy processes (B and C boot
// from A; payloads in Pebble, so they survive restarts) and three Clique
// signer nodes, each with privacy on against its own manager (and
// nodeArgs).
func startPrivacyNetwork(t testing.TB, nodeArgs ...string) []*privNode {
	t.Helper()
	return startPrivacyNetworkOn(t, privacyGenesis, nodeArgs...)
}

// startPrivacyNetworkOn is startPrivacyNetwork on the genesis genesisFile
// writes for the signers.
func startPrivacyNetworkOn(t testing.TB, genesisFile func(testing.TB, ...common.Address) string, nodeArgs ...string) []*privNode {
	t.Helper()
	dir := t.TempDir()
	var ptms []*ptmtest.Process
	for i, name := range []string{"a", "b", "c"} {
		c := ptmtest.Conf{Dir: filepath.Join(dir, name), Keys: []string{name}, Storage: "pebble"}
		if i > 0 {
			c.OtherNodes = []string{ptms[0].NodeURL()}
		}
		ptms = append(ptms, ptmtest.StartProcess(t, c))
	}
	ptmtest.WaitFor(t, 30*time.Second, "managers to know each other", func() bool {
		for _, p := range ptms {
			r, err := p.Do("GET", "/knownnodes", "", nil)
			var known []any
			if err != nil || r.Status != 200 || json.Unmarshal(r.Body, &known) != nil || len(known) != 2 {
				return false
			}
		}
		return true
	})
	genesis := genesisFile(t, cliqueAddr(0), cliqueAddr(1), cliqueAddr(2))
	nodes := make([]*privNode, 3)
	t.Setenv("BASALT_TEST_PRIVACY_GENESIS", genesis)
	for i := range nodes {
		data := t.TempDir()
		keyFile := filepath.Join(data, "key")
		if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(cliqueKey(i)))), 0o600); err != nil {
			t.Fatal(err)
		}
		ws := testnode.FreePort(t)
		n := testnode.StartP2P(t, data, append([]string{"--genesis-file=" + genesis, "--node-private-key-file=" + keyFile,
			"--rpc-http-api=ETH,NET,WEB3,ADMIN,CLIQUE,EEA,PRIV", "--Xp2p-static-reconnect-seconds=1",
			"--rpc-ws-enabled", "--rpc-ws-host=127.0.0.1", "--rpc-ws-port=" + strconv.Itoa(ws), "--rpc-ws-api=ETH,PRIV"},
			append(privacyArgs(ptms[i]), nodeArgs...)...)...)
		nodes[i] = &privNode{P2PNode: n, ptm: ptms[i], key: ptms[i].Keys[0].String(), wsURL: "ws://127.0.0.1:" + strconv.Itoa(ws)}
	}
	testnode.Connect(t, nodes[0].P2PNode, nodes[1].P2PNode, nodes[2].P2PNode)
	return nodes
}

// privacyArgs are the options of a free-gas node whose manager is p.
func privacyArgs(p *ptmtest.Process) []string {
	return []string{"--min-gas-price=0", "--privacy-enabled",
		fmt.Sprintf("--privacy-url=http://127.0.0.1:%d", p.Conf.ClientPort),
		"--privacy-public-key-file=" + filepath.Join(p.Conf.Dir, p.Conf.Keys[0]+".pub")}
}

// startPrivacySigner runs basalt-signer in front of node with dev account
// 1's key.
func startPrivacySigner(t testing.TB, nodeURL string) string {
	t.Helper()
	dir := t.TempDir()
	key, err := crypto.HexToECDSA(config.DevAccounts[1].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	// A V3 keystore with light scrypt parameters.
	salt, iv := make([]byte, 32), make([]byte, 16)
	rand.Read(salt)
	rand.Read(iv)
	dk, err := scrypt.Key([]byte("pw"), salt, 1<<12, 8, 1, 32)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := aes.NewCipher(dk[:16])
	text := make([]byte, 32)
	cipher.NewCTR(blk, iv).XORKeyStream(text, crypto.FromECDSA(key))
	ks := fmt.Sprintf(`{"address":"%x","crypto":{"cipher":"aes-128-ctr","ciphertext":"%x","cipherparams":{"iv":"%x"},"kdf":"scrypt","kdfparams":{"dklen":32,"n":4096,"p":1,"r":8,"salt":"%x"},"mac":"%x"},"id":"00000000-0000-4000-8000-000000000000","version":3}`,
		crypto.PubkeyToAddress(key.PublicKey), text, iv, salt, crypto.Keccak256(dk[16:32], text))
	kf, pf := filepath.Join(dir, "key.json"), filepath.Join(dir, "pw")
	os.WriteFile(kf, []byte(ks), 0o600)
	os.WriteFile(pf, []byte("pw\n"), 0o600)
	port := nodeURL[strings.LastIndex(nodeURL, ":")+1:]
	data := t.TempDir()
	cmd := exec.Command(proctest.Build(t, "./cmd/basalt-signer"), "--http-listen-port=0", "--data-path="+data,
		"--chain-id="+strconv.Itoa(privChainID), "--downstream-http-host=127.0.0.1", "--downstream-http-port="+port,
		"file-based-signer", "-k", kf, "-p", pf)
	p := proctest.Start(t, "signer", cmd, new(proctest.LogBuffer))
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("signer logs:\n%s", p.Logs())
		}
	})
	return p.WaitSignerUp(t, data, 30*time.Second)
}

// rpcCall posts a JSON-RPC request to url and decodes the result into v.
func rpcCall(t testing.TB, url string, v any, method string, params ...any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(url, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage
		Error  *testnode.RPCError
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out.Error != nil {
		t.Fatalf("%s: %v", method, out.Error)
	}
	if v != nil {
		if err := json.Unmarshal(out.Result, v); err != nil {
			t.Fatalf("%s: %s: %v", method, out.Result, err)
		}
	}
}

type privReceipt struct {
	ContractAddress *common.Address `json:"contractAddress"`
	From            common.Address  `json:"from"`
	Status          string          `json:"status"`
	PrivacyGroupID  string          `json:"privacyGroupId"`
	CommitmentHash  common.Hash     `json:"commitmentHash"`
	RevertReason    hexutil.Bytes   `json:"revertReason"`
	FailureReason   string          `json:"failureReason"`
	BlockNumber     hexutil.Uint64  `json:"blockNumber"`
	Logs            []struct {
		Data hexutil.Bytes `json:"data"`
	} `json:"logs"`
}

func receiptOf(t *testing.T, n *privNode, pmt common.Hash) *privReceipt {
	t.Helper()
	var r *privReceipt
	n.MustCall(&r, "priv_getTransactionReceipt", pmt)
	return r
}

// waitPrivReceipt waits until the PMT is mined and n has its private receipt.
func waitPrivReceipt(t *testing.T, n *privNode, pmt common.Hash) *privReceipt {
	t.Helper()
	var r *privReceipt
	testnode.WaitFor(t, 30*time.Second, "private receipt of "+pmt.Hex(), func() bool {
		r = receiptOf(t, n, pmt)
		return r != nil
	})
	return r
}

// waitMined waits until the public receipt of tx exists on n.
func waitMined(t *testing.T, n *privNode, tx common.Hash) uint64 {
	t.Helper()
	var number uint64
	testnode.WaitFor(t, 30*time.Second, "receipt of "+tx.Hex(), func() bool {
		var r *struct {
			BlockNumber hexutil.Uint64 `json:"blockNumber"`
		}
		n.MustCall(&r, "eth_getTransactionReceipt", tx)
		if r != nil {
			number = uint64(r.BlockNumber)
		}
		return r != nil
	})
	return number
}

func privWord(v uint64) string {
	return hexutil.Encode(common.BigToHash(new(big.Int).SetUint64(v)).Bytes())
}

// stored reads the contract's slot 0 through priv_call at block ("latest"
// or a number), "" for a null answer.
func stored(t *testing.T, n *privNode, group string, contract common.Address, block string) string {
	t.Helper()
	var out *string
	n.MustCall(&out, "priv_call", group, map[string]any{"to": contract}, block)
	if out == nil {
		return ""
	}
	return *out
}

func b64key(s string) []byte {
	b, _ := base64.StdEncoding.DecodeString(s)
	return b
}

// signPriv signs a private transaction with key for chainID.
func signPriv(t *testing.T, tx *privtx.Transaction, key string, chainID int64) string {
	t.Helper()
	k, err := crypto.HexToECDSA(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Sign(big.NewInt(chainID), func(h []byte) ([]byte, error) { return crypto.Sign(h, k) }); err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return hexutil.Encode(raw)
}

// TestPrivacyNetwork is the acceptance test of private transactions with
// real processes: three basalt nodes (Clique signers), three
// basalt-privacy and a basalt-signer in front of node A.
func TestPrivacyNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("starts seven processes")
	}
	nodes := startPrivacyNetwork(t)
	a, b, c := nodes[0], nodes[1], nodes[2]
	signer := startPrivacySigner(t, a.URL)
	dev1 := config.DevAccounts[1].Address
	dev2 := config.DevAccounts[2]
	group, err := privacy.LegacyGroup(b64key(a.key), [][]byte{b64key(b.key)})
	if err != nil {
		t.Fatal(err)
	}
	groupID := base64.StdEncoding.EncodeToString(group[:])

	// A deploys a private contract for A and B through the signer.
	var pmt common.Hash
	rpcCall(t, signer, &pmt, "eea_sendTransaction", map[string]any{"from": dev1, "data": storeInit, "gas": "0x100000",
		"privateFrom": a.key, "privateFor": []string{b.key}, "restriction": "restricted"})
	ra := waitPrivReceipt(t, a, pmt)
	contract := privacy.ContractAddress(dev1, 0, group)
	if ra.ContractAddress == nil || *ra.ContractAddress != contract || ra.Status != "0x1" || ra.PrivacyGroupID != groupID ||
		ra.From != dev1 || ra.CommitmentHash != pmt {
		t.Fatalf("receipt on A: %+v, want contract %s in group %s", ra, contract.Hex(), groupID)
	}
	rb := waitPrivReceipt(t, b, pmt)
	if rb.ContractAddress == nil || *rb.ContractAddress != contract {
		t.Fatalf("receipt on B: %+v", rb)
	}
	waitMined(t, c, pmt)
	if r := receiptOf(t, c, pmt); r != nil {
		t.Fatalf("C has a private receipt: %+v", r)
	}
	var code string
	c.MustCall(&code, "priv_getCode", groupID, contract, "latest")
	if code != "0x" {
		t.Fatalf("C has private code %s", code)
	}
	a.MustCall(&code, "priv_getCode", groupID, contract, "latest")
	if code != "0x"+storeRuntime {
		t.Fatalf("A's private code %s", code)
	}
	// C's manager holds nothing under the marker's key.
	var pmtTx struct {
		Input hexutil.Bytes `json:"input"`
	}
	a.MustCall(&pmtTx, "eth_getTransactionByHash", pmt)
	if got, r, _ := c.ptm.Receive(base64.StdEncoding.EncodeToString(pmtTx.Input), nil); got != nil || r == nil || r.Status != 404 {
		t.Fatalf("C's manager answered %v %v", got, r)
	}
	for _, n := range []*privNode{a, b} {
		if v := stored(t, n, groupID, contract, "latest"); v != privWord(0) {
			t.Fatalf("priv_call on %s: %s", n.URL, v)
		}
	}

	// B subscribes on A over WebSocket; B changes the state.
	ws, _, err := websocket.DefaultDialer.Dial(a.wsURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "priv_subscribe", "params": []any{groupID, "logs", map[string]any{}}})
	var subAns struct {
		Result string
		Error  any
	}
	if err := ws.ReadJSON(&subAns); err != nil || subAns.Result == "" {
		t.Fatalf("priv_subscribe: %+v %v", subAns, err)
	}
	var filterID string
	a.MustCall(&filterID, "priv_newFilter", groupID, map[string]any{})
	set := &privtx.Transaction{Nonce: 0, GasPrice: new(big.Int), Gas: 100000, To: &contract, Value: new(big.Int),
		Data: common.BigToHash(big.NewInt(7)).Bytes(), PrivateFrom: b64key(b.key), PrivateFor: [][]byte{b64key(a.key)},
		Restriction: privtx.Restricted}
	var pmt2 common.Hash
	b.MustCall(&pmt2, "eea_sendRawTransaction", signPriv(t, set, dev2.PrivateKey, privChainID))
	r2 := waitPrivReceipt(t, a, pmt2)
	if r2.Status != "0x1" || len(r2.Logs) != 1 || hexutil.Encode(r2.Logs[0].Data) != privWord(7) {
		t.Fatalf("B's set on A: %+v", r2)
	}
	if v := stored(t, a, groupID, contract, "latest"); v != privWord(7) {
		t.Fatalf("A reads %s after B's set", v)
	}
	ws.SetReadDeadline(time.Now().Add(20 * time.Second))
	var note struct {
		Method string
		Params struct {
			Subscription string
			Result       struct {
				Data            hexutil.Bytes
				TransactionHash common.Hash
			}
		}
	}
	if err := ws.ReadJSON(&note); err != nil || note.Method != "priv_subscription" || note.Params.Subscription != subAns.Result ||
		hexutil.Encode(note.Params.Result.Data) != privWord(7) || note.Params.Result.TransactionHash != pmt2 {
		t.Fatalf("notification %+v %v", note, err)
	}
	var logs []struct {
		Data hexutil.Bytes `json:"data"`
	}
	a.MustCall(&logs, "priv_getFilterChanges", groupID, filterID)
	if len(logs) != 1 || hexutil.Encode(logs[0].Data) != privWord(7) {
		t.Fatalf("priv_getFilterChanges: %+v", logs)
	}
	a.MustCall(&logs, "priv_getFilterChanges", groupID, filterID)
	if len(logs) != 0 {
		t.Fatalf("second priv_getFilterChanges: %+v", logs)
	}
	a.MustCall(&logs, "priv_getFilterLogs", groupID, filterID)
	if len(logs) != 1 {
		t.Fatalf("priv_getFilterLogs: %+v", logs)
	}
	var uninstalled bool
	if a.MustCall(&uninstalled, "priv_uninstallFilter", groupID, filterID); !uninstalled {
		t.Fatal("priv_uninstallFilter: false")
	}
	if _, err := a.Call("priv_getFilterChanges", groupID, filterID); err == nil || !strings.Contains(err.Error(), "Filter not found") {
		t.Fatalf("uninstalled filter: %v", err)
	}
	a.MustCall(&logs, "priv_getLogs", groupID, map[string]any{"fromBlock": "earliest"})
	if len(logs) != 1 || hexutil.Encode(logs[0].Data) != privWord(7) {
		t.Fatalf("priv_getLogs: %+v", logs)
	}
	c.MustCall(&logs, "priv_getLogs", groupID, map[string]any{"fromBlock": "earliest"})
	if len(logs) != 0 {
		t.Fatalf("C's priv_getLogs: %+v", logs)
	}

	// Private nonces count per group.
	var count hexutil.Uint64
	a.MustCall(&count, "priv_getTransactionCount", dev1, groupID)
	if count != 1 {
		t.Fatalf("priv_getTransactionCount %d", count)
	}
	a.MustCall(&count, "priv_getEeaTransactionCount", dev1, a.key, []string{b.key})
	if count != 1 {
		t.Fatalf("priv_getEeaTransactionCount %d", count)
	}
	b.MustCall(&count, "priv_getTransactionCount", dev2.Address, groupID)
	if count != 1 {
		t.Fatalf("B's sender count %d", count)
	}
	var ptx struct {
		From        common.Address `json:"from"`
		PrivateFrom string         `json:"privateFrom"`
		PrivateFor  []string       `json:"privateFor"`
		Restriction string         `json:"restriction"`
	}
	a.MustCall(&ptx, "priv_getPrivateTransaction", pmt)
	if ptx.From != dev1 || ptx.PrivateFrom != a.key || len(ptx.PrivateFor) != 1 || ptx.PrivateFor[0] != b.key || ptx.Restriction != "restricted" {
		t.Fatalf("priv_getPrivateTransaction %+v", ptx)
	}
	var none *struct{}
	c.MustCall(&none, "priv_getPrivateTransaction", pmt)
	if none != nil {
		t.Fatal("C gets the private transaction")
	}

	t.Run("privacy groups", func(t *testing.T) {
		var id string
		a.MustCall(&id, "priv_createPrivacyGroup", map[string]any{"addresses": []string{a.key, b.key}, "name": "ab", "description": "A and B"})
		var found []struct {
			PrivacyGroupID string   `json:"privacyGroupId"`
			Type           string   `json:"type"`
			Members        []string `json:"members"`
		}
		a.MustCall(&found, "priv_findPrivacyGroup", []string{b.key, a.key})
		ok := false
		for _, g := range found {
			ok = ok || (g.PrivacyGroupID == id && g.Type == "PANTHEON")
		}
		if !ok {
			t.Fatalf("find: %+v, want %s", found, id)
		}
		// A transaction to the group by privacyGroupId, through the signer.
		var pmt3 common.Hash
		rpcCall(t, signer, &pmt3, "eea_sendTransaction", map[string]any{"from": dev1, "data": storeInit, "gas": "0x100000",
			"privateFrom": a.key, "privacyGroupId": id, "restriction": "restricted"})
		r := waitPrivReceipt(t, b, pmt3)
		gid := common.BytesToHash(b64key(id))
		if r.PrivacyGroupID != id || r.ContractAddress == nil || *r.ContractAddress != privacy.ContractAddress(dev1, 0, gid) {
			t.Fatalf("group receipt %+v", r)
		}
		var deleted string
		a.MustCall(&deleted, "priv_deletePrivacyGroup", id)
		if deleted != id {
			t.Fatalf("deleted %q", deleted)
		}
		_, err := a.Call("priv_deletePrivacyGroup", id)
		if e, ok := err.(*testnode.RPCError); !ok || e.Code != -50100 || e.Message != "Error deleting privacy group" {
			t.Fatalf("second delete: %v", err)
		}
	})

	t.Run("validation errors", func(t *testing.T) {
		base := func() *privtx.Transaction {
			return &privtx.Transaction{Nonce: 1, GasPrice: new(big.Int), Gas: 100000, To: &contract, Value: new(big.Int),
				PrivateFrom: b64key(a.key), PrivateFor: [][]byte{b64key(b.key)}, Restriction: privtx.Restricted}
		}
		dev1Key := config.DevAccounts[1].PrivateKey
		with := func(f func(*privtx.Transaction)) string {
			tx := base()
			f(tx)
			return signPriv(t, tx, dev1Key, privChainID)
		}
		badSig := func() string {
			tx := base()
			signPriv(t, tx, dev1Key, privChainID)
			tx.S = new(big.Int)
			raw, _ := tx.MarshalBinary()
			return hexutil.Encode(raw)
		}()
		for name, tc := range map[string]struct {
			params  []any
			code    int
			message string
		}{
			"undecodable":    {[]any{"0xc0"}, -50100, "Unable to decode the private signed raw transaction"},
			"value":          {[]any{with(func(tx *privtx.Transaction) { tx.Value = big.NewInt(1) })}, -50100, "We cannot transfer ether in private transaction yet."},
			"unrestricted":   {[]any{with(func(tx *privtx.Transaction) { tx.Restriction = privtx.Unrestricted })}, -50100, "Unsupported private transaction type"},
			"wrong chain":    {[]any{signPriv(t, base(), dev1Key, 999)}, -32000, "Wrong chainId"},
			"bad signature":  {[]any{badSig}, -32002, "Invalid signature"},
			"nonce too low":  {[]any{with(func(tx *privtx.Transaction) { tx.Nonce = 0 })}, -32001, "Nonce too low"},
			"nonce too high": {[]any{with(func(tx *privtx.Transaction) { tx.Nonce = 5 })}, -32006, "Nonce too high"},
			"private from":   {[]any{with(func(tx *privtx.Transaction) { tx.PrivateFrom, tx.PrivateFor = b64key(b.key), [][]byte{b64key(a.key)} })}, -50100, "Private from does not match enclave public key"},
			"unknown group":  {[]any{with(func(tx *privtx.Transaction) { tx.Nonce, tx.PrivateFor, tx.PrivacyGroupID = 0, nil, make([]byte, 32) })}, -50100, "Privacy group does not exist."},
			"param count":    {[]any{}, -32602, "Invalid transaction params (missing or incorrect)"},
			"param not hex":  {[]any{"0xzz"}, -32602, "Invalid transaction params (missing or incorrect)"},
			"param null":     {[]any{nil}, -32602, "Invalid transaction params (missing or incorrect)"},
			"param number":   {[]any{12}, -32602, "Invalid transaction params (missing or incorrect)"},
			"odd hex":        {[]any{"c0c"}, -50100, "Unable to decode the private signed raw transaction"},
		} {
			_, err := a.Call("eea_sendRawTransaction", tc.params...)
			if e, ok := err.(*testnode.RPCError); !ok || e.Code != tc.code || e.Message != tc.message {
				t.Errorf("%s: got %v, want %d %s", name, err, tc.code, tc.message)
			}
		}
		var addr string
		a.MustCall(&addr, "priv_getPrivacyPrecompileAddress")
		if addr != "0x000000000000000000000000000000000000007e" {
			t.Errorf("precompile address %s", addr)
		}
	})

	t.Run("a failed transaction says why", func(t *testing.T) {
		// Init code reverting with Error("no"): CODECOPY of the 100 bytes
		// after the 15-byte prefix, REVERT; then init code hitting INVALID.
		errorNo := hexutil.MustDecode("0x08c379a0" + strings.Repeat("0", 62) + "20" + strings.Repeat("0", 62) + "02" + "6e6f" + strings.Repeat("0", 60))
		reverting := append(hexutil.MustDecode("0x61006461000f6000396100646000fd"), errorNo...)
		for _, tc := range []struct {
			init    []byte
			revert  []byte
			failure string
		}{
			{reverting, errorNo, "Execution reverted (no)"},
			{[]byte{0xfe}, nil, "Invalid opcode: 0xfe"},
		} {
			var nonce hexutil.Uint64
			a.MustCall(&nonce, "priv_getTransactionCount", dev1, groupID)
			tx := &privtx.Transaction{Nonce: uint64(nonce), GasPrice: new(big.Int), Gas: 100000, Value: new(big.Int), Data: tc.init,
				PrivateFrom: b64key(a.key), PrivateFor: [][]byte{b64key(b.key)}, Restriction: privtx.Restricted}
			var pmt common.Hash
			a.MustCall(&pmt, "eea_sendRawTransaction", signPriv(t, tx, config.DevAccounts[1].PrivateKey, privChainID))
			r := waitPrivReceipt(t, b, pmt)
			if r.Status != "0x0" || !bytes.Equal(r.RevertReason, tc.revert) || r.FailureReason != tc.failure || r.ContractAddress != nil {
				t.Fatalf("receipt %+v, want revertReason %x and failureReason %q", r, tc.revert, tc.failure)
			}
		}
	})

	t.Run("member killed while markers are mined", func(t *testing.T) {
		from := a.BlockNumber()
		var last common.Hash
		for i := uint64(1); i <= 4; i++ {
			tx := &privtx.Transaction{Nonce: i, GasPrice: new(big.Int), Gas: 100000, To: &contract, Value: new(big.Int),
				Data: common.BigToHash(new(big.Int).SetUint64(100 + i)).Bytes(), PrivateFrom: b64key(a.key), PrivateFor: [][]byte{b64key(b.key)},
				Restriction: privtx.Restricted}
			raw := signPriv(t, tx, config.DevAccounts[1].PrivateKey, privChainID)
			if i%2 == 0 {
				raw = strings.TrimPrefix(raw, "0x") // web3js-quorum's form, as Besu takes it
			}
			a.MustCall(&last, "eea_sendRawTransaction", raw)
			if i == 2 {
				b.RestartAfter(syscall.SIGKILL)
				b.AddPeer(a.P2PNode)
				b.AddPeer(c.P2PNode)
				b.WaitPeers(2, 30*time.Second)
			}
			waitPrivReceipt(t, a, last)
		}
		waitPrivReceipt(t, b, last)
		head := min(a.BlockNumber(), b.BlockNumber())
		for n := from; n <= head; n++ {
			at := hexutil.EncodeUint64(n)
			if va, vb := stored(t, a, groupID, contract, at), stored(t, b, groupID, contract, at); va != vb {
				t.Fatalf("block %d: A reads %s, B reads %s", n, va, vb)
			}
		}
		if v := stored(t, b, groupID, contract, "latest"); v != privWord(104) {
			t.Fatalf("B reads %s after the restart", v)
		}
	})

	t.Run("manager down stops the member at that block", func(t *testing.T) {
		var nonce hexutil.Uint64
		a.MustCall(&nonce, "priv_getTransactionCount", dev1, groupID)
		tx := &privtx.Transaction{Nonce: uint64(nonce), GasPrice: new(big.Int), Gas: 100000, To: &contract, Value: new(big.Int),
			Data: common.BigToHash(big.NewInt(200)).Bytes(), PrivateFrom: b64key(a.key), PrivateFor: [][]byte{b64key(b.key)},
			Restriction: privtx.Restricted}
		// The payload reaches B's manager, which then goes down before the
		// marker (made here by hand, as Besu builds one) is mined.
		var key hexutil.Bytes
		a.MustCall(&key, "priv_distributeRawTransaction", strings.TrimPrefix(signPriv(t, tx, config.DevAccounts[1].PrivateKey, privChainID), "0x"))
		b.ptm.Stop(syscall.SIGTERM)
		k, _ := crypto.GenerateKey()
		pc := common.HexToAddress("0x7e")
		marker, err := types.SignTx(types.NewTx(&types.LegacyTx{GasPrice: new(big.Int), Gas: 100000, To: &pc, Value: new(big.Int), Data: key}),
			types.HomesteadSigner{}, k)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := marker.MarshalBinary()
		var hash common.Hash
		a.MustCall(&hash, "eth_sendRawTransaction", hexutil.Encode(raw))
		at := waitMined(t, a, hash)
		testnode.WaitFor(t, 30*time.Second, "A to move on", func() bool { return a.BlockNumber() >= at+3 })
		if n := b.BlockNumber(); n >= at {
			t.Fatalf("B is at block %d without its manager; the marker is in block %d", n, at)
		}
		b.ptm.Restart()
		r := waitPrivReceipt(t, b, hash)
		if r.Status != "0x1" || uint64(r.BlockNumber) != at {
			t.Fatalf("B's receipt after the manager is back: %+v", r)
		}
		if va, vb := stored(t, a, groupID, contract, "latest"), stored(t, b, groupID, contract, hexutil.EncodeUint64(at)); va != privWord(200) || vb != va {
			t.Fatalf("A reads %s, B reads %s", va, vb)
		}
		ptmtest.WaitFor(t, 30*time.Second, "A's manager to know B's again", func() bool {
			r, err := a.ptm.Do("GET", "/knownnodes", "", nil)
			var known []any
			return err == nil && r.Status == 200 && json.Unmarshal(r.Body, &known) == nil && len(known) == 2
		})
	})

	t.Run("transaction signed by ethers.js", func(t *testing.T) {
		script, _ := filepath.Abs("../../test/ethers/privtx.mjs")
		if _, err := os.Stat(filepath.Join(filepath.Dir(script), "node_modules")); err != nil {
			t.Skip("test/ethers/node_modules is absent: run `npm ci` in test/ethers")
		}
		nodeJS, err := exec.LookPath("node")
		if err != nil {
			t.Skip("Node.js is not on PATH")
		}
		dev0 := config.DevAccounts[0]
		cmd := exec.Command(nodeJS, script)
		cmd.Env = append(os.Environ(), "KEY=0x"+dev0.PrivateKey, "CHAIN_ID="+strconv.Itoa(privChainID), "NONCE=0", "GAS=200000",
			"TO="+contract.Hex(), "DATA="+privWord(300), "PRIVATE_FROM="+a.key, "PRIVATE_FOR="+b.key)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		rawHex := strings.TrimSpace(string(out))
		// Our codec reads what ethers wrote, and writes it back byte for byte.
		raw, err := hexutil.Decode(rawHex)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := privtx.Decode(raw)
		if err != nil {
			t.Fatalf("decode ethers' transaction: %v", err)
		}
		if from, err := dec.Sender(); err != nil || from != dev0.Address {
			t.Fatalf("sender %s %v, want %s", from.Hex(), err, dev0.Address.Hex())
		}
		if again, _ := dec.MarshalBinary(); hexutil.Encode(again) != rawHex {
			t.Fatalf("re-encoded %x, ethers wrote %s", again, rawHex)
		}
		var hash common.Hash
		a.MustCall(&hash, "eea_sendRawTransaction", rawHex)
		r := waitPrivReceipt(t, b, hash)
		if r.Status != "0x1" || r.From != dev0.Address {
			t.Fatalf("receipt %+v", r)
		}
		if v := stored(t, b, groupID, contract, "latest"); v != privWord(300) {
			t.Fatalf("B reads %s", v)
		}
	})

	t.Run("full sync and blocks import rebuild a member's private state", func(t *testing.T) {
		genesis := os.Getenv("BASALT_TEST_PRIVACY_GENESIS")
		head := a.BlockNumber()
		// D, a new node with B's manager, syncs the chain from A.
		dDir := t.TempDir()
		d := testnode.StartP2P(t, dDir, append([]string{"--genesis-file=" + genesis, "--rpc-http-api=ETH,PRIV"}, privacyArgs(b.ptm)...)...)
		d.AddPeer(a.P2PNode)
		testnode.WaitFor(t, 60*time.Second, "D to sync", func() bool { return d.BlockNumber() >= head })
		// B, the reference, may be a block behind A too.
		testnode.WaitFor(t, 60*time.Second, "B at A's head", func() bool { return b.BlockNumber() >= head })
		dn := &privNode{P2PNode: d}
		samePrivateState := func(n *privNode, to uint64) {
			t.Helper()
			for h := uint64(1); h <= to; h++ {
				at := hexutil.EncodeUint64(h)
				if vb, vn := stored(t, b, groupID, contract, at), stored(t, n, groupID, contract, at); vb != vn {
					t.Fatalf("block %d: B reads %s, %s reads %s", h, vb, n.URL, vn)
				}
			}
		}
		samePrivateState(dn, head)
		if v := stored(t, dn, groupID, contract, hexutil.EncodeUint64(head)); v != privWord(300) && v != privWord(200) {
			t.Fatalf("D reads %s at %d", v, head)
		}
		// Its blocks, exported and imported into an empty data path with
		// privacy on, give the same private state.
		d.Stop(syscall.SIGTERM)
		file := filepath.Join(t.TempDir(), "blocks.rlp")
		if out, err := exec.Command(testnode.Binary(t), "--data-path="+dDir, "--genesis-file="+genesis, "blocks", "export",
			"--to="+file, "--end-block="+strconv.FormatUint(head, 10)).CombinedOutput(); err != nil {
			t.Fatalf("export: %v\n%s", err, out)
		}
		eDir := t.TempDir()
		// --min-gas-price (privacyArgs' first) is the node's, not import's.
		args := append([]string{"--data-path=" + eDir, "--genesis-file=" + genesis}, privacyArgs(b.ptm)[1:]...)
		if out, err := exec.Command(testnode.Binary(t), append(args, "blocks", "import", "--from="+file, "--no-progress")...).CombinedOutput(); err != nil {
			t.Fatalf("import: %v\n%s", err, out)
		}
		e := testnode.Start(t, eDir, append([]string{"--genesis-file=" + genesis, "--rpc-http-api=ETH,PRIV"}, privacyArgs(b.ptm)...)...)
		samePrivateState(&privNode{P2PNode: &testnode.P2PNode{Node: e}}, head)
	})
}

// TestPrivacyStartupErrors: a node with privacy on refuses to start, with
// Besu's message or one naming the option, when it could not work. Among
// them: markers signed by fresh keys on a chain whose blocks have a base
// fee (--network=dev), even with --min-gas-price=0, as they would be
// acknowledged and never mined.
func TestPrivacyStartupErrors(t *testing.T) {
	dir := t.TempDir()
	pub := filepath.Join(dir, "k.pub")
	os.WriteFile(pub, []byte(base64.StdEncoding.EncodeToString(make([]byte, 32))+"\n"), 0o644)
	marker := filepath.Join(dir, "marker.key")
	os.WriteFile(marker, []byte(config.DevAccounts[0].PrivateKey), 0o600)
	down := "http://127.0.0.1:" + strconv.Itoa(testnode.FreePort(t))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--privacy-enabled", "--privacy-public-key-file=" + pub, "--privacy-url=" + down},
			"Not a free gas network. --privacy-marker-transaction-signing-key-file must be specified"},
		{[]string{"--privacy-enabled", "--privacy-public-key-file=" + pub, "--privacy-url=" + down, "--min-gas-price=0"},
			"Not a free gas network. --privacy-marker-transaction-signing-key-file must be specified and must be a funded account. " +
				"Private transactions cannot be signed by random (non-funded) accounts in paid gas networks (--network=dev activates London at block 0: " +
				"every block has an EIP-1559 base fee"},
		{[]string{"--privacy-enabled", "--privacy-public-key-file=" + pub, "--privacy-url=" + down, "--min-gas-price=0",
			"--privacy-marker-transaction-signing-key-file=" + marker},
			"privacy manager at " + down + " (--privacy-url) is not up"},
		{[]string{"--privacy-enabled", "--min-gas-price=0"}, "Please specify Enclave public key file path to enable privacy"},
	} {
		out, err := exec.Command(testnode.Binary(t), append([]string{"--data-path=" + t.TempDir(), "--network=dev"}, tc.args...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: %v\n%s\nwant %q", tc.args, err, out, tc.want)
		}
	}
}

// TestPrivacyMultiTenancy: with --privacy-multi-tenancy-enabled the
// manager key a request acts for is its JWT's privacyPublicKey claim.
func TestPrivacyMultiTenancy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a manager and a node")
	}
	p := ptmtest.StartProcess(t, ptmtest.Conf{Dir: t.TempDir(), Keys: []string{"t1", "t2"}})
	t1, t2 := p.Keys[0].String(), p.Keys[1].String()
	hash, err := exec.Command(testnode.Binary(t), "password", "hash", "--password=pw").Output()
	if err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(t.TempDir(), "auth.toml")
	os.WriteFile(creds, []byte(fmt.Sprintf("[Users.tenant1]\npassword = %q\npermissions = [\"*:*\"]\nprivacyPublicKey = %q\n",
		strings.TrimSpace(string(hash)), t1)), 0o600)
	marker := filepath.Join(t.TempDir(), "marker.key")
	os.WriteFile(marker, []byte(config.DevAccounts[0].PrivateKey), 0o600)
	n := testnode.Start(t, t.TempDir(), "--network=dev", "--min-gas-price=0", "--rpc-http-api=ETH,PRIV,EEA",
		"--privacy-marker-transaction-signing-key-file="+marker,
		"--rpc-http-authentication-enabled", "--rpc-http-authentication-credentials-file="+creds,
		"--privacy-enabled", "--privacy-multi-tenancy-enabled", fmt.Sprintf("--privacy-url=http://127.0.0.1:%d", p.Conf.ClientPort))
	n.Token = loginAt(t, n.URL, "tenant1", "pw")
	dev1 := config.DevAccounts[1].Address
	var count hexutil.Uint64
	n.MustCall(&count, "priv_getEeaTransactionCount", dev1, t1, []string{t2})
	if count != 0 {
		t.Fatalf("count %d", count)
	}
	// Another tenant's key is refused.
	if _, err := n.Call("priv_getEeaTransactionCount", dev1, t2, []string{t1}); err == nil ||
		!strings.Contains(err.Error(), "Private from does not match enclave public key") {
		t.Fatalf("other tenant's key: %v", err)
	}
	// A group is created on behalf of the tenant's key.
	var id string
	n.MustCall(&id, "priv_createPrivacyGroup", map[string]any{"addresses": []string{t1, t2}})
	if id == "" {
		t.Fatal("no group id")
	}
}

// TestPrivacyDisabled: the EEA and PRIV methods of a node without
// --privacy-enabled answer Besu's -50100 "Privacy is not enabled".
func TestPrivacyDisabled(t *testing.T) {
	n := testnode.Start(t, t.TempDir(), "--network=dev", "--rpc-http-api=ETH,EEA,PRIV")
	for _, m := range []string{"eea_sendRawTransaction", "priv_getPrivacyPrecompileAddress", "priv_getTransactionCount"} {
		_, err := n.Call(m, "0x00")
		if e, ok := err.(*testnode.RPCError); !ok || e.Code != -50100 || e.Message != "Privacy is not enabled" {
			t.Errorf("%s: %v", m, err)
		}
	}
}
