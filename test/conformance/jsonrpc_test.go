package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/basaltchain/basalt/testsupport/testnode"
)

// besuDir is Besu's conformance data (fixtures and the chain they run on);
// see its README for where the files come from and how Besu replays them.
var besuDir = filepath.Join("..", "..", "..", "shared", "conformance", "besu")

// harnessArtefacts are the fixtures whose expectations come from the fakes
// in Besu's test harness rather than from a node's behaviour (the "Harness
// artefacts" section of the fixtures' README). A real node answers them
// differently, so they are expected to fail; each entry says why.
var harnessArtefacts = map[string]string{
	// Besu's harness advertises eth/71; basalt answers the eth capability it
	// implements (eth/68, 0x44).
	"eth_protocolVersion": "harness advertises eth/71 (0x47)",
	// The harness' forkId is the CRC32 of the genesis hash alone; the
	// EIP-2124 value for this chain's forks (33, 1444660030, 1444660040) is
	// 0xf3cf4bb5, what geth and basalt return. Every other field matches.
	"eth_config": "harness forkId 0x97fa8ff0 ignores the chain's forks (EIP-2124 gives 0xf3cf4bb5)",
	// The harness' mocked pool accepts every decodable signed transaction;
	// the senders of these have no balance on this chain, so a real pool
	// refuses them with -32004.
	"eth_sendRawTransaction_contractCreation": "mocked pool: sender has no balance on this chain",
	"eth_sendRawTransaction_messageCall":      "mocked pool: sender has no balance on this chain",
	"eth_sendRawTransaction_transferEther":    "mocked pool: sender has no balance on this chain",
	// The harness' filter id generator always answers 0x1; real filter ids
	// are random (Besu's FilterIdGenerator: 16 random bytes).
	"eth_getNewFilter_addressOnly":                "mocked filter id 0x1",
	"eth_getNewFilter_emptyFilter":                "mocked filter id 0x1",
	"eth_getNewFilter_topicOnly":                  "mocked filter id 0x1",
	"eth_getNewFilter_validFilterLatestBlock":     "mocked filter id 0x1",
	"eth_getNewFilter_validFilterWithBlockNumber": "mocked filter id 0x1",
	"eth_newBlockFilter":                          "mocked filter id 0x1",
	"eth_newPendingTransactionFilter":             "mocked filter id 0x1",
}

// pendingFilters holds fixtures of methods still being built (the logs and
// filter methods were, in issue 3): they may fail until their code lands.
// Delete an entry as soon as it passes (the test logs which ones do); it is
// empty now that eth_getLogs and the filter methods pass.
var pendingFilters = map[string]string{}

// nodeArgs configure the node as Besu's harness configures its own
// (network id 123, max batch size 10, minimum gas price 1 wei).
var nodeArgs = []string{
	"--network-id=123",
	"--rpc-http-api=ETH,NET,WEB3",
	"--rpc-http-max-batch-size=10",
	"--min-gas-price=1",
}

// fixture is one spec file: a request (or batch) and Besu's answer.
type fixture struct {
	name       string
	Request    json.RawMessage `json:"request"`
	Response   json.RawMessage `json:"response"`
	StatusCode int             `json:"statusCode"`
}

// suite names the fresh node a fixture runs on: sends and filters change
// node state, so they do not share a node with the read-only fixtures.
func suite(name string) string {
	switch {
	case strings.HasPrefix(name, "eth_sendRawTransaction"):
		return "send"
	case strings.HasPrefix(name, "eth_newFilter"), strings.HasPrefix(name, "eth_getNewFilter"),
		strings.HasPrefix(name, "eth_getFilter"), strings.HasPrefix(name, "eth_uninstallFilter"),
		strings.HasPrefix(name, "eth_newBlockFilter"), strings.HasPrefix(name, "eth_newPendingTransactionFilter"):
		return "filters"
	}
	return "read"
}

// TestBesuJSONRPCFixtures imports Besu's conformance chain into a fresh data
// directory with the real basalt binary, then replays every JSON-RPC fixture
// against nodes started on copies of it. It fails when a fixture outside
// the two expected-failure lists above fails, so the pass count only goes up.
func TestBesuJSONRPCFixtures(t *testing.T) {
	fixturesDir := filepath.Join(besuDir, "jsonrpc")
	if _, err := os.Stat(fixturesDir); err != nil {
		t.Skip("shared conformance data absent")
	}
	fixtures := loadFixtures(t, fixturesDir)
	genesis := "--genesis-file=" + filepath.Join(besuDir, "chain", "testGenesis.json")
	imported := t.TempDir()
	cmd := exec.Command(testnode.Binary(t), "--data-path="+imported, genesis, "blocks", "import",
		"--from="+filepath.Join(besuDir, "chain", "testBlockchain.blocks"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("blocks import: %v\n%s", err, out)
	}

	bySuite := make(map[string][]*fixture)
	for _, f := range fixtures {
		bySuite[suite(f.name)] = append(bySuite[suite(f.name)], f)
	}
	var (
		mu       sync.Mutex
		failures = make(map[string]string) // fixture -> reason
	)
	t.Run("suites", func(t *testing.T) {
		for name, fs := range bySuite {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dataDir := t.TempDir()
				copyDir(t, imported, dataDir)
				n := testnode.Start(t, dataDir, append([]string{genesis}, nodeArgs...)...)
				for _, f := range fs {
					if reason := replay(n.URL, f); reason != "" {
						mu.Lock()
						failures[f.name] = reason
						mu.Unlock()
					}
				}
			})
		}
	})

	names := make([]string, 0, len(fixtures))
	for _, f := range fixtures {
		names = append(names, f.name)
	}
	sort.Strings(names)
	var unexpected, nowPassing []string
	for _, name := range names {
		reason, failed := failures[name]
		expected := harnessArtefacts[name]
		if expected == "" {
			expected = pendingFilters[name]
		}
		switch {
		case failed && expected != "":
			t.Logf("FAIL %s (expected: %s): %s", name, expected, reason)
		case failed:
			unexpected = append(unexpected, name)
			t.Errorf("FAIL %s: %s", name, reason)
		case expected != "":
			nowPassing = append(nowPassing, name)
		}
	}
	summary := fmt.Sprintf("Besu JSON-RPC fixtures: %d passed, %d failed (%d unexpected)",
		len(fixtures)-len(failures), len(failures), len(unexpected))
	fmt.Println(summary)
	t.Log(summary)
	if len(nowPassing) > 0 {
		t.Logf("now passing, remove from the expected-failure lists: %s", strings.Join(nowPassing, ", "))
	}
}

