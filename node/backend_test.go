package node

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/config"
)

// JSON-RPC and GraphQL answer from the node's one backend: what its
// services report (here a sync in progress, through the hook the
// peer-to-peer service sets) both front ends report alike, and log queries
// of both run on its one filter system.
func TestOneBackendForEveryFrontEnd(t *testing.T) {
	dir := t.TempDir()
	cfg := &config.Config{
		DataPath:           dir,
		NodePrivateKeyFile: filepath.Join(dir, "key"),
		NetworkID:          config.DevChainID,
		Genesis:            config.DevGenesis(),
		MinGasPrice:        bigOne(),
		HostAllowlist:      []string{"localhost", "127.0.0.1"},
	}
	cfg.TxPool.MaxSize = 4096
	cfg.RPC = config.RPCConfig{HTTPEnabled: true, HTTPHost: "127.0.0.1", WSEnabled: true, WSHost: "127.0.0.1", MaxLogsRange: 10}
	cfg.GraphQL = config.GraphQLConfig{HTTPEnabled: true, HTTPHost: "127.0.0.1"}
	n, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.backend.Sync = fixedSync{StartingBlock: 1, CurrentBlock: 2, HighestBlock: 300}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()

	post := func(url, contentType, body string) string {
		t.Helper()
		resp, err := http.Post(url, contentType, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return string(out)
	}
	rpcURL, gqlURL := "http://"+n.HTTPAddr(), "http://"+n.GraphQLAddr()+"/graphql"
	if got, want := post(rpcURL, "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_syncing","params":[]}`),
		`{"jsonrpc":"2.0","id":1,"result":{"startingBlock":"0x1","currentBlock":"0x2","highestBlock":"0x12c"}}`; got != want {
		t.Errorf("eth_syncing: %s, want %s", got, want)
	}
	if got, want := post(gqlURL, "application/graphql", `{ syncing { startingBlock currentBlock highestBlock } }`),
		`{"data":{"syncing":{"startingBlock":"0x1","currentBlock":"0x2","highestBlock":"0x12c"}}}`; got != want {
		t.Errorf("GraphQL syncing: %s, want %s", got, want)
	}
	// Both front ends' log queries hit the one range cap (10 blocks).
	if got := post(rpcURL, "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"0x0","toBlock":"0x64"}]}`); !strings.Contains(got, `"code":-32005`) {
		t.Errorf("eth_getLogs over the cap: %s", got)
	}
	if got := post(gqlURL, "application/graphql", `{ logs(filter: {fromBlock: 0, toBlock: 100}) { index } }`); !strings.Contains(got, `"errorCode":-32005`) {
		t.Errorf("GraphQL logs over the cap: %s", got)
	}
}

// fixedSync reports one synchronisation in progress.
type fixedSync backend.SyncStatus

func (s fixedSync) SyncProgress() *backend.SyncStatus {
	st := backend.SyncStatus(s)
	return &st
}
