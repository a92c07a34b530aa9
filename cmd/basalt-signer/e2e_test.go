package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"golang.org/x/crypto/scrypt"

	devnet "github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/privacy/privtx"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// signerBinary builds ./cmd/basalt-signer once per test binary.
func signerBinary(t testing.TB) string {
	t.Helper()
	return proctest.Build(t, "./cmd/basalt-signer")
}

// signerProc is a running basalt-signer.
type signerProc struct {
	URL      string
	DataPath string
	*proctest.Process
}

// startSigner runs basalt-signer with the global options (a free port, a
// data path) and args, and waits until /upcheck answers. The process is
// stopped when the test ends.
func startSigner(t *testing.T, args ...string) *signerProc {
	t.Helper()
	data := t.TempDir()
	full := append([]string{"--http-listen-port=0", "--data-path=" + data, "--logging=DEBUG"}, args...)
	cmd := exec.Command(signerBinary(t), full...)
	cmd.Env = append(os.Environ(), "ETHSIGNER_CHAIN_ID=") // no stray configuration
	p := &signerProc{DataPath: data, Process: proctest.Start(t, "signer", cmd, new(proctest.LogBuffer))}
	t.Cleanup(func() {
		if !p.Stop(os.Interrupt, 10*time.Second) {
			p.Kill()
		}
		if t.Failed() {
			t.Logf("signer logs:\n%s", p.Logs())
		}
	})
	p.WaitUp(t, 30*time.Second, 20*time.Millisecond, "start", func() bool {
		b, err := os.ReadFile(filepath.Join(data, portsFile))
		if err != nil {
			return false
		}
		for _, line := range strings.Split(string(b), "\n") {
			if port, ok := strings.CutPrefix(line, "http-jsonrpc="); ok {
				p.URL = "http://127.0.0.1:" + strings.TrimSpace(port)
			}
		}
		if p.URL == "" {
			return false
		}
		resp, err := http.Get(p.URL + "/upcheck")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	})
	return p
}

