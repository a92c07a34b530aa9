package metrics

import (
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/chaingen"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// scrape fetches a /metrics page and parses it with Prometheus's own text
// parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
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

// metricValue returns the value of the first series of family name whose
// labels include want (name=value): a counter's or gauge's value, a
// histogram's sample count.
func metricValue(fams map[string]*dto.MetricFamily, name string, want ...string) (float64, bool) {
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
		}
	}
	return 0, false
}

// wantMetrics checks that each family (with the labels given) is present
// and at least min.
func wantMetrics(t *testing.T, fams map[string]*dto.MetricFamily, checks []metricCheck) {
	t.Helper()
	for _, c := range checks {
		v, ok := metricValue(fams, c.name, c.labels...)
		if !ok || v < c.min {
			t.Errorf("%s%v = %v (present %v), want at least %v", c.name, c.labels, v, ok, c.min)
		}
	}
}

type metricCheck struct {
	name   string
	labels []string
	min    float64
}

// httpStatus GETs url and returns the status and body.
func httpStatus(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A mining dev node with --metrics-enabled: after real traffic (JSON-RPC
// calls, a transfer mined into a block) its /metrics page parses with the
// Prometheus text parser and carries Besu's names with moved counters and
// non-empty histograms; debug_metrics shows the same registry nested;
// net_services lists the service.
func TestMetricsServed(t *testing.T) {
	port := testnode.FreePort(t)
	n := devnode.Start(t, t.TempDir(), "--metrics-enabled", "--metrics-host=127.0.0.1", "--metrics-port="+strconv.Itoa(port),
		"--rpc-http-api=ETH,NET,WEB3,DEBUG")
	key, _ := devnode.Key(t, 1)
	to := common.Address{0xbe, 0xef}
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(config.DevChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(config.DevChainID), Nonce: 0, To: &to, Value: big.NewInt(1),
		Gas: 21000, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e10),
	})
	r := devnode.WaitReceipt(t, n, devnode.SendRaw(t, n, tx))
	for range 10 {
		devnode.BlockNumber(t, n)
	}

	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/metrics"
	fams := scrape(t, url)
	wantMetrics(t, fams, []metricCheck{
		{"ethereum_blockchain_height", nil, float64(r.BlockNumber)},
		{"besu_blockchain_difficulty_total", nil, 1},
		{"besu_blockchain_chain_head_timestamp", nil, 1},
		{"besu_blockchain_chain_head_gas_limit", nil, 1},
		{"besu_blockchain_block_import_time", nil, float64(r.BlockNumber)},
		{"besu_blockchain_imported_gas_total", nil, 21000},
		{"besu_blockchain_imported_transactions_total", nil, 1},
		{"besu_rpc_request_time", []string{"methodName=eth_blockNumber"}, 10},
		{"besu_rpc_request_time", []string{"methodName=eth_sendRawTransaction"}, 1},
		{"besu_rpc_request_time", []string{"methodName=eth_getTransactionReceipt"}, 1},
		{"besu_transaction_pool_transactions", nil, 0},
		{"besu_transaction_pool_transactions_added_total", []string{"source=local"}, 1},
		{"besu_transaction_pool_transactions_removed_total", []string{"source=local", "operation=confirmed"}, 1},
		{"process_cpu_seconds_total", nil, 0},
		{"process_resident_memory_bytes", nil, 1},
		{"go_goroutines", nil, 1},
		{"go_memstats_heap_alloc_bytes", nil, 1},
	})
	if f := fams["besu_rpc_request_time"]; f == nil || f.GetType() != dto.MetricType_HISTOGRAM {
		t.Errorf("besu_rpc_request_time is not a histogram: %v", f.GetType())
	}

	var dm map[string]map[string]any
	n.MustCall(&dm, "debug_metrics")
	if h, _ := dm["ethereum"]["blockchain_height"].(float64); h < float64(r.BlockNumber) {
		t.Errorf("debug_metrics ethereum.blockchain_height = %v", dm["ethereum"]["blockchain_height"])
	}
	bn, _ := dm["rpc"]["request_time"].(map[string]any)["eth_blockNumber"].(map[string]any)
	if c, _ := bn["count"].(float64); c < 10 {
		t.Errorf("debug_metrics rpc.request_time.eth_blockNumber = %v", bn)
	}
	if _, ok := bn["bucket"].(map[string]any)["+Inf"]; !ok {
		t.Errorf("debug_metrics timer without buckets: %v", bn)
	}

	var services map[string]struct{ Host, Port string }
	n.MustCall(&services, "net_services")
	if m := services["metrics"]; m.Host != "127.0.0.1" || m.Port != strconv.Itoa(port) {
		t.Errorf("net_services metrics = %+v", services)
	}
	// The host allowlist applies; GET / is a probe.
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Host = "attacker.example"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: %v %v", resp, err)
	}
	if status, _ := httpStatus(t, "http://127.0.0.1:"+strconv.Itoa(port)+"/"); status != http.StatusCreated {
		t.Errorf("GET /: %d, want 201", status)
	}
}

