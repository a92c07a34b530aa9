package rpc

import (
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

func post(t *testing.T, url, host, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// TestJSONRPCCore checks the server core and the node's methods over HTTP
// against a dev node that does not mine, so the pool's state is stable.
func TestJSONRPCCore(t *testing.T) {
	n := testnode.Start(t, t.TempDir(), "--network=dev", "--rpc-http-api=ETH,NET,WEB3,MINER")

	t.Run("simple methods", func(t *testing.T) {
		var s string
		n.MustCall(&s, "net_version")
		if s != "1337" {
			t.Fatalf("net_version %q", s)
		}
		n.MustCall(&s, "web3_clientVersion")
		if !strings.HasPrefix(s, "basalt/") {
			t.Fatalf("web3_clientVersion %q", s)
		}
		var h hexutil.Bytes
		n.MustCall(&h, "web3_sha3", "0x68656c6c6f20776f726c64")
		if hexutil.Encode(h) != "0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad" {
			t.Fatalf("web3_sha3 %x", h)
		}
		var accounts []common.Address
		n.MustCall(&accounts, "eth_accounts")
		if accounts == nil || len(accounts) != 0 {
			t.Fatalf("eth_accounts %v", accounts)
		}
		var mining bool
		n.MustCall(&mining, "eth_mining")
		if mining {
			t.Fatal("mining without --miner-enabled")
		}
		var block map[string]any
		n.MustCall(&block, "eth_getBlockByNumber", "earliest", false)
		if block["number"] != "0x0" || block["totalDifficulty"] != "0x10000" {
			t.Fatalf("genesis block %v", block)
		}
		n.MustCall(&block, "eth_getBlockByNumber", "0x99", false)
		if block != nil {
			t.Fatalf("future block %v", block)
		}
	})

	t.Run("errors", func(t *testing.T) {
		cases := []struct {
			method string
			params []any
			code   int
		}{
			{"eth_nope", nil, -32601},
			{"admin_peers", nil, -32604}, // known, group disabled
			{"miner_start", nil, -32010}, // no coinbase
			{"eth_sendTransaction", []any{map[string]any{}}, -32604},
			{"eth_getBalance", []any{"0xzz", "latest"}, -32602},
			{"eth_getBalance", []any{"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73", "lateest"}, -32602},
			{"eth_sendRawTransaction", []any{"0x00"}, -32602},
			{"eth_getWork", nil, -32000},
			{"eth_coinbase", nil, -32000},
		}
		for _, c := range cases {
			_, err := n.Call(c.method, c.params...)
			if got := devnode.RPCCode(t, err); got != c.code {
				t.Errorf("%s: code %d (%v), want %d", c.method, got, err, c.code)
			}
		}
	})

	t.Run("http", func(t *testing.T) {
		status, body := post(t, n.URL, "", `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]},{"jsonrpc":"2.0","method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":"b","method":"eth_nope","params":[]}]`)
		var batch []map[string]any
		if status != 200 || json.Unmarshal([]byte(body), &batch) != nil || len(batch) != 2 || batch[0]["result"] != "0x539" {
			t.Fatalf("batch: %d %s", status, body)
		}
		if status, body = post(t, n.URL, "", `{"jsonrpc":"2.0","id":1`); status != 400 || !strings.Contains(body, "-32700") {
			t.Fatalf("parse error: %d %s", status, body)
		}
		if status, _ = post(t, n.URL, "evil.example:8545", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`); status != 403 {
			t.Fatalf("foreign Host header: %d", status)
		}
	})

	t.Run("pool errors", func(t *testing.T) {
		key, from := devnode.Key(t, 2)
		chainID := big.NewInt(config.DevChainID)
		signer := types.LatestSignerForChainID(chainID)
		to := common.Address{0xb0}
		send := func(tx types.TxData) error {
			raw, _ := types.MustSignNewTx(key, signer, tx).MarshalBinary()
			_, err := n.Call("eth_sendRawTransaction", hexutil.Bytes(raw))
			return err
		}
		legacy := func(nonce uint64, price int64, gas uint64, value *big.Int) *types.LegacyTx {
			return &types.LegacyTx{Nonce: nonce, To: &to, Gas: gas, GasPrice: big.NewInt(price), Value: value}
		}
		if err := send(legacy(0, 2000, 21000, big.NewInt(1))); err != nil {
			t.Fatal(err)
		}
		checks := []struct {
			name string
			tx   types.TxData
			code int
			msg  string
		}{
			{"known", legacy(0, 2000, 21000, big.NewInt(1)), -32000, "Known transaction"},
			{"underpriced replacement", legacy(0, 2100, 21000, big.NewInt(1)), -32000, "Replacement transaction underpriced"},
			{"below min gas price", legacy(1, 999, 21000, big.NewInt(1)), -32009, ""},
			{"intrinsic gas", legacy(1, 2000, 20000, big.NewInt(1)), -32003, ""},
			{"upfront cost", legacy(1, 2000, 21000, new(big.Int).Lsh(big.NewInt(1), 100)), -32004, ""},
		}
		for _, c := range checks {
			err := send(c.tx)
			if got := devnode.RPCCode(t, err); got != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: %v, want %d %s", c.name, err, c.code, c.msg)
			}
		}
		// A 10% higher price replaces the pending transaction.
		if err := send(legacy(0, 2200, 21000, big.NewInt(1))); err != nil {
			t.Fatalf("replacement: %v", err)
		}
		other := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(1)), legacy(1, 2000, 21000, big.NewInt(1)))
		raw, _ := other.MarshalBinary()
		if _, err := n.Call("eth_sendRawTransaction", hexutil.Bytes(raw)); devnode.RPCCode(t, err) != -32000 || err.Error() != "-32000 Wrong chainId" {
			t.Errorf("wrong chain id: %v", err)
		}
		var nonce hexutil.Uint64
		n.MustCall(&nonce, "eth_getTransactionCount", from, "pending")
		if nonce != 1 {
			t.Fatalf("pending nonce %d", nonce)
		}
		n.MustCall(&nonce, "eth_getTransactionCount", from, "latest")
		if nonce != 0 {
			t.Fatalf("latest nonce %d", nonce)
		}
	})

	t.Run("revert", func(t *testing.T) {
		// Init code that reverts with Error("no"): the call answers code 3
		// with the revert data, as Besu and geth do.
		word := func(prefix string) string { return prefix + strings.Repeat("0", 64-len(prefix)) }
		revert := "0x" +
			"7f" + word("08c379a0") + "5f52" + // selector Error(string) at 0
			"7f" + word("00000020") + "602052" + // offset 0x20 (its low bytes) at 32
			"7f" + word("00000002"+"6e6f") + "604052" + // length 2 and "no" at 64
			"6064" + "5f" + "fd" // revert(0, 100)
		_, err := n.Call("eth_call", map[string]any{"data": revert}, "latest")
		e, ok := err.(*testnode.RPCError)
		if !ok || e.Code != 3 || !strings.Contains(e.Message, "no") || len(e.Data) == 0 {
			t.Fatalf("revert: %v (data %s)", err, e.Data)
		}
		_, err = n.Call("eth_estimateGas", map[string]any{"data": revert})
		if devnode.RPCCode(t, err) != 3 {
			t.Fatalf("estimate revert: %v", err)
		}
	})

	t.Run("miner start stop", func(t *testing.T) {
		// The node has no coinbase; with one it mines on request.
		m := testnode.Start(t, t.TempDir(), "--network=dev", "--rpc-http-api=ETH,MINER", "--miner-coinbase="+devnode.Coinbase)
		var ok bool
		m.MustCall(&ok, "miner_start")
		testnode.WaitFor(t, 30*time.Second, "a mined block", func() bool { return devnode.BlockNumber(t, m) > 0 })
		var work [3]common.Hash
		testnode.WaitFor(t, 10*time.Second, "work", func() bool {
			res, err := m.Call("eth_getWork")
			return err == nil && json.Unmarshal(res, &work) == nil
		})
		if work[2].Big().Cmp(new(big.Int).Div(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(100))) != 0 {
			t.Fatalf("boundary %s", work[2])
		}
		m.MustCall(&ok, "miner_stop")
		var mining bool
		m.MustCall(&mining, "eth_mining")
		if mining {
			t.Fatal("still mining after miner_stop")
		}
		stopped := devnode.BlockNumber(t, m)
		time.Sleep(1500 * time.Millisecond)
		if devnode.BlockNumber(t, m) != stopped {
			t.Fatal("blocks produced after miner_stop")
		}
	})
}