// runFailing runs basalt-signer and expects it to exit with an error.
func runFailing(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(signerBinary(t), append([]string{"--http-listen-port=0"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if cmd.ProcessState.ExitCode() != 1 {
			t.Errorf("exit code %d (%v), want 1: %s", cmd.ProcessState.ExitCode(), err, out.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("signer did not exit:\n%s", out.String())
	}
	return out.String()
}

// rpc posts a JSON-RPC body and returns status and body.
func rpc(t testing.TB, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

type answer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// callOK calls method and decodes the result into v.
func callOK(t testing.TB, url string, v any, method string, params ...any) {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	status, body := rpc(t, url, string(b))
	var a answer
	if err := json.Unmarshal([]byte(body), &a); err != nil || a.Error != nil || status != 200 {
		t.Fatalf("%s: %d %s", method, status, body)
	}
	if v != nil {
		if err := json.Unmarshal(a.Result, v); err != nil {
			t.Fatalf("%s: %s: %v", method, a.Result, err)
		}
	}
}

// callErr calls method and returns the HTTP status and the error.
func callErr(t testing.TB, url, method string, params ...any) (int, int, string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	status, body := rpc(t, url, string(b))
	var a answer
	if json.Unmarshal([]byte(body), &a) != nil || a.Error == nil {
		t.Fatalf("%s: want an error, got %d %s", method, status, body)
	}
	return status, a.Error.Code, a.Error.Message
}

// writeKeystore writes a V3 keystore for key (light scrypt) and its
// password file, and returns their paths.
func writeKeystore(t testing.TB, dir, name string, key *ecdsa.PrivateKey, password string) (string, string) {
	t.Helper()
	salt, iv := make([]byte, 32), make([]byte, 16)
	rand.Read(salt)
	rand.Read(iv)
	dk, err := scrypt.Key([]byte(password), salt, 1<<12, 8, 1, 32)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(dk[:16])
	text := make([]byte, 32)
	cipher.NewCTR(block, iv).XORKeyStream(text, crypto.FromECDSA(key))
	js := fmt.Sprintf(`{"address":"%x","crypto":{"cipher":"aes-128-ctr","ciphertext":"%x","cipherparams":{"iv":"%x"},"kdf":"scrypt","kdfparams":{"dklen":32,"n":4096,"p":1,"r":8,"salt":"%x"},"mac":"%x"},"id":"00000000-0000-4000-8000-000000000000","version":3}`,
		crypto.PubkeyToAddress(key.PublicKey), text, iv, salt, crypto.Keccak256(dk[16:32], text))
	kf, pf := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".password")
	if err := os.WriteFile(kf, []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pf, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return kf, pf
}

func devKey(t testing.TB, i int) *ecdsa.PrivateKey {
	k, err := crypto.HexToECDSA(devnet.DevAccounts[i].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// downstreamArgs points the signer at the node.
func downstreamArgs(t testing.TB, nodeURL string) []string {
	u, err := url.Parse(nodeURL)
	if err != nil {
		t.Fatal(err)
	}
	return []string{"--chain-id=1337", "--downstream-http-host=" + u.Hostname(), "--downstream-http-port=" + u.Port()}
}

// waitMined waits for the receipt of hash and returns it.
func waitMined(t testing.TB, n *testnode.Node, hash string) map[string]any {
	t.Helper()
	var receipt map[string]any
	testnode.WaitFor(t, 30*time.Second, "receipt of "+hash, func() bool {
		n.MustCall(&receipt, "eth_getTransactionReceipt", hash)
		return receipt != nil
	})
	return receipt
}

// aboveBaseFee is a gas price the dev node takes whatever its base fee:
// its minimum (1000 wei) plus twice the latest base fee.
func aboveBaseFee(t testing.TB, n *testnode.Node) *big.Int {
	t.Helper()
	var block struct {
		BaseFee *hexutil.Big `json:"baseFeePerGas"`
	}
	n.MustCall(&block, "eth_getBlockByNumber", "latest", false)
	price := big.NewInt(1000)
	if block.BaseFee != nil {
		price.Add(price, new(big.Int).Lsh(block.BaseFee.ToInt(), 1))
	}
	return price
}

// recoverAddress recovers the signer of digest from r ‖ s ‖ v (v 27/28).
func recoverAddress(t testing.TB, digest []byte, sigHex string) common.Address {
	t.Helper()
	sig, err := hexutil.Decode(sigHex)
	if err != nil || len(sig) != 65 || sig[64] < 27 {
		t.Fatalf("signature %s", sigHex)
	}
	sig[64] -= 27
	pub, err := crypto.SigToPub(digest, sig)
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(*pub)
}

// TestEndToEnd runs basalt-signer processes against a real basalt dev node
// that mines about one block per second.
func TestEndToEnd(t *testing.T) {
	node := testnode.Start(t, t.TempDir(), "--network=dev", "--miner-enabled",
		"--miner-coinbase=0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")
	dir := t.TempDir()
	kf, pf := writeKeystore(t, dir, "dev1", devKey(t, 1), "correct horse")
	signer := startSigner(t, append(downstreamArgs(t, node.URL), "file-based-signer", "-k", kf, "-p", pf)...)
	dev1 := devnet.DevAccounts[1].Address
	dev0 := devnet.DevAccounts[0].Address

	t.Run("send is mined", func(t *testing.T) {
		var accts []string
		callOK(t, signer.URL, &accts, "eth_accounts")
		if len(accts) != 1 || accts[0] != strings.ToLower(dev1.Hex()) {
			t.Fatalf("eth_accounts %v", accts)
		}
		var hash string
		callOK(t, signer.URL, &hash, "eth_sendTransaction", map[string]any{
			"from": dev1.Hex(), "to": dev0.Hex(), "value": "0x2a", "gasPrice": hexutil.EncodeBig(aboveBaseFee(t, node)), "gas": "0x5208"})
		receipt := waitMined(t, node, hash)
		if receipt["status"] != "0x1" || !strings.EqualFold(receipt["from"].(string), dev1.Hex()) {
			t.Errorf("receipt %v", receipt)
		}
		// An EIP-1559 transaction with only the tip: the signer adds
		// maxFeePerGas from the base fee.
		callOK(t, signer.URL, &hash, "eth_sendTransaction", map[string]any{
			"from": dev1.Hex(), "to": dev0.Hex(), "maxPriorityFeePerGas": "0x3e8"})
		if r := waitMined(t, node, hash); r["type"] != "0x2" || r["status"] != "0x1" {
			t.Errorf("1559 receipt %v", r)
		}
	})

	// What ethers' JsonRpcSigner.sendTransaction sends: no fee at all. The
	// node's minimum gas price (1000 wei) refuses the spec's default 0; the
	// signer takes the node's suggestion: legacy at eth_gasPrice on a zero
	// base fee, type 2 on a non-zero one.
	t.Run("send without fees is mined", func(t *testing.T) {
		var hash string
		callOK(t, signer.URL, &hash, "eth_sendTransaction", map[string]any{"from": dev1.Hex(), "to": dev0.Hex(), "value": "0x1"})
		receipt := waitMined(t, node, hash)
		var block struct {
			BaseFee *hexutil.Big `json:"baseFeePerGas"`
		}
		node.MustCall(&block, "eth_getBlockByNumber", receipt["blockNumber"], false)
		wantType := "0x0"
		if block.BaseFee != nil && block.BaseFee.ToInt().Sign() > 0 {
			wantType = "0x2"
		}
		if receipt["status"] != "0x1" || receipt["type"] != wantType {
			t.Errorf("base fee %v: receipt %v", block.BaseFee, receipt)
		}
		// An explicit legacy type gets eth_gasPrice, which covers the base
		// fee.
		callOK(t, signer.URL, &hash, "eth_sendTransaction", map[string]any{"from": dev1.Hex(), "to": dev0.Hex(), "type": "0x0"})
		if r := waitMined(t, node, hash); r["type"] != "0x0" || r["status"] != "0x1" {
			t.Errorf("legacy receipt %v", r)
		}
	})

	t.Run("personal_sign and eth_signTypedData_v4", func(t *testing.T) {
		// ethers' signMessage: [hex message, lower-case address].
		msg := []byte("Hello from basalt-signer")
		var sig string
		callOK(t, signer.URL, &sig, "personal_sign", hexutil.Encode(msg), strings.ToLower(dev1.Hex()))
		if rec := recoverAddress(t, accounts.TextHash(msg), sig); rec != dev1 {
			t.Errorf("personal_sign recovers to %s", rec.Hex())
		}
		// ethers' signTypedData: [lower-case address, JSON string]. The
		// digest is computed here with go-ethereum's apitypes, independently
		// of the signer's own encoder.
		td := apitypes.TypedData{
			Types: apitypes.Types{
				"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
				"Person":       {{Name: "name", Type: "string"}, {Name: "wallets", Type: "address[]"}},
				"Mail":         {{Name: "from", Type: "Person"}, {Name: "to", Type: "Person[]"}, {Name: "contents", Type: "string"}, {Name: "amount", Type: "uint256"}},
			},
			PrimaryType: "Mail",
			Domain:      apitypes.TypedDataDomain{Name: "Ether Mail", Version: "1", ChainId: math.NewHexOrDecimal256(1337), VerifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
			Message: apitypes.TypedDataMessage{
				"from":     map[string]any{"name": "Cow", "wallets": []any{"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826", "0xDeaDbeefdEAdbeefdEadbEEFdeadbeEFdEaDbeeF"}},
				"to":       []any{map[string]any{"name": "Bob", "wallets": []any{"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"}}},
				"contents": "Hello, Bob!",
				"amount":   "1000000000000000000000",
			},
		}
		digest, _, err := apitypes.TypedDataAndHash(td)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := json.Marshal(td)
		callOK(t, signer.URL, &sig, "eth_signTypedData_v4", strings.ToLower(dev1.Hex()), string(doc))
		if rec := recoverAddress(t, digest, sig); rec != dev1 {
			t.Errorf("eth_signTypedData_v4 recovers to %s", rec.Hex())
		}
		if st, code, msg := callErr(t, signer.URL, "personal_sign", "0x00", dev0.Hex()); st != 200 || code != -32000 || msg != "No unlocked account matches the Sender" {
			t.Errorf("unknown account: %d %d %s", st, code, msg)
		}
	})

	t.Run("eth_sign", func(t *testing.T) {
		key := devKey(t, 1)
		for _, msg := range []string{"Hello Joe", "0xdeadbeef", ""} {
			data := []byte(msg)
			if strings.HasPrefix(msg, "0x") {
				data = hexutil.MustDecode(msg)
			}
			want, _ := crypto.Sign(accounts.TextHash(data), key)
			want[64] += 27
			var got string
			callOK(t, signer.URL, &got, "eth_sign", dev1.Hex(), msg)
			if got != hexutil.Encode(want) {
				t.Errorf("%q: %s, want %x", msg, got, want)
			}
		}
		if st, code, msg := callErr(t, signer.URL, "eth_sign", dev0.Hex(), "x"); st != 200 || code != -32000 || msg != "No unlocked account matches the Sender" {
			t.Errorf("unknown account: %d %d %s", st, code, msg)
		}
	})

	t.Run("proxied calls are the node's", func(t *testing.T) {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`,
			`{"jsonrpc":"2.0","id":"x","method":"eth_getBlockByNumber","params":["0x0",true]}`,
			`{"jsonrpc":"2.0","id":2,"method":"no_such_method","params":[]}`,
			`{"jsonrpc":"2.0","id":3,"method":"eth_getBalance","params":["0xzz"]}`,
			`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":2,"method":"net_version","params":[]},{"jsonrpc":"2.0","id":3,"method":"eth_getBlockByNumber","params":["0x0",false]},{"jsonrpc":"2.0","method":"eth_chainId","params":[]}]`,
			`[]`,
			`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[` + strconv.Quote(dev0.Hex()) + `,"0x0"]}`,
			`not json`,
		} {
			ns, nb := rpc(t, node.URL, body)
			ss, sb := rpc(t, signer.URL, body)
			if ns != ss || nb != sb {
				t.Errorf("%s:\nnode   %d %s\nsigner %d %s", body, ns, nb, ss, sb)
			}
		}
		// eth_blockNumber moves; the two answers agree within a block.
		same := false
		for i := 0; i < 5 && !same; i++ {
			_, nb := rpc(t, node.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
			_, sb := rpc(t, signer.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
			same = nb == sb
		}
		if !same {
			t.Error("eth_blockNumber never matched the node's")
		}
		// A batch mixing the signer's and the node's methods.
		_, body := rpc(t, signer.URL, `[{"jsonrpc":"2.0","id":1,"method":"eth_accounts"},{"jsonrpc":"2.0","id":2,"method":"eth_chainId","params":[]}]`)
		if body != `[{"jsonrpc":"2.0","id":1,"result":["`+strings.ToLower(dev1.Hex())+`"]},{"jsonrpc":"2.0","id":2,"result":"0x539"}]` {
			t.Errorf("mixed batch: %s", body)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		var count0 hexutil.Uint64
		node.MustCall(&count0, "eth_getTransactionCount", dev1, "pending")
		for name, tc := range map[string]struct {
			method string
			tx     any
			status int
			code   int
			msg    string
		}{
			"malformed":        {"eth_sendTransaction", map[string]any{"from": dev1.Hex(), "gas": 21000}, 400, -32602, "Invalid params (gas must be a hex quantity string)"},
			"not an object":    {"eth_sendTransaction", "0x00", 400, -32602, "Invalid params (the transaction must be a JSON object)"},
			"wrong chain id":   {"eth_sendTransaction", map[string]any{"from": dev1.Hex(), "chainId": "0x1"}, 400, -32602, "Invalid params (chainId 1 does not match the signer's chain id 1337)"},
			"unknown from":     {"eth_sendTransaction", map[string]any{"from": dev0.Hex()}, 400, -32000, "No unlocked account matches the Sender"},
			"private value":    {"eea_sendTransaction", map[string]any{"from": dev1.Hex(), "value": "0x1", "privateFrom": "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=", "privateFor": []string{}, "restriction": "restricted"}, 400, -32602, "Invalid params (Non-zero value, private transactions cannot transfer ether)"},
			"private restrict": {"eea_sendTransaction", map[string]any{"from": dev1.Hex(), "privateFrom": "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=", "privateFor": []string{}, "restriction": "unrestricted"}, 400, -32602, `Invalid params (restriction must be "restricted")`},
		} {
			st, code, msg := callErr(t, signer.URL, tc.method, tc.tx)
			if st != tc.status || code != tc.code || msg != tc.msg {
				t.Errorf("%s: %d %d %q", name, st, code, msg)
			}
		}
		big := `{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"` + dev1.Hex() + `","data":"0x` + strings.Repeat("ab", 3<<20) + `"}]}`
		st, body := rpc(t, signer.URL, big)
		if st != 413 || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "request body larger than") {
			t.Errorf("oversized: %d %.200s", st, body)
		}
		var count1 hexutil.Uint64
		node.MustCall(&count1, "eth_getTransactionCount", dev1, "pending")
		if count1 != count0 {
			t.Errorf("bad input changed the nonce: %d -> %d", count0, count1)
		}
	})

	t.Run("eea_sendTransaction reaches the node", func(t *testing.T) {
		// The node has no privacy yet: its answer to eea_sendRawTransaction
		// comes back as it is.
		_, nb := rpc(t, node.URL, `{"jsonrpc":"2.0","id":1,"method":"eea_sendRawTransaction","params":["0x00"]}`)
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eea_sendTransaction", "params": []any{map[string]any{
			"from": dev1.Hex(), "nonce": "0x0", "privateFrom": "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=",
			"privacyGroupId": "DyAOiF/ynpc+JXa2YAGB0bCitSlOMNm+ShmB/7M6C4w=", "restriction": "restricted"}}})
		_, sb := rpc(t, signer.URL, string(b))
		var a, want answer
		json.Unmarshal([]byte(sb), &a)
		json.Unmarshal([]byte(nb), &want)
		if a.Error == nil || want.Error == nil || a.Error.Code != want.Error.Code || a.Error.Message != want.Error.Message {
			t.Errorf("signer %s, node %s", sb, nb)
		}
	})

	t.Run("200 concurrent sends from one account", func(t *testing.T) {
		acct := devnet.DevAccounts[2] // used by no other test: nonces start at 0
		kf, pf := writeKeystore(t, dir, "dev2", devKey(t, 2), "pw")
		s := startSigner(t, append(downstreamArgs(t, node.URL), "--logging=INFO", "file-based-signer", "-k", kf, "-p", pf)...)
		const n = 200
		hashes := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "eth_sendTransaction", "params": []any{map[string]any{
					"from": acct.Address.Hex(), "to": dev0.Hex(), "value": hexutil.EncodeUint64(uint64(i + 1)), "gas": "0x5208"}}})
				resp, err := http.Post(s.URL, "application/json", bytes.NewReader(b))
				if err != nil {
					t.Errorf("send %d: %v", i, err) // not Fatal: another goroutine
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var a answer
				if json.Unmarshal(body, &a) != nil || a.Error != nil || resp.StatusCode != 200 {
					t.Errorf("send %d: %d %s", i, resp.StatusCode, body)
					return
				}
				json.Unmarshal(a.Result, &hashes[i])
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		testnode.WaitFor(t, 60*time.Second, "200 transactions mined", func() bool {
			var c hexutil.Uint64
			node.MustCall(&c, "eth_getTransactionCount", acct.Address, "latest")
			return c == n
		})
		seen := map[uint64]bool{}
		for i, h := range hashes {
			var tx struct {
				Nonce       hexutil.Uint64 `json:"nonce"`
				Value       hexutil.Big    `json:"value"`
				BlockNumber *hexutil.Big   `json:"blockNumber"`
			}
			node.MustCall(&tx, "eth_getTransactionByHash", h)
			if tx.BlockNumber == nil || (*big.Int)(&tx.Value).Int64() != int64(i+1) {
				t.Errorf("tx %d (%s) not mined or wrong: %+v", i, h, tx)
			}
			seen[uint64(tx.Nonce)] = true
		}
		for i := range uint64(n) {
			if !seen[i] {
				t.Errorf("nonce %d missing", i)
			}
		}
	})

	t.Run("multikey directory gains a key at runtime", func(t *testing.T) {
		kdir := t.TempDir()
		k0 := devKey(t, 0)
		os.WriteFile(filepath.Join(kdir, strings.ToLower(dev0.Hex()[2:])+".toml"),
			[]byte(fmt.Sprintf("[signing]\ntype = \"raw-signer\"\nkey = \"%x\"\n", crypto.FromECDSA(k0))), 0o600)
		s := startSigner(t, append(downstreamArgs(t, node.URL), "multikey-signer", "-d", kdir)...)
		var accts []string
		callOK(t, s.URL, &accts, "eth_accounts")
		if strings.Join(accts, ",") != strings.ToLower(dev0.Hex()) {
			t.Fatalf("eth_accounts %v", accts)
		}
		// Add a file-based key: written elsewhere, then moved in.
		kf, pf := writeKeystore(t, kdir, "k1", devKey(t, 1), "pw")
		tmp := filepath.Join(t.TempDir(), "k.toml")
		os.WriteFile(tmp, []byte("[signing]\ntype = \"file-based-signer\"\nkey-file = \""+filepath.Base(kf)+"\"\npassword-file = \""+pf+"\"\n"), 0o600)
		if err := os.Rename(tmp, filepath.Join(kdir, "key_"+strings.ToLower(dev1.Hex()[2:])+".toml")); err != nil {
			t.Fatal(err)
		}
		// Usable at once (EthSigner issue #346), without eth_accounts first.
		var hash string
		callOK(t, s.URL, &hash, "eth_sendTransaction", map[string]any{"from": dev1.Hex(), "to": dev0.Hex(), "gas": "0x5208"})
		if r := waitMined(t, node, hash); r["status"] != "0x1" {
			t.Errorf("receipt %v", r)
		}
		callOK(t, s.URL, &accts, "eth_accounts")
		want := []string{strings.ToLower(dev0.Hex()), strings.ToLower(dev1.Hex())}
		if want[1] < want[0] {
			want[0], want[1] = want[1], want[0]
		}
		if strings.Join(accts, ",") != strings.Join(want, ",") {
			t.Errorf("eth_accounts %v, want %v", accts, want)
		}
	})
}

// TestHashicorpSigner runs the signer with its key in a fake Vault (KV v2),
// over HTTP and over TLS with a pinned certificate.
func TestHashicorpSigner(t *testing.T) {
	key := devKey(t, 2)
	addr := devnet.DevAccounts[2].Address
	vault := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Vault-Token") != "s.secret" {
			w.WriteHeader(403)
			w.Write([]byte(`{"errors":["permission denied"]}`))
			return
		}
		if r.URL.Path != "/v1/secret/data/ethsignerSigningKey" {
			w.WriteHeader(404)
			w.Write([]byte(`{"errors":[]}`))
			return
		}
		fmt.Fprintf(w, `{"data":{"data":{"value":"%x"},"metadata":{"version":1}}}`, crypto.FromECDSA(key))
	})
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	os.WriteFile(token, []byte("s.secret\n"), 0o600)
	// The node is not needed to list accounts; point at a closed port.
	ds := []string{"--chain-id=1337", "--downstream-http-port=" + strconv.Itoa(testnode.FreePort(t))}
	hostPort := func(u string) (string, string) {
		p, _ := url.Parse(u)
		return p.Hostname(), p.Port()
	}

	plain := httptest.NewServer(vault)
	defer plain.Close()
	h, p := hostPort(plain.URL)
	s := startSigner(t, append(ds, "hashicorp-signer", "--host", h, "--port", p, "--auth-file", token, "--tls-enabled", "false")...)
	var accts []string
	callOK(t, s.URL, &accts, "eth_accounts")
	if len(accts) != 1 || accts[0] != strings.ToLower(addr.Hex()) {
		t.Errorf("eth_accounts %v", accts)
	}
	// The node is down: a proxied call says so.
	if st, code, msg := callErr(t, s.URL, "eth_blockNumber"); st != 504 || code != -32000 || msg != "Failed to connect to downstream node" {
		t.Errorf("node down: %d %d %s", st, code, msg)
	}

	tlsSrv := httptest.NewTLSServer(vault)
	defer tlsSrv.Close()
	h, p = hostPort(tlsSrv.URL)
	fp := sha256.Sum256(tlsSrv.Certificate().Raw)
	known := filepath.Join(dir, "known")
	os.WriteFile(known, []byte(h+":"+p+" "+hex.EncodeToString(fp[:])+"\n"), 0o600)
	s = startSigner(t, append(ds, "hashicorp-signer", "--host", h, "--port", p, "--auth-file", token, "--tls-known-server-file", known)...)
	callOK(t, s.URL, &accts, "eth_accounts")
	if len(accts) != 1 || accts[0] != strings.ToLower(addr.Hex()) {
		t.Errorf("TLS eth_accounts %v", accts)
	}

	// Refusals stop the signer at start-up with a clear message.
	bad := filepath.Join(dir, "bad-token")
	os.WriteFile(bad, []byte("s.wrong"), 0o600)
	h, p = hostPort(plain.URL)
	if out := runFailing(t, append(ds, "hashicorp-signer", "--host", h, "--port", p, "--auth-file", bad, "--tls-enabled=false")...); !strings.Contains(out, "HTTP 403: permission denied") {
		t.Errorf("wrong token: %s", out)
	}
	h, p = hostPort(tlsSrv.URL)
	if out := runFailing(t, append(ds, "hashicorp-signer", "--host", h, "--port", p, "--auth-file", token)...); !strings.Contains(out, "certificate") {
		t.Errorf("unpinned TLS: %s", out)
	}
}

// TestStartupErrors checks that bad key stores stop the signer with a
// message naming the file.
func TestStartupErrors(t *testing.T) {
	dir := t.TempDir()
	ds := []string{"--chain-id=1337", "--downstream-http-port=" + strconv.Itoa(testnode.FreePort(t))}
	kf, _ := writeKeystore(t, dir, "k", devKey(t, 0), "right")
	wrong := filepath.Join(dir, "wrong.password")
	os.WriteFile(wrong, []byte("wrong\n"), 0o600)
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("{not json"), 0o600)
	kdir := t.TempDir()
	badToml := filepath.Join(kdir, strings.ToLower(devnet.DevAccounts[0].Address.Hex()[2:])+".toml")
	os.WriteFile(badToml, []byte("[signing]\ntype = \"file-based-signer\"\nkey-file = \"none.json\"\npassword-file = \"none.pw\"\n"), 0o600)

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"file-based-signer", "-k", kf, "-p", wrong}, []string{kf, wrong, "wrong password"}},
		{[]string{"file-based-signer", "-k", garbage, "-p", wrong}, []string{garbage, "not a V3 keystore"}},
		{[]string{"file-based-signer", "-k", filepath.Join(dir, "none.json"), "-p", wrong}, []string{"none.json", "no such file"}},
		{[]string{"multikey-signer", "-d", kdir}, []string{badToml, "none.json"}},
		{[]string{"multikey-signer", "-d", filepath.Join(dir, "nodir")}, []string{"nodir"}},
		{[]string{"raw-signer", "--key", "0x1234"}, []string{"--key", "the private key is 2 bytes"}},
	} {
		out := runFailing(t, append(ds, tc.args...)...)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q: %s", tc.args, w, out)
			}
		}
	}
}

