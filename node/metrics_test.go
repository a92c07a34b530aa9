package node

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/testsupport/chaingen"
)

// metricsNode starts a node on a fast-sealing dev chain with JSON-RPC (ETH,
// NET, DEBUG) on, and the metrics service when on is true. p2p is off.
func metricsNode(t *testing.T, on bool, newEngine func(*config.Genesis) (consensus.Engine, error)) *Node {
	t.Helper()
	dir := t.TempDir()
	cfg := &config.Config{
		DataPath:           dir,
		NodePrivateKeyFile: filepath.Join(dir, "key"),
		NetworkID:          config.DevChainID,
		Genesis:            chaingen.Genesis(1),
		MinGasPrice:        bigOne(),
		HostAllowlist:      []string{"localhost", "127.0.0.1"},
	}
	cfg.TxPool.MaxSize = 4096
	cfg.RPC.HTTPEnabled, cfg.RPC.HTTPHost = true, "127.0.0.1"
	cfg.RPC.HTTPAPIs = []string{"ETH", "NET", "DEBUG"}
	cfg.Metrics = config.MetricsConfig{Enabled: on, Host: "127.0.0.1", Port: 0}
	if newEngine == nil {
		newEngine = func(g *config.Genesis) (consensus.Engine, error) { return chaingen.UnsealedEngine(g), nil }
	}
	n, err := newNode(cfg, slog.New(slog.DiscardHandler), func(g *config.Genesis, _ EngineEnv) (consensus.Engine, error) { return newEngine(g) })
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// metricsCall posts one request and returns its result.
func metricsCall(t *testing.T, n *Node, method string, params ...any) json.RawMessage {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post("http://"+n.HTTPAddr(), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage
		Error  *struct{ Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out.Error != nil {
		t.Fatalf("%s: %s", method, out.Error.Message)
	}
	return out.Result
}

// scrapeMetrics fetches url and parses it with Prometheus's text parser.
func scrapeMetrics(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return fams
}

// sample returns the value of the series of family name whose labels
// include want (name=value pairs): a counter's or gauge's value, a
// histogram's count. ok is false when there is none.
func sample(fams map[string]*dto.MetricFamily, name string, want ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for _, kv := range want {
			k, v, _ := strings.Cut(kv, "=")
			if labels[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		case m.Untyped != nil:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

// instrumentedEngine is the dev engine exporting a metric of its own, as a
// BFT engine would.
type instrumentedEngine struct {
	consensus.Engine
	rounds metrics.Counter
}

func (e *instrumentedEngine) SetMetrics(r *metrics.Registry) {
	e.rounds = r.Counter(metrics.Consensus, "test_round_changes_total", "Round changes of a test engine")
}

func TestMetricsInProcess(t *testing.T) {
	eng := &instrumentedEngine{}
	n := metricsNode(t, true, func(g *config.Genesis) (consensus.Engine, error) {
		eng.Engine = chaingen.UnsealedEngine(g)
		return eng, nil
	})
	eng.rounds.Add(3)

	// Blocks executed by the node: generated on a scratch chain, inserted here.
	g := chaingen.Genesis(1)
	scratch, db, err := chaingen.OpenMemoryWith(g, chaingen.UnsealedEngine(g))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	blocks, err := chaingen.New(scratch, chaingen.Options{TxsPerBlock: 2}).ExtendHead(context.Background(), 3)
	if err != nil {
		t.Fatal(err)
	}
	var gas uint64
	for _, b := range blocks {
		if _, err := n.Chain().InsertBlock(context.Background(), b, chain.InsertOptions{}); err != nil {
			t.Fatal(err)
		}
		gas += b.GasUsed()
	}
	// A local transaction into the pool.
	key := crypto.ToECDSAUnsafe(common.FromHex(config.DevAccounts[0].PrivateKey))
	to := common.Address{0xbe, 0xef}
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(config.DevChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(config.DevChainID), Nonce: 0, To: &to, Value: big.NewInt(1),
		Gas: 21000, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e10),
	})
	raw, _ := tx.MarshalBinary()
	metricsCall(t, n, "eth_sendRawTransaction", hexutil.Bytes(raw))
	for range 5 {
		metricsCall(t, n, "eth_blockNumber")
	}

	fams := scrapeMetrics(t, "http://"+n.MetricsAddr()+"/metrics")
	for _, c := range []struct {
		name   string
		labels []string
		min    float64
	}{
		{"ethereum_blockchain_height", nil, 3},
		{"besu_blockchain_chain_head_transaction_count", nil, 2},
		{"besu_blockchain_chain_head_gas_used", nil, 1},
		{"besu_blockchain_block_import_time", nil, 3},
		{"besu_blockchain_block_processing_time", nil, 3},
		{"besu_blockchain_imported_gas_total", nil, float64(gas)},
		{"besu_blockchain_imported_transactions_total", nil, 6},
		{"besu_blockchain_block_processing_gas_per_second", nil, 1},
		{"besu_rpc_request_time", []string{"methodName=eth_blockNumber"}, 5},
		{"besu_rpc_request_time", []string{"methodName=eth_sendRawTransaction"}, 1},
		{"besu_transaction_pool_transactions", nil, 1},
		{"besu_transaction_pool_transactions_added_total", []string{"source=local"}, 1},
		{"besu_consensus_test_round_changes_total", nil, 3},
		{"process_cpu_seconds_total", nil, 0},
		{"go_goroutines", nil, 1},
	} {
		v, ok := sample(fams, c.name, c.labels...)
		if !ok || v < c.min {
			t.Errorf("%s%v = %v (present %v), want at least %v", c.name, c.labels, v, ok, c.min)
		}
	}
	if v, _ := sample(fams, "besu_rpc_request_time", "methodName=eth_blockNumber"); v > 5 {
		t.Errorf("eth_blockNumber timed %v times, want 5", v)
	}
	// p2p is off: no peer metrics, and no series for methods nobody called.
	if fams["ethereum_peer_count"] != nil {
		t.Error("peer count exported with p2p off")
	}
	if _, ok := sample(fams, "besu_rpc_request_time", "methodName=eth_getBalance"); ok {
		t.Error("a method never called has a series")
	}

	// debug_metrics: the same registry, nested.
	var dm map[string]map[string]any
	if err := json.Unmarshal(metricsCall(t, n, "debug_metrics"), &dm); err != nil {
		t.Fatal(err)
	}
	if dm["ethereum"]["blockchain_height"] != 3.0 {
		t.Errorf("debug_metrics ethereum.blockchain_height = %v", dm["ethereum"]["blockchain_height"])
	}
	rt, _ := dm["rpc"]["request_time"].(map[string]any)
	bn, _ := rt["eth_blockNumber"].(map[string]any)
	if bn["count"] == nil || bn["sum"] == nil || bn["bucket"] == nil {
		t.Errorf("debug_metrics rpc.request_time.eth_blockNumber = %v", bn)
	}
	if _, ok := dm["transaction_pool"]["transactions_added_total"].(map[string]any)["local"]; !ok {
		t.Errorf("debug_metrics transaction_pool = %v", dm["transaction_pool"])
	}

	// net_services lists the metrics service.
	var services map[string]struct{ Host, Port string }
	if err := json.Unmarshal(metricsCall(t, n, "net_services"), &services); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(n.MetricsAddr())
	if m := services["metrics"]; m.Host != "127.0.0.1" || m.Port != port {
		t.Errorf("net_services metrics = %+v, want 127.0.0.1:%s", m, port)
	}
}

func TestMetricsOffInProcess(t *testing.T) {
	eng := &instrumentedEngine{}
	n := metricsNode(t, false, func(g *config.Genesis) (consensus.Engine, error) {
		eng.Engine = chaingen.UnsealedEngine(g)
		return eng, nil
	})
	if n.Metrics() != nil || n.MetricsAddr() != "" || n.rpcTimer() != nil {
		t.Fatal("metrics kept with metrics off")
	}
	if eng.rounds != metrics.Nop {
		t.Fatalf("engine got a live metric with metrics off: %T", eng.rounds)
	}
	if got := string(metricsCall(t, n, "debug_metrics")); got != "{}" {
		t.Errorf("debug_metrics = %s, want {}", got)
	}
	if got := string(metricsCall(t, n, "net_services")); strings.Contains(got, "metrics") {
		t.Errorf("net_services = %s", got)
	}
}