// Metrics off (the default): nothing listens on the metrics port,
// debug_metrics is empty and net_services does not list metrics.
func TestMetricsOff(t *testing.T) {
	port := testnode.FreePort(t)
	n := testnode.Start(t, t.TempDir(), "--network=dev", "--metrics-port="+strconv.Itoa(port), "--rpc-http-api=ETH,NET,DEBUG")
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
		c.Close()
		t.Fatal("something listens on the metrics port with metrics off")
	}
	var dm json.RawMessage
	n.MustCall(&dm, "debug_metrics")
	if string(dm) != "{}" {
		t.Errorf("debug_metrics = %s, want {}", dm)
	}
	var services map[string]any
	n.MustCall(&services, "net_services")
	if _, ok := services["metrics"]; ok {
		t.Errorf("net_services = %v", services)
	}
}

// Health checks are answered without a token when JSON-RPC requires one:
// orchestrators probe them without credentials.
func TestHealthUnderAuth(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "auth.toml")
	if err := os.WriteFile(creds, []byte("[Users.u]\npassword = \""+pegasysHash+"\"\npermissions = [\"*:*\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := testnode.StartP2P(t, filepath.Join(dir, "data"), "--network=dev",
		"--rpc-http-authentication-enabled", "--rpc-http-authentication-credentials-file="+creds)
	if status, body := httpStatus(t, n.URL+"/liveness"); status != http.StatusOK || body != `{"status":"UP"}` {
		t.Errorf("/liveness without a token: %d %s", status, body)
	}
	// Alone, with p2p on: fewer peers than Besu's default minPeers=1.
	if status, body := httpStatus(t, n.URL+"/readiness"); status != http.StatusServiceUnavailable || body != `{"status":"DOWN"}` {
		t.Errorf("/readiness without a token: %d %s", status, body)
	}
	if status, body := httpStatus(t, n.URL+"/readiness?minPeers=0"); status != http.StatusOK || body != `{"status":"UP"}` {
		t.Errorf("/readiness?minPeers=0 without a token: %d %s", status, body)
	}
	resp, err := http.Post(n.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("eth_blockNumber without a token: %d, want 401", resp.StatusCode)
	}
}

// gatedProxy forwards TCP connections to a target. Bytes from the target
// pass until limit have passed in all; the rest waits for release. It lets
// a test hold a syncing node at a known point: it has learnt how far ahead
// its peer is, and cannot catch up until released.
type gatedProxy struct {
	ln     net.Listener
	target string
	limit  int

	mu       sync.Mutex
	passed   int
	open     chan struct{}
	released bool
	conns    []net.Conn
	done     chan struct{}
}

func newGatedProxy(t *testing.T, target string, limit int) *gatedProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &gatedProxy{ln: ln, target: target, limit: limit, open: make(chan struct{}), done: make(chan struct{})}
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *gatedProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

func (p *gatedProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go io.Copy(up, c)
		go p.copyGated(c, up)
	}
}

// take returns how many of n bytes may pass now.
func (p *gatedProxy) take(n int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		return n
	}
	a := min(n, p.limit-p.passed)
	p.passed += a
	return a
}

func (p *gatedProxy) copyGated(dst, src net.Conn) {
	buf := make([]byte, 4096)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			a := p.take(n)
			if _, werr := dst.Write(buf[:a]); werr != nil {
				return
			}
			if a < n {
				select {
				case <-p.open:
				case <-p.done:
					return
				}
				if _, werr := dst.Write(buf[a:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			dst.Close()
			return
		}
	}
}

func (p *gatedProxy) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.released {
		p.released = true
		close(p.open)
	}
}

