package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gorilla/websocket"

	"github.com/basaltchain/basalt/config"
)

// TestWebSocketAndFilters runs a mining dev node with HTTP and WebSocket on
// and checks the wiring: groups per transport, newHeads over WebSocket, a
// block filter over HTTP, the logs range cap, the frame size limit.
func TestWebSocketAndFilters(t *testing.T) {
	dir := t.TempDir()
	coinbase := common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")
	cfg := &config.Config{
		DataPath:           dir,
		NodePrivateKeyFile: filepath.Join(dir, "key"),
		NetworkID:          config.DevChainID,
		Genesis:            config.DevGenesis(),
		MinGasPrice:        bigOne(),
		HostAllowlist:      []string{"localhost", "127.0.0.1"},
	}
	cfg.TxPool.MaxSize = 4096
	cfg.Miner.Enabled, cfg.Miner.Coinbase = true, &coinbase
	cfg.RPC = config.RPCConfig{
		HTTPEnabled: true, HTTPHost: "127.0.0.1", HTTPAPIs: []string{"ETH", "NET"},
		WSEnabled: true, WSHost: "127.0.0.1", WSAPIs: []string{"ETH"},
		WSMaxFrameSize: 4096, WSMaxActiveConnections: 4, MaxLogsRange: 10,
	}
	n, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.WSAddr() == "" || n.WSAddr() == n.HTTPAddr() {
		t.Fatalf("addresses http %q ws %q", n.HTTPAddr(), n.WSAddr())
	}
	httpCall := func(method, params string) string {
		resp, err := http.Post("http://"+n.HTTPAddr(), "application/json",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}

	ws, _, err := websocket.DefaultDialer.Dial("ws://"+n.WSAddr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	// Generous: the first block waits for the ethash cache, which takes
	// long under the race detector on a busy machine.
	read := func() string {
		ws.SetReadDeadline(time.Now().Add(2 * time.Minute))
		_, msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		return string(msg)
	}
	send := func(msg string) {
		if err := ws.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	// --rpc-ws-api=ETH: NET is off over WebSocket, on over HTTP.
	send(`{"jsonrpc":"2.0","id":1,"method":"net_version","params":[]}`)
	if got := read(); got != `{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"Method not enabled"}}` {
		t.Fatalf("net_version over WS: %s", got)
	}
	if got := httpCall("net_version", "[]"); !strings.Contains(got, `"result":"1337"`) {
		t.Fatalf("net_version over HTTP: %s", got)
	}

	filter := httpCall("eth_newBlockFilter", "[]")
	var fr struct{ Result string }
	json.Unmarshal([]byte(filter), &fr)

	send(`{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["newHeads"]}`)
	var sub struct{ Result string }
	if err := json.Unmarshal([]byte(read()), &sub); err != nil || !strings.HasPrefix(sub.Result, "0x") {
		t.Fatalf("eth_subscribe: %+v %v", sub, err)
	}
	var note struct {
		Method string
		Params struct {
			Subscription string
			Result       struct {
				Hash   common.Hash
				Number string
			}
		}
	}
	if err := json.Unmarshal([]byte(read()), &note); err != nil || note.Method != "eth_subscription" || note.Params.Subscription != sub.Result {
		t.Fatalf("newHeads notification: %+v %v", note, err)
	}
	var changes struct{ Result []common.Hash }
	deadline := time.Now().Add(2 * time.Minute)
	for len(changes.Result) == 0 && time.Now().Before(deadline) {
		json.Unmarshal([]byte(httpCall("eth_getFilterChanges", `["`+fr.Result+`"]`)), &changes)
		time.Sleep(50 * time.Millisecond)
	}
	if len(changes.Result) == 0 {
		t.Fatal("block filter saw no block")
	}
	if got := httpCall("eth_getLogs", `[{"fromBlock":"0x0","toBlock":"0xb"}]`); !strings.Contains(got, `"code":-32005`) {
		t.Fatalf("range over --rpc-max-logs-range: %s", got)
	}
	if got := httpCall("eth_getLogs", `[{"fromBlock":"0x0","toBlock":"0xa"}]`); !strings.Contains(got, `"result":[]`) {
		t.Fatalf("eth_getLogs: %s", got)
	}

	// A message over --rpc-ws-max-frame-size closes the connection.
	send(`{"jsonrpc":"2.0","id":3,"method":"eth_chainId","params":["` + string(bytes.Repeat([]byte("a"), 5000)) + `"]}`)
	for {
		ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, _, err := ws.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
				t.Fatalf("want close 1009, got %v", err)
			}
			break
		}
	}
}
