package grafana_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/metrics/grafana"
	"github.com/basaltchain/basalt/node"
	ptmconfig "github.com/basaltchain/basalt/ptm/config"
	"github.com/basaltchain/basalt/ptm/instance"
	"github.com/basaltchain/basalt/signer"
	"github.com/basaltchain/basalt/signer/downstream"
	"github.com/basaltchain/basalt/signer/keys"
)

// exported returns the metric families the three programs register with
// metrics on and every default category (p2p on for the node).
func exported(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(program string, names []string) {
		for _, n := range names {
			out[n] = program
		}
	}

	dir := t.TempDir()
	cfg := &config.Config{
		DataPath:           dir,
		NodePrivateKeyFile: filepath.Join(dir, "key"),
		NetworkID:          config.DevChainID,
		Genesis:            config.DevGenesis(),
		MinGasPrice:        big.NewInt(1),
	}
	cfg.TxPool.MaxSize = 16
	cfg.RPC.HTTPEnabled, cfg.RPC.HTTPHost = true, "127.0.0.1"
	cfg.P2P = config.P2PConfig{Enabled: true, Host: "127.0.0.1", Interface: "127.0.0.1", MaxPeers: 25}
	cfg.Metrics = config.MetricsConfig{Enabled: true, Host: "127.0.0.1"}
	n, err := node.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	add("basalt", n.Metrics().Names())
	// A BFT engine's metrics come from the engine (consensus.Instrumented).
	ibft := ibft2.New(&config.IBFT2Config{}, ibft2.Options{})
	defer ibft.Close()
	ibftReg := metrics.New(metrics.Config{Categories: metrics.NodeDefaults})
	ibft.SetMetrics(ibftReg)
	add("basalt", ibftReg.Names())

	reg := metrics.New(metrics.Config{Categories: metrics.SignerCategories})
	key, _ := crypto.GenerateKey()
	ds := downstream.New(downstream.Config{Host: "127.0.0.1", Port: 1, Observe: signer.DownstreamObserver(reg)})
	if _, err := signer.New(signer.Config{ChainID: big.NewInt(1337), Keys: keys.NewSingle(keys.NewPrivateKey(key)), Downstream: ds, Metrics: reg}); err != nil {
		t.Fatal(err)
	}
	add("basalt-signer", reg.Names())

	pdir := t.TempDir()
	conf := filepath.Join(pdir, "orion.conf")
	if err := os.WriteFile(conf, []byte("workdir = \""+pdir+"\"\nnodeport = 0\nclientport = 0\nstorage = \"memory\"\nmetricsenabled = true\nmetricsport = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pcfg, err := ptmconfig.Load(conf, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	in, err := instance.Start(context.Background(), pcfg, instance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	add("basalt-privacy", in.Metrics().Names())
	return out
}

type dashboard struct {
	Title  string `json:"title"`
	UID    string `json:"uid"`
	Inputs []struct {
		Name     string `json:"name"`
		PluginID string `json:"pluginId"`
	} `json:"__inputs"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Query struct {
				Query string `json:"query"`
			} `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type panel struct {
	ID         int    `json:"id"`
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource struct {
		UID string `json:"uid"`
	} `json:"datasource"`
	Targets []struct {
		Expr  string `json:"expr"`
		RefID string `json:"refId"`
	} `json:"targets"`
}

var (
	// Parts of a PromQL expression that are not metric names.
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping  = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promFunctions = regexp.MustCompile(`\b[a-zA-Z_]+\s*\(`)
	promIdents    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promKeywords  = map[string]bool{"and": true, "or": true, "unless": true, "offset": true, "bool": true}
)

// metricNames returns the metric names an expression reads.
func metricNames(expr string) []string {
	e := promStrings.ReplaceAllString(expr, " ")
	e = promMatchers.ReplaceAllString(e, " ")
	e = promRanges.ReplaceAllString(e, " ")
	e = promGrouping.ReplaceAllString(e, " ")
	e = promFunctions.ReplaceAllString(e, " (")
	var out []string
	for _, id := range promIdents.FindAllString(e, -1) {
		if !promKeywords[id] {
			out = append(out, id)
		}
	}
	return out
}

// family is the family a series name belongs to: a histogram's _bucket,
// _count and _sum series are the histogram's.
func family(name string, exported map[string]string) (string, bool) {
	if _, ok := exported[name]; ok {
		return name, true
	}
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if _, ok := exported[base]; ok {
				return base, true
			}
		}
	}
	return "", false
}

func TestDashboard(t *testing.T) {
	var d dashboard
	if err := json.Unmarshal(grafana.Dashboard, &d); err != nil {
		t.Fatalf("basalt.json is not valid JSON: %v", err)
	}
	if d.Title == "" || d.UID == "" || len(d.Inputs) != 1 || d.Inputs[0].PluginID != "prometheus" {
		t.Fatalf("dashboard header: title %q uid %q inputs %+v", d.Title, d.UID, d.Inputs)
	}
	exp := exported(t)
	used := map[string]bool{}
	programs := map[string]bool{}
	ids := map[int]bool{}
	var rows []string
	for _, v := range d.Templating.List {
		for _, name := range metricNames(strings.TrimSuffix(strings.TrimPrefix(v.Query.Query, "label_values("), ", instance)")) {
			if _, ok := family(name, exp); !ok {
				t.Errorf("variable %s reads %s, which no program exports", v.Name, name)
			}
		}
	}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			rows = append(rows, p.Title)
			continue
		}
		if p.Title == "" || len(p.Targets) == 0 || p.Datasource.UID != "${DS_PROMETHEUS}" {
			t.Errorf("panel %d %q: no title, no query or another data source", p.ID, p.Title)
		}
		for _, tg := range p.Targets {
			names := metricNames(tg.Expr)
			if len(names) == 0 || tg.RefID == "" {
				t.Errorf("panel %q: query %q names no metric", p.Title, tg.Expr)
			}
			for _, n := range names {
				f, ok := family(n, exp)
				if !ok {
					t.Errorf("panel %q: %s (in %s) is exported by no program", p.Title, n, tg.Expr)
					continue
				}
				used[f] = true
				programs[exp[f]] = true
			}
		}
	}
	for _, want := range []string{"Node (basalt)", "Privacy manager (basalt-privacy)", "Signer (basalt-signer)"} {
		if !slices.Contains(rows, want) {
			t.Errorf("no row %q (rows %v)", want, rows)
		}
	}
	// What the issue asks the dashboard to show.
	for _, f := range []string{
		"ethereum_blockchain_height", "besu_blockchain_chain_head_timestamp", "besu_blockchain_imported_transactions_total",
		"besu_blockchain_imported_gas_total", "ethereum_peer_count", "besu_transaction_pool_transactions", "besu_rpc_request_time",
		"besu_blockchain_block_import_time", "process_cpu_seconds_total", "process_resident_memory_bytes",
		"privacy_http_request_time", "signing_request_time",
	} {
		if !used[f] {
			t.Errorf("the dashboard does not show %s", f)
		}
	}
	if len(programs) != 3 {
		t.Errorf("queries read metrics of %v only", programs)
	}
}

func TestMetricNames(t *testing.T) {
	for expr, want := range map[string][]string{
		`ethereum_blockchain_height{instance=~"$node"}`:                                                     {"ethereum_blockchain_height"},
		`histogram_quantile(0.95, sum by (le, methodName) (rate(besu_rpc_request_time_bucket{a="b"}[5m])))`: {"besu_rpc_request_time_bucket"},
		`deriv(a_b[5m]) / deriv(c_d[5m])`:                                                                   {"a_b", "c_d"},
		`x and on (instance) y`:                                                                             {"x", "y"},
	} {
		if got := metricNames(expr); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", expr, got, want)
		}
	}
}
