package rpc

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/gorilla/websocket"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/miner"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// TestBesuConfigFile is the acceptance test of a Besu configuration
// carried over: a node starts from testdata/besu-dev-node.toml, a Besu
// config.toml holding every option of Besu's reference that applies to a
// single dev node, with only its ports moved (BASALT_* variables), and each
// option Basalt acts on is seen acting; each other one is named in the
// start-up log.
func TestBesuConfigFile(t *testing.T) {
	// The static peer the file's static-nodes-file names.
	peer := testnode.StartP2P(t, t.TempDir(), "--network=dev", "--network-id=2018")

	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "static-nodes.json"), []byte(`["`+peer.Enode()+`"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgFile, err := filepath.Abs("testdata/besu-dev-node.toml")
	if err != nil {
		t.Fatal(err)
	}
	ports := map[string]int{}
	for _, name := range []string{"RPC_HTTP_PORT", "RPC_WS_PORT", "GRAPHQL_HTTP_PORT", "P2P_PORT"} {
		for p := testnode.FreePort(t); ports[name] == 0; p = testnode.FreePort(t) {
			used := false
			for _, q := range ports {
				used = used || q == p
			}
			if !used {
				ports[name] = p
			}
		}
	}
	cmd := exec.Command(testnode.Binary(t), "--config-file="+cfgFile)
	cmd.Dir = work
	cmd.Env = os.Environ()
	for name, p := range ports {
		cmd.Env = append(cmd.Env, "BASALT_"+name+"="+strconv.Itoa(p))
	}
	url := "http://127.0.0.1:" + strconv.Itoa(ports["RPC_HTTP_PORT"])
	n := testnode.StartCommand(t, cmd, url)

	t.Run("identity, network id, nat-method, p2p-host/port", func(t *testing.T) {
		var v string
		n.MustCall(&v, "web3_clientVersion")
		if !strings.HasPrefix(v, "basalt/acceptance/v") {
			t.Errorf("web3_clientVersion %q", v)
		}
		n.MustCall(&v, "net_version")
		if v != "2018" {
			t.Errorf("net_version %q", v)
		}
		var info struct {
			Name  string `json:"name"`
			Enode string `json:"enode"`
		}
		n.MustCall(&info, "admin_nodeInfo")
		if !strings.HasPrefix(info.Name, "basalt/acceptance/") || !strings.HasSuffix(info.Enode, "@127.0.0.1:"+strconv.Itoa(ports["P2P_PORT"])) {
			t.Errorf("admin_nodeInfo %+v", info)
		}
	})

	t.Run("static-nodes-file, net-restrict", func(t *testing.T) {
		var peers []struct{ Enode string }
		testnode.WaitFor(t, 20*time.Second, "the static node as a peer", func() bool {
			n.MustCall(&peers, "admin_peers")
			return len(peers) == 1
		})
		if !strings.HasPrefix(peer.Enode(), strings.Split(peers[0].Enode, "@")[0]) {
			t.Errorf("peer %s, want %s", peers[0].Enode, peer.Enode())
		}
	})

	t.Run("miner-extra-data, target-gas-limit", func(t *testing.T) {
		testnode.WaitFor(t, 30*time.Second, "block 1", func() bool { return devnode.BlockNumber(t, n) >= 1 })
		var b1 struct {
			ExtraData hexutil.Bytes  `json:"extraData"`
			GasLimit  hexutil.Uint64 `json:"gasLimit"`
		}
		n.MustCall(&b1, "eth_getBlockByNumber", "0x1", false)
		genesis := config.DevGenesis().Core.GasLimit
		if string(b1.ExtraData) != "basalt acceptance" || uint64(b1.GasLimit) != miner.NextGasLimit(genesis, 30_000_000) || uint64(b1.GasLimit) >= genesis {
			t.Errorf("block 1: extra %q, gas limit %d (genesis %d)", b1.ExtraData, b1.GasLimit, genesis)
		}
	})

	t.Run("pid-path", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(work, "basalt.pid"))
		if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(cmd.Process.Pid) {
			t.Errorf("pid file %q %v, pid %d", b, err, cmd.Process.Pid)
		}
	})

	t.Run("HTTP limits, pretty JSON, host allowlist, CORS", func(t *testing.T) {
		post := func(body string, header ...string) (int, string) {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(header); i += 2 {
				if header[i] == "Host" {
					req.Host = header[i+1]
				} else {
					req.Header.Set(header[i], header[i+1])
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if _, body := post(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`); !strings.Contains(body, "{\n  \"jsonrpc\"") {
			t.Errorf("json-pretty-print-enabled: %q", body)
		}
		call := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`
		if _, body := post("[" + strings.Repeat(call+",", 3) + call + "]"); !strings.Contains(body, "-32005") {
			t.Errorf("rpc-http-max-batch-size=3, a batch of 4: %s", body)
		}
		if st, _ := post(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["` + strings.Repeat("a", 70000) + `"]}`); st != http.StatusRequestEntityTooLarge {
			t.Errorf("rpc-http-max-request-content-length: status %d", st)
		}
		if st, _ := post(call, "Host", "evil.example"); st != http.StatusForbidden {
			t.Errorf("host-allowlist: status %d", st)
		}
		if st, _ := post(call, "Origin", "http://other.example"); st != http.StatusForbidden {
			t.Errorf("rpc-http-cors-origins, another origin: status %d", st)
		}
		if st, _ := post(call, "Origin", "http://dapp.example"); st != http.StatusOK {
			t.Errorf("rpc-http-cors-origins, the allowed origin: status %d", st)
		}

		// rpc-http-max-active-connections=20: twenty idle connections are
		// held; the twenty-first is closed at once.
		addr := strings.TrimPrefix(url, "http://")
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		// Connections the test's clients left idle count until the node
		// sees them closed, so twenty are held only once each has been
		// answered on; until then, close them and try again.
		http.DefaultClient.CloseIdleConnections()
		answered := func(c net.Conn) bool {
			req := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(req), req)
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				return false
			}
			resp.Body.Close()
			c.SetReadDeadline(time.Time{})
			return resp.StatusCode == http.StatusOK
		}
		testnode.WaitFor(t, 20*time.Second, "twenty connections held", func() bool {
			for _, c := range held {
				c.Close()
			}
			held = held[:0]
			for range 20 {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, c)
				if !answered(c) {
					time.Sleep(200 * time.Millisecond)
					return false
				}
			}
			return true
		})
		extra, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer extra.Close()
		extra.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := extra.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("the 21st connection: read %v, want EOF (closed)", err)
		}
		for _, c := range held {
			c.Close()
		}
		held = nil
		testnode.WaitFor(t, 10*time.Second, "a free connection slot", func() bool {
			_, err := n.Call("eth_chainId")
			return err == nil
		})
	})

	key, from := devnode.Key(t, 1)
	signer := types.LatestSignerForChainID(big.NewInt(config.DevChainID))
	var nonce hexutil.Uint64
	n.MustCall(&nonce, "eth_getTransactionCount", from, "pending")
	gwei := big.NewInt(1_000_000_000)
	legacy := func(nonce uint64, price *big.Int, to *common.Address, data []byte) *types.LegacyTx {
		return &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: 200_000, To: to, Data: data}
	}
	sendErr := func(tx *types.Transaction) string {
		raw, _ := tx.MarshalBinary()
		_, err := n.Call("eth_sendRawTransaction", hexutil.Bytes(raw))
		if err == nil {
			return ""
		}
		return err.Error()
	}

	t.Run("transaction pool options", func(t *testing.T) {
		to := common.HexToAddress("0x0000000000000000000000000000000000000042")
		// strict-tx-replay-protection-enabled: a legacy transaction
		// without a chain ID is refused.
		unprotected := types.MustSignNewTx(key, types.HomesteadSigner{}, legacy(uint64(nonce), new(big.Int).Mul(big.NewInt(2), gwei), &to, nil))
		if got := sendErr(unprotected); got != "-32000 ChainId is required" {
			t.Errorf("unprotected: %q", got)
		}
		// rpc-tx-feecap=2000 gwei.
		if got := sendErr(types.MustSignNewTx(key, signer, legacy(uint64(nonce), new(big.Int).Mul(big.NewInt(3000), gwei), &to, nil))); !strings.Contains(got, "fee cap") {
			t.Errorf("above the fee cap: %q", got)
		}
		// tx-pool-limit-by-account-percentage=0.01 of tx-pool-max-size=2000:
		// at most 20 nonces ahead.
		if got := sendErr(types.MustSignNewTx(key, signer, legacy(uint64(nonce)+20, gwei, &to, nil))); !strings.Contains(got, "nonce is too distant") {
			t.Errorf("20 nonces ahead: %q", got)
		}
		// tx-pool-price-bump=20: a queued transaction (a nonce gap keeps it
		// from being mined) is replaced by +25 %, not by +10 %.
		queued := uint64(nonce) + 5
		if got := sendErr(types.MustSignNewTx(key, signer, legacy(queued, big.NewInt(2_000_000_000), &to, nil))); got != "" {
			t.Fatalf("queued: %q", got)
		}
		if got := sendErr(types.MustSignNewTx(key, signer, legacy(queued, big.NewInt(2_200_000_000), &to, nil))); !strings.Contains(got, "underpriced") {
			t.Errorf("+10 %%: %q", got)
		}
		if got := sendErr(types.MustSignNewTx(key, signer, legacy(queued, big.NewInt(2_500_000_000), &to, nil))); got != "" {
			t.Errorf("+25 %%: %q", got)
		}
	})

	t.Run("revert-reason-enabled, api-gas-price-*", func(t *testing.T) {
		// Init code that reverts with Error("nope"): CODECOPY the 100 bytes
		// after the 12 bytes of code, REVERT with them.
		reason := common.FromHex("08c379a0" + "0000000000000000000000000000000000000000000000000000000000000020" +
			"0000000000000000000000000000000000000000000000000000000000000004" + "6e6f706500000000000000000000000000000000000000000000000000000000")
		initCode := append(common.FromHex("6064600c60003960646000fd"), reason...)
		h := devnode.SendRaw(t, n, types.MustSignNewTx(key, signer, legacy(uint64(nonce), new(big.Int).Mul(big.NewInt(10), gwei), nil, initCode)))
		var r struct {
			Status       hexutil.Uint64 `json:"status"`
			RevertReason hexutil.Bytes  `json:"revertReason"`
		}
		devnode.WaitReceipt(t, n, h)
		n.MustCall(&r, "eth_getTransactionReceipt", h)
		if r.Status != 0 || !bytes.Equal(r.RevertReason, reason) {
			t.Errorf("receipt: status %d, revertReason %x", r.Status, []byte(r.RevertReason))
		}
		// GraphQL's revertReason too.
		gql := "http://127.0.0.1:" + strconv.Itoa(ports["GRAPHQL_HTTP_PORT"]) + "/graphql"
		resp, err := http.Post(gql, "application/graphql", strings.NewReader(`{ transaction(hash: "`+h.Hex()+`") { status revertReason } }`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), `"revertReason":"0x08c379a0`) {
			t.Errorf("graphql: %s", body)
		}
		// The transaction paid 10 gwei: the 100th percentile of the last 50
		// blocks, capped by api-gas-price-max at 3 gwei.
		var price hexutil.Big
		n.MustCall(&price, "eth_gasPrice")
		if price.ToInt().Cmp(big.NewInt(3_000_000_000)) != 0 {
			t.Errorf("eth_gasPrice %s, want the 3 gwei cap", price.ToInt())
		}
	})

	t.Run("rpc-gas-cap", func(t *testing.T) {
		// A contract answering the gas it was given (GAS, MSTORE, RETURN),
		// called with 10M gas: it gets at most the 1M cap.
		at := common.HexToAddress("0x00000000000000000000000000000000000000aa")
		var out hexutil.Bytes
		n.MustCall(&out, "eth_call", map[string]any{"to": at, "gas": "0x989680"}, "latest",
			map[string]any{at.Hex(): map[string]any{"code": "0x5a60005260206000f3"}})
		if got := new(big.Int).SetBytes(out); got.Sign() <= 0 || got.Cmp(big.NewInt(1_000_000)) >= 0 {
			t.Errorf("gas inside the call %s, want under the 1,000,000 cap", got)
		}
	})

	t.Run("WebSocket", func(t *testing.T) {
		c, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+strconv.Itoa(ports["RPC_WS_PORT"]), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []any{}}); err != nil {
			t.Fatal(err)
		}
		var resp struct{ Result string }
		if err := c.ReadJSON(&resp); err != nil || resp.Result != "0x539" {
			t.Errorf("eth_chainId over WebSocket: %+v %v", resp, err)
		}
	})

	t.Run("start-up log", func(t *testing.T) {
		logs := n.Logs()
		for _, want := range []string{
			`msg="Starting Basalt" version=basalt/acceptance/v`,
			`msg="Option handled differently from Besu" option=--data-storage-format value=FOREST from="data-storage-format in config file ` + cfgFile + `"`,
			`option=--key-value-storage value=rocksdb`,
			`option=--tx-pool-priority-senders`,
			`msg="Node started" version=basalt/acceptance/v`,
		} {
			if !strings.Contains(logs, want) {
				t.Errorf("the log lacks %q", want)
			}
		}
		// Acting options and "off" values get no line.
		for _, quiet := range []string{"option=--identity", "option=--rpc-http-tls-enabled", "option=--sync-mode", "option=--permissions-"} {
			if strings.Contains(logs, quiet) {
				t.Errorf("the log names %s", quiet)
			}
		}
	})

	t.Run("a second node on the data path", func(t *testing.T) {
		out, err := exec.Command(testnode.Binary(t), "--network=dev", "--data-path="+filepath.Join(work, "data"), "--p2p-enabled=false").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "is in use: another basalt holds its lock") {
			t.Errorf("%v: %s", err, out)
		}
	})
}
