package node

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/p2p"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/ethash"
	"github.com/basaltchain/basalt/rpctypes"
)

// The dev engine is beacon around ethash: proof of work comes from the
// inner engine, the scheduler from the beacon, which stops at the merge.
func TestCapabilitiesOfDevEngine(t *testing.T) {
	e, err := NewEngine(config.DevGenesis())
	if err != nil {
		t.Fatal(err)
	}
	caps := capabilitiesOf(e)
	if caps.pow == nil || caps.scheduler == nil {
		t.Fatalf("capabilities %+v", caps)
	}
	if caps.producer != nil || caps.apis != nil || caps.protocols != nil {
		t.Fatalf("capabilities ethash does not have: %+v", caps)
	}
	h := &types.Header{Number: big.NewInt(30001), Difficulty: big.NewInt(100)}
	if caps.pow.SealHash(h) != ethash.SealHash(h) || !bytes.Equal(caps.pow.SeedHash(30001), ethash.SeedHash(30001)) {
		t.Fatal("proof of work is not ethash's")
	}
	if _, err := caps.scheduler.NextSeal(nil, h, time.Now()); err != nil {
		t.Fatalf("scheduling on a PoW head: %v", err)
	}
	var cs *consensus.CannotSealError
	posHead := &types.Header{Number: big.NewInt(5), Difficulty: new(big.Int)}
	if _, err := caps.scheduler.NextSeal(nil, posHead, time.Now()); !errors.As(err, &cs) || cs.Reason != consensus.ReasonPostMerge {
		t.Fatalf("scheduling on a post-merge head: %v", err)
	}
	if caps.rpcGroups(nil) != nil || caps.p2pProtocols() != nil {
		t.Fatal("groups or protocols without providers")
	}
}

// layer is an engine with every capability, answering with its name.
type layer struct {
	consensus.Engine
	name  string
	inner consensus.Engine // nil for the innermost
	at    time.Time
	err   error
}

func (l *layer) Inner() consensus.Engine { return l.inner }
func (l *layer) APIs(consensus.ChainHeadReader) []rpctypes.Group {
	return []rpctypes.Group{{Name: l.name}}
}
func (l *layer) Protocols() []p2p.Protocol { return []p2p.Protocol{{Name: l.name}} }
func (l *layer) Produce(context.Context, consensus.Host) error {
	return errors.New(l.name)
}
func (l *layer) NextSeal(consensus.ChainReader, *types.Header, time.Time) (time.Time, error) {
	return l.at, l.err
}

// innermost is an engine with a scheduler and nothing else.
type innermost struct {
	consensus.Engine
	at  time.Time
	err error
}

func (i *innermost) NextSeal(consensus.ChainReader, *types.Header, time.Time) (time.Time, error) {
	return i.at, i.err
}

// Through wrappers the outermost provider of a capability wins, and every
// scheduler has its say: the first refusal, else the latest time.
func TestCapabilitiesThroughWrappers(t *testing.T) {
	base, err := NewEngine(config.DevGenesis())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 0)
	in := &innermost{Engine: base, at: t0.Add(5 * time.Second)}
	mid := &layer{Engine: base, name: "MID", inner: in, at: t0.Add(2 * time.Second)}
	// outer only wraps: what it finds comes from mid and below.
	outer := &wrapperOnly{Engine: base, inner: mid}
	caps := capabilitiesOf(outer)
	if g := caps.rpcGroups(nil); len(g) != 1 || g[0].Name != "MID" {
		t.Fatalf("groups %v", g)
	}
	if p := caps.p2pProtocols(); len(p) != 1 || p[0].Name != "MID" {
		t.Fatalf("protocols %v", p)
	}
	if err := caps.producer.Produce(context.Background(), nil); err == nil || err.Error() != "MID" {
		t.Fatalf("producer %v", err)
	}
	if caps.pow != nil {
		t.Fatal("found proof of work below an engine that is no wrapper")
	}
	if at, err := caps.scheduler.NextSeal(nil, nil, t0); err != nil || !at.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("joined schedule %v %v, want the latest time", at, err)
	}
	refusal := &consensus.CannotSealError{Reason: consensus.ReasonNotMyTurn}
	in.err = refusal
	if _, err := caps.scheduler.NextSeal(nil, nil, t0); err != refusal {
		t.Fatalf("inner refusal lost: %v", err)
	}
	mid.err = &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}
	if _, err := caps.scheduler.NextSeal(nil, nil, t0); err != mid.err {
		t.Fatalf("outer refusal does not win: %v", err)
	}
}

type wrapperOnly struct {
	consensus.Engine
	inner consensus.Engine
}

func (w *wrapperOnly) Inner() consensus.Engine { return w.inner }

// cliqueLike is the dev engine plus an RPC group of its own, the way a
// Clique engine will bring CLIQUE. It wraps the dev engine, so the node
// still finds ethash's proof of work two layers down.
type cliqueLike struct{ consensus.Engine }

func (e cliqueLike) Inner() consensus.Engine { return e.Engine }

func (e cliqueLike) APIs(chain consensus.ChainHeadReader) []rpctypes.Group {
	return []rpctypes.Group{{Name: rpctypes.GroupClique, Methods: []rpctypes.Method{
		{Name: "clique_getSigners", Fn: func() ([]common.Address, error) {
			return []common.Address{{0x51}}, nil
		}},
	}}}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// An engine's RPC group is registered beside the services' groups and
// served when enabled; enabled groups nobody provides are named at start.
func TestEngineRPCGroups(t *testing.T) {
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
	cfg.RPC = config.RPCConfig{
		HTTPEnabled: true, HTTPHost: "127.0.0.1", HTTPAPIs: []string{"ETH", "CLIQUE", "QBFT", "PLUGINS"},
		WSEnabled: true, WSHost: "127.0.0.1", WSAPIs: []string{"QBFT", "PLUGINS"},
		WSMaxFrameSize: 4096, WSMaxActiveConnections: 4,
	}
	var logs syncBuffer
	n, err := newNode(cfg, slog.New(slog.NewTextHandler(&logs, nil)), func(g *config.Genesis, env EngineEnv) (consensus.Engine, error) {
		e, err := NewEngineWith(g, env)
		return cliqueLike{e}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()

	call := func(method string) string {
		resp, err := http.Post("http://"+n.HTTPAddr(), "application/json",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	for method, want := range map[string]string{
		"clique_getSigners":      `"result":["0x5100000000000000000000000000000000000000"]`,
		"eth_hashrate":           `"result":"0x0"`, // ethash, found through two wrappers
		"qbft_getPendingVotes":   `"code":-32604`,
		"debug_traceTransaction": `"code":-32604`,
	} {
		if got := call(method); !strings.Contains(got, want) {
			t.Errorf("%s: %s, want %s", method, got, want)
		}
	}
	out := logs.String()
	for _, g := range []string{"QBFT", "PLUGINS"} {
		if c := strings.Count(out, "group="+g+" "); c != 1 {
			t.Errorf("group %s named %d times:\n%s", g, c, out)
		}
	}
	if strings.Contains(out, "group=CLIQUE") || strings.Contains(out, "group=ETH") {
		t.Errorf("a served group reported unavailable:\n%s", out)
	}
	if !strings.Contains(out, `group=QBFT reason="needs the qbft consensus engine"`) ||
		!strings.Contains(out, `group=PLUGINS reason="not implemented yet"`) {
		t.Errorf("reasons:\n%s", out)
	}
}