// TestPrivateTransaction runs eea_sendTransaction through a signer process
// against a fake node that records the raw private transaction (Basalt's
// node side of privacy comes later): the RLP decodes and recovers to the
// sender, for chain 1337, with the nonce the node gave.
func TestPrivateTransaction(t *testing.T) {
	var (
		mu   sync.Mutex
		raws []string
		asks []string
	)
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		mu.Lock()
		defer mu.Unlock()
		switch req.Method {
		case "priv_getEeaTransactionCount", "priv_getTransactionCount":
			asks = append(asks, string(body))
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":"0x7"}`, req.ID)
		case "eea_sendRawTransaction":
			var raw string
			json.Unmarshal(req.Params[0], &raw)
			raws = append(raws, raw)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":"%s"}`, req.ID, crypto.Keccak256Hash(hexutil.MustDecode(raw)).Hex())
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, req.ID)
		}
	}))
	defer fake.Close()
	from := devnet.DevAccounts[1].Address
	s := startSigner(t, append(downstreamArgs(t, fake.URL), "raw-signer", "--key", devnet.DevAccounts[1].PrivateKey)...)

	const privateFrom, privateFor, group = "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=", "Ko2bVqD+nNlNYL5EE7y3IdOnviftjiizpjRt+HTuFBs=", "DyAOiF/ynpc+JXa2YAGB0bCitSlOMNm+ShmB/7M6C4w="
	var hash string
	callOK(t, s.URL, &hash, "eea_sendTransaction", map[string]any{
		"from": from.Hex(), "to": devnet.DevAccounts[0].Address.Hex(), "data": "0x60fe47b1", "gasPrice": "0x3e8",
		"privateFrom": privateFrom, "privateFor": []string{privateFor}, "restriction": "restricted"})
	callOK(t, s.URL, nil, "eea_sendTransaction", map[string]any{
		"from": from.Hex(), "privateFrom": privateFrom, "privacyGroupId": group, "restriction": "restricted"})

	mu.Lock()
	defer mu.Unlock()
	if len(raws) != 2 || len(asks) != 2 {
		t.Fatalf("raws %v asks %v", raws, asks)
	}
	if !strings.Contains(asks[0], `"method":"priv_getEeaTransactionCount","params":["`+strings.ToLower(from.Hex())+`","`+privateFrom+`",["`+privateFor+`"]]`) ||
		!strings.Contains(asks[1], `"method":"priv_getTransactionCount","params":["`+strings.ToLower(from.Hex())+`","`+group+`"]`) {
		t.Errorf("nonce requests %v", asks)
	}
	for i, raw := range raws {
		tx, err := privtx.Decode(hexutil.MustDecode(raw))
		if err != nil {
			t.Fatalf("tx %d: %v", i, err)
		}
		sender, err := tx.Sender()
		if err != nil || sender != from || tx.ChainID().Int64() != 1337 || tx.Nonce != 7 || tx.Restriction != "restricted" || tx.Value.Sign() != 0 {
			t.Errorf("tx %d: sender %s %v, %+v", i, sender.Hex(), err, tx)
		}
	}
	if crypto.Keccak256Hash(hexutil.MustDecode(raws[0])).Hex() != hash {
		t.Error("the node's answer was not returned")
	}
	first, _ := privtx.Decode(hexutil.MustDecode(raws[0]))
	second, _ := privtx.Decode(hexutil.MustDecode(raws[1]))
	if len(first.PrivateFor) != 1 || first.PrivacyGroupID != nil || hex.EncodeToString(first.Data) != "60fe47b1" ||
		*first.To != devnet.DevAccounts[0].Address || first.GasPrice.Int64() != 1000 || first.Gas != 90000 {
		t.Errorf("privateFor tx %+v", first)
	}
	if second.PrivacyGroupID == nil || second.PrivateFor != nil || second.To != nil {
		t.Errorf("group tx %+v", second)
	}
}