func loadFixtures(t *testing.T, dir string) []*fixture {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []*fixture
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		f := &fixture{name: strings.TrimSuffix(e.Name(), ".json")}
		if err := json.Unmarshal(data, f); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		t.Fatalf("no fixtures in %s", dir)
	}
	return out
}

// copyDir copies the imported data directory (the node is not running).
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// replay posts the fixture's request and returns why the answer differs
// from Besu's ("" when it matches), comparing as Besu's harness does: the
// HTTP status; per response, id and jsonrpc; the result as a JSON tree (key
// order ignored); an error object whole.
func replay(url string, f *fixture) string {
	var body bytes.Buffer
	if err := json.Compact(&body, f.Request); err != nil {
		return "bad fixture request: " + err.Error()
	}
	resp, err := http.Post(url, "application/json", &body)
	if err != nil {
		return err.Error()
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err.Error()
	}
	if resp.StatusCode != f.StatusCode {
		return fmt.Sprintf("HTTP status %d, want %d: %s", resp.StatusCode, f.StatusCode, short(data))
	}
	want, err := decode(f.Response)
	if err != nil {
		return "bad fixture response: " + err.Error()
	}
	got, err := decode(data)
	if err != nil {
		return fmt.Sprintf("undecodable answer %s: %v", short(data), err)
	}
	if wantBatch, ok := want.([]any); ok {
		gotBatch, ok := got.([]any)
		if !ok || len(gotBatch) != len(wantBatch) {
			return fmt.Sprintf("want a batch of %d answers, got %s", len(wantBatch), short(data))
		}
		for i := range wantBatch {
			if r := compareResponse(wantBatch[i], gotBatch[i]); r != "" {
				return fmt.Sprintf("batch[%d]: %s", i, r)
			}
		}
		return ""
	}
	return compareResponse(want, got)
}

func compareResponse(want, got any) string {
	w, _ := want.(map[string]any)
	g, ok := got.(map[string]any)
	if !ok {
		return fmt.Sprintf("answer is not an object: %s", render(got))
	}
	for _, k := range []string{"id", "jsonrpc"} {
		if d := diff(k, w[k], g[k]); d != "" {
			return d
		}
	}
	for _, k := range []string{"result", "error"} {
		wv, expected := w[k]
		if !expected {
			continue
		}
		gv, present := g[k]
		if !present {
			return fmt.Sprintf("want %s %s, got %s", k, short([]byte(render(wv))), short([]byte(render(got))))
		}
		if d := diff(k, wv, gv); d != "" {
			return d
		}
	}
	return ""
}

func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// diff returns where want and got first differ ("" when equal): objects
// by key regardless of order, arrays by position, integers exactly and
// other numbers as doubles.
func diff(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return mismatch(path, want, got)
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG:
				return fmt.Sprintf("%s.%s missing (want %s)", path, k, short([]byte(render(wv))))
			case !inW:
				return fmt.Sprintf("%s.%s unexpected (got %s)", path, k, short([]byte(render(gv))))
			}
			if d := diff(path+"."+k, wv, gv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return mismatch(path, want, got)
		}
		for i := range w {
			if d := diff(path+"["+strconv.Itoa(i)+"]", w[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		g, ok := got.(json.Number)
		if !ok || !numbersEqual(w, g) {
			return mismatch(path, want, got)
		}
		return ""
	}
	if want != got {
		return mismatch(path, want, got)
	}
	return ""
}

func numbersEqual(a, b json.Number) bool {
	ai, okA := new(big.Int).SetString(string(a), 10)
	bi, okB := new(big.Int).SetString(string(b), 10)
	if okA && okB {
		return ai.Cmp(bi) == 0
	}
	af, errA := a.Float64()
	bf, errB := b.Float64()
	return errA == nil && errB == nil && af == bf
}

func mismatch(path string, want, got any) string {
	return fmt.Sprintf("%s: got %s, want %s", path, short([]byte(render(got))), short([]byte(render(want))))
}

func render(v any) string {
	if v == nil {
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func short(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