func (p *gatedProxy) close() {
	close(p.done)
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// Two real nodes: /readiness is 503 while the node is alone (fewer peers
// than asked) and while it is far behind the peer it syncs from, and 200
// once it has caught up; its query parameters move the thresholds. The
// joiner reaches its peer through a proxy that holds the peer's data after
// the first 16 KiB: by then the joiner has the peer's head header (it knows
// it is 120 blocks behind) and cannot have the 120 blocks, so the "far
// behind" state is held, not raced. The joiner's metrics then show the p2p
// traffic and the sync.
func TestReadinessTwoNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two nodes")
	}
	const blocks = 120
	f, err := chaingen.WriteFiles(context.Background(), t.TempDir(), chaingen.Genesis(1), blocks, 20)
	if err != nil {
		t.Fatal(err)
	}
	srcDir := t.TempDir()
	if out, err := exec.Command(testnode.Binary(t), "--data-path="+srcDir, "--genesis-file="+f.Genesis,
		"blocks", "import", "--no-progress", "--from="+f.Blocks).CombinedOutput(); err != nil {
		t.Fatalf("blocks import: %v\n%s", err, out)
	}
	source := testnode.StartP2P(t, srcDir, "--genesis-file="+f.Genesis)
	metricsPort := testnode.FreePort(t)
	joiner := testnode.StartP2P(t, t.TempDir(), "--genesis-file="+f.Genesis,
		"--rpc-http-api=ETH,NET,WEB3,ADMIN,DEBUG", "--metrics-enabled", "--metrics-port="+strconv.Itoa(metricsPort))
	ready := func(query string) int {
		status, body := httpStatus(t, joiner.URL+"/readiness"+query)
		if want := map[int]string{200: `{"status":"UP"}`, 503: `{"status":"DOWN"}`}[status]; body != want {
			t.Fatalf("/readiness%s: %d %s", query, status, body)
		}
		return status
	}

	// Alone: fewer peers than the default minPeers=1.
	if s := ready(""); s != http.StatusServiceUnavailable {
		t.Fatalf("alone: /readiness %d, want 503", s)
	}
	if s := ready("?minPeers=0"); s != http.StatusOK {
		t.Fatalf("alone: /readiness?minPeers=0 %d, want 200", s)
	}

	proxy := newGatedProxy(t, "127.0.0.1:"+strconv.Itoa(source.P2PPort), 16<<10)
	enode := regexp.MustCompile(`@127\.0\.0\.1:\d+`).ReplaceAllString(source.Enode(), "@127.0.0.1:"+strconv.Itoa(proxy.port()))
	var added bool
	joiner.MustCall(&added, "admin_addPeer", enode)
	testnode.WaitFor(t, 30*time.Second, "the joiner to know it is far behind", func() bool {
		return ready("?minPeers=0") == http.StatusServiceUnavailable
	})
	var sync struct{ HighestBlock, CurrentBlock hexutil.Uint64 }
	joiner.MustCall(&sync, "eth_syncing")
	if sync.HighestBlock != blocks || sync.CurrentBlock >= blocks-2 {
		t.Fatalf("held joiner: eth_syncing %+v", sync)
	}
	for query, want := range map[string]int{
		"":                                    http.StatusServiceUnavailable, // far behind
		"?maxBlocksBehind=1000":               http.StatusOK,                 // one peer, and behind by less than asked
		"?minPeers=2&maxBlocksBehind=1000":    http.StatusServiceUnavailable, // fewer peers than asked
		"?minPeers=1&maxBlocksBehind=bananas": http.StatusServiceUnavailable,
	} {
		if s := ready(query); s != want {
			t.Errorf("held joiner: /readiness%s %d, want %d", query, s, want)
		}
	}
	if status, _ := httpStatus(t, joiner.URL+"/liveness"); status != http.StatusOK {
		t.Errorf("/liveness while syncing: %d", status)
	}

	proxy.release()
	testnode.WaitFor(t, 60*time.Second, "the joiner to catch up and be ready", func() bool {
		return joiner.BlockNumber() == blocks && ready("") == http.StatusOK
	})
	if joiner.BlockHash(blocks) != f.Head.Hex() {
		t.Fatalf("joiner head %s, want %s", joiner.BlockHash(blocks), f.Head.Hex())
	}

	fams := scrape(t, "http://127.0.0.1:"+strconv.Itoa(metricsPort)+"/metrics")
	wantMetrics(t, fams, []metricCheck{
		{"ethereum_peer_count", nil, 1},
		{"ethereum_peer_limit", nil, 25},
		{"ethereum_best_known_block_number", nil, blocks},
		{"ethereum_blockchain_height", nil, blocks},
		{"besu_synchronizer_in_sync", nil, 1},
		{"besu_peers_connected_total", nil, 1},
		{"besu_network_p2p_messages_inbound", []string{"protocol=eth", "name=Status", "code=0"}, 1},
		{"besu_network_p2p_messages_outbound", []string{"protocol=eth", "name=Status", "code=0"}, 1},
		{"besu_network_p2p_messages_outbound", []string{"protocol=eth", "name=GetBlockHeaders", "code=3"}, 2},
		{"besu_network_p2p_messages_inbound", []string{"protocol=eth", "name=BlockHeaders", "code=4"}, 2},
		{"besu_network_p2p_messages_inbound", []string{"protocol=eth", "name=BlockBodies", "code=6"}, 1},
		{"besu_blockchain_block_processing_time", nil, blocks},
		{"besu_blockchain_imported_transactions_total", nil, blocks * 20},
	})
	if v, _ := metricValue(fams, "besu_synchronizer_in_sync"); v != 1 {
		t.Errorf("in_sync = %v after catching up", v)
	}
}

