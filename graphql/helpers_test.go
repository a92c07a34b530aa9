package graphql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/graphql"
	"github.com/basaltchain/basalt/node"
	"github.com/basaltchain/basalt/testsupport/chaintest"
	"github.com/basaltchain/basalt/txpool"
)

// besuDir is Besu's conformance data: the GraphQL fixtures and the chain
// they run on (see its README).
var besuDir = filepath.Join("..", "..", "shared", "conformance", "besu")

var (
	conformanceOnce  sync.Once
	conformanceChain *chain.Chain
	conformanceErr   error
)

// importedChain imports Besu's conformance chain into memory once per test
// binary (without proof-of-work checks: Besu's harness imports it without
// header validation too). It skips the test when the data is absent.
func importedChain(t testing.TB) *chain.Chain {
	t.Helper()
	chainDir := filepath.Join(besuDir, "chain")
	if _, err := os.Stat(chainDir); err != nil {
		t.Skip("shared conformance data absent")
	}
	conformanceOnce.Do(func() {
		g, err := config.LoadGenesisFile(filepath.Join(chainDir, "testGenesis.json"))
		if err != nil {
			conformanceErr = err
			return
		}
		engine, err := node.NewEngine(g)
		if err != nil {
			conformanceErr = err
			return
		}
		c, err := chain.Open(chain.NewMemoryDatabase(), g.Core, engine)
		if err != nil {
			conformanceErr = err
			return
		}
		f, err := os.Open(filepath.Join(chainDir, "testBlockchain.blocks"))
		if err != nil {
			conformanceErr = err
			return
		}
		defer f.Close()
		if _, err := c.Import(context.Background(), f, chain.ImportOptions{SkipSeal: true}); err != nil {
			conformanceErr = fmt.Errorf("import: %w", err)
			return
		}
		conformanceChain = c
	})
	if conformanceErr != nil {
		t.Fatal(conformanceErr)
	}
	return conformanceChain
}

// harnessPool is Besu's mocked transaction pool (AbstractEthGraphQLHttpServiceTest):
// every submission is accepted except one with nonce 16 ("Nonce too low"),
// the pool lists one unsigned legacy transaction (nonce 42, gas 654321,
// gas price 1) and counts none.
type harnessPool struct{}

func (harnessPool) Submit(_ context.Context, tx *types.Transaction) error {
	if tx.Nonce() == 16 {
		return &txpool.Error{Reason: txpool.NonceTooLow}
	}
	return nil
}

func (harnessPool) PendingNonce(common.Address) uint64 { return 0 }

func (harnessPool) Get(common.Hash) *types.Transaction { return nil }

func (harnessPool) Transactions() []txpool.TxInfo {
	tx := types.NewTx(&types.LegacyTx{Nonce: 42, Gas: 654321, GasPrice: big.NewInt(1)})
	return []txpool.TxInfo{{Tx: tx, Local: true, Pending: true}}
}

func (harnessPool) Len() int { return 0 }

func (harnessPool) Stats() txpool.Stats { return txpool.Stats{} }

func (harnessPool) Content() (pending, queued map[common.Address][]*types.Transaction) {
	return nil, nil
}

func (harnessPool) ContentFrom(common.Address) (pending, queued []*types.Transaction) {
	return nil, nil
}

// harnessSync is Besu's harness synchroniser: blocks 1, 2 and 3.
type harnessSync struct{}

func (harnessSync) SyncProgress() *backend.SyncStatus {
	return &backend.SyncStatus{StartingBlock: 1, CurrentBlock: 2, HighestBlock: 3}
}

// harnessService is the GraphQL service on the conformance chain with
// Besu's harness mocks (pool above, syncing 1/2/3, minimum gas price 0).
func harnessService(t testing.TB) *graphql.Service {
	t.Helper()
	c := importedChain(t)
	bk := &backend.Backend{
		Chain:   c,
		Pool:    harnessPool{},
		Config:  backend.Config{MinGasPrice: new(big.Int)},
		Sync:    harnessSync{},
		Filters: filters.New(c, nil, filters.Config{}),
	}
	svc, err := graphql.New(bk, graphql.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// serve runs the service's HTTP handler on a loopback test server.
func serve(t testing.TB, svc *graphql.Service) string {
	t.Helper()
	srv := httptest.NewServer(graphql.NewHTTPHandler(svc, graphql.HTTPConfig{HostAllowlist: []string{"*"}}))
	t.Cleanup(srv.Close)
	return srv.URL + graphql.Path
}

// fixture is one of Besu's GraphQL spec files.
type fixture struct {
	name       string
	Request    string          `json:"request"`
	Variables  *string         `json:"variables"`
	Response   json.RawMessage `json:"response"`
	StatusCode int             `json:"statusCode"`
}

func loadFixtures(t testing.TB) []*fixture {
	t.Helper()
	dir := filepath.Join(besuDir, "graphql")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skip("shared conformance data absent")
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
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// replay posts a fixture as Besu's EthGraphQLHttpBySpecTest does (the raw
// document as application/graphql, or JSON when it has variables) and
// returns "" when the status and the whole JSON answer match, else why not.
func replay(url string, f *fixture) string {
	var (
		body        []byte
		contentType = "application/graphql; charset=utf-8"
	)
	if f.Variables == nil {
		body = []byte(f.Request)
	} else {
		body, _ = json.Marshal(map[string]any{"query": f.Request, "variables": json.RawMessage(*f.Variables)})
		contentType = "application/json; charset=utf-8"
	}
	resp, err := http.Post(url, contentType, bytes.NewReader(body))
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return err.Error()
	}
	var gotV, wantV any
	if err := json.Unmarshal(got, &gotV); err != nil {
		return fmt.Sprintf("status %d, answer is not JSON: %q", resp.StatusCode, got)
	}
	if err := json.Unmarshal(f.Response, &wantV); err != nil {
		return "bad fixture: " + err.Error()
	}
	var problems []string
	if resp.StatusCode != f.StatusCode {
		problems = append(problems, fmt.Sprintf("status %d, want %d", resp.StatusCode, f.StatusCode))
	}
	if !reflect.DeepEqual(gotV, wantV) {
		want, _ := json.Marshal(wantV)
		problems = append(problems, fmt.Sprintf("answer\n  got  %s\n  want %s", got, want))
	}
	return strings.Join(problems, "; ")
}

// smallService is the service on a small in-memory chain (chaintest: a few
// blocks carrying logs, no state), for tests that need no conformance data.
func smallService(t testing.TB) (*graphql.Service, *chaintest.Chain) {
	t.Helper()
	return smallServiceWith(t, graphql.Config{})
}

// smallServiceWith is smallService with a configuration.
func smallServiceWith(t testing.TB, cfg graphql.Config) (*graphql.Service, *chaintest.Chain) {
	t.Helper()
	c := chaintest.Open(t, chain.NewMemoryDatabase())
	emitter := common.HexToAddress("0x00000000000000000000000000000000000000e1")
	topic := common.HexToHash("0x01")
	for i := 0; i < 3; i++ {
		c.Append([]*types.Log{chaintest.Log(emitter, []byte{byte(i)}, topic)})
	}
	bk := &backend.Backend{
		Chain:   c.Chain,
		Config:  backend.Config{MinGasPrice: new(big.Int)},
		Filters: filters.New(c.Chain, nil, filters.Config{}),
	}
	svc, err := graphql.New(bk, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return svc, c
}

// post sends a raw document and decodes the answer.
func post(t testing.TB, url, query string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/graphql", strings.NewReader(query))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: answer is not JSON: %v", query, err)
	}
	return resp.StatusCode, out
}