// baseFeeGenesis is a dev-like chain (chain 1337, ethash with a fixed
// difficulty, London from genesis) whose base fee starts at 1 gwei and
// then follows EIP-1559, so that the fee lookups meet a non-zero base fee
// whatever --network=dev uses.
const baseFeeGenesis = `{
  "config": {"chainId": 1337, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
    "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
    "berlinBlock": 0, "londonBlock": 0, "ethash": {"fixeddifficulty": 100}},
  "nonce": "0x42", "gasLimit": "0x1fffffffffffff", "difficulty": "0x10000", "baseFeePerGas": "0x3b9aca00",
  "alloc": {"627306090abab3a6e1400e9345bc60c78a8bef57": {"balance": "90000000000000000000000"}}
}`

// TestNonZeroBaseFee sends transactions without fees, and with half of the
// EIP-1559 fields, through a signer process in front of a node whose base
// fee is not zero: each becomes a type 2 transaction that is mined.
func TestNonZeroBaseFee(t *testing.T) {
	dir := t.TempDir()
	genesis := filepath.Join(dir, "genesis.json")
	if err := os.WriteFile(genesis, []byte(baseFeeGenesis), 0o600); err != nil {
		t.Fatal(err)
	}
	node := testnode.Start(t, t.TempDir(), "--genesis-file="+genesis, "--miner-enabled",
		"--miner-coinbase=0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")
	dev1 := devnet.DevAccounts[1].Address
	s := startSigner(t, append(downstreamArgs(t, node.URL), "raw-signer", "--key", devnet.DevAccounts[1].PrivateKey)...)

	for _, tc := range []struct {
		name string
		tx   map[string]any
		typ  string
	}{
		{"no fees", map[string]any{}, "0x2"},
		{"tip only", map[string]any{"maxPriorityFeePerGas": "0x3e8"}, "0x2"},
		{"cap only", map[string]any{"maxFeePerGas": "0xb2d05e00"}, "0x2"}, // 3 gwei
		{"legacy", map[string]any{"type": "0x0"}, "0x0"},
	} {
		tc.tx["from"], tc.tx["to"], tc.tx["value"] = dev1.Hex(), devnet.DevAccounts[0].Address.Hex(), "0x1"
		var hash string
		callOK(t, s.URL, &hash, "eth_sendTransaction", tc.tx)
		r := waitMined(t, node, hash)
		var block struct {
			BaseFee *hexutil.Big `json:"baseFeePerGas"`
		}
		node.MustCall(&block, "eth_getBlockByNumber", r["blockNumber"], false)
		if block.BaseFee == nil || block.BaseFee.ToInt().Sign() == 0 {
			t.Fatalf("%s: mined in a block without a base fee: %v", tc.name, block.BaseFee)
		}
		if r["status"] != "0x1" || r["type"] != tc.typ {
			t.Errorf("%s: base fee %v, receipt %v", tc.name, block.BaseFee, r)
		}
	}
}