// pushGateway records what a Prometheus push gateway receives.
type pushGateway struct {
	mu       sync.Mutex
	requests []string // "METHOD path"
	bodies   []string
}

func (g *pushGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	g.mu.Lock()
	g.requests = append(g.requests, r.Method+" "+r.URL.Path)
	g.bodies = append(g.bodies, string(b))
	g.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (g *pushGateway) seen(req, bodyPart string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, r := range g.requests {
		if r == req && strings.Contains(g.bodies[i], bodyPart) {
			return true
		}
	}
	return false
}

// --metrics-push-enabled pushes the registry to a push gateway on an
// interval, under the job given, and deletes the job's metrics there when
// the node stops; nothing listens on the metrics port.
func TestMetricsPush(t *testing.T) {
	g := &pushGateway{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: g}
	go srv.Serve(ln)
	defer srv.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	metricsPort := testnode.FreePort(t)
	n := testnode.Start(t, t.TempDir(), "--network=dev", "--metrics-push-enabled", "--metrics-push-host=127.0.0.1",
		"--metrics-push-port="+strconv.Itoa(port), "--metrics-push-interval=1", "--metrics-push-prometheus-job=basalt-test",
		"--metrics-port="+strconv.Itoa(metricsPort))
	devnode.BlockNumber(t, n)
	testnode.WaitFor(t, 30*time.Second, "a push with the RPC timer", func() bool {
		return g.seen("POST /metrics/job/basalt-test", "besu_rpc_request_time_count{methodName=\"eth_blockNumber\"}")
	})
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(metricsPort), time.Second); err == nil {
		c.Close()
		t.Error("the metrics port listens while pushing")
	}
	n.Stop(syscall.SIGTERM)
	if !g.seen("DELETE /metrics/job/basalt-test", "") {
		t.Errorf("no DELETE when the node stopped; gateway saw %v", g.requests)
	}
}

// Two IBFT 2.0 validators with metrics on: the engine's consensus metrics
// (through metrics.Instrumented) and the IBF sub-protocol's messages are
// exported beside the node's.
func TestIBFTMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two validators")
	}
	net := bftnet.GenerateIBFT(t, 2, 2)
	net.Start("--metrics-enabled", "--metrics-port=0")
	bftnet.WaitHeight(t, 60*time.Second, 3, net.Nodes...)
	var services map[string]struct{ Host, Port string }
	net.Nodes[0].MustCall(&services, "net_services")
	m, ok := services["metrics"]
	if !ok {
		t.Fatalf("net_services %v", services)
	}
	fams := scrape(t, "http://"+m.Host+":"+m.Port+"/metrics")
	wantMetrics(t, fams, []metricCheck{
		{"besu_consensus_ibft2_committed_blocks_total", nil, 1},
		{"besu_consensus_ibft2_height", nil, 3},
		{"besu_consensus_ibft2_round", nil, 0},
		{"besu_consensus_ibft2_round_changes_total", nil, 0},
		{"besu_consensus_ibft2_messages_rejected_total", nil, 0},
		{"besu_network_p2p_messages_inbound", []string{"protocol=IBF"}, 1},
		{"besu_network_p2p_messages_outbound", []string{"protocol=IBF"}, 1},
	})
}
