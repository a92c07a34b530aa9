package rpc

import (
	"context"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/miner"
	"github.com/basaltchain/basalt/testsupport/chaingen"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// proofOfStake builds post-merge blocks: it is the node's engine but
// prepares every header with difficulty 0, as a consensus client's
// payload would be. Only the test chain builder uses it; the node that
// imports the blocks checks them with its own engine.
type proofOfStake struct{ consensus.Engine }

func (proofOfStake) Prepare(_ consensus.ChainReader, header, _ *types.Header) error {
	header.Difficulty = new(big.Int)
	return nil
}

// writePostMergeChain writes the dev genesis and one post-merge block on it
// into dir, as `blocks import` reads them, and returns the genesis and
// blocks files.
func writePostMergeChain(t *testing.T, dir string) (genesis, blocks string) {
	t.Helper()
	g := config.DevGenesis()
	c, db, err := chaingen.OpenMemoryWith(g, proofOfStake{chaingen.Engine(g)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	parent := c.CurrentHeader()
	block, exec, err := miner.Build(context.Background(), c, parent, c.CurrentHash(), parent.Time+1, nil,
		common.HexToAddress(devnode.Coinbase), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertBlock(context.Background(), block, chain.InsertOptions{Executed: exec}); err != nil {
		t.Fatalf("insert post-merge block: %v", err)
	}
	gj, err := chaingen.GenesisJSON(g)
	if err != nil {
		t.Fatal(err)
	}
	genesis, blocks = filepath.Join(dir, "genesis.json"), filepath.Join(dir, "blocks.rlp")
	if err := os.WriteFile(genesis, gj, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(blocks)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := chaingen.WriteRLP(f, []*types.Block{block}); err != nil {
		t.Fatal(err)
	}
	return genesis, blocks
}

// TestPostMergeHeadIdles starts a mining node whose head is a post-merge
// block (imported; ethash cannot extend it). Its production loop must wait
// for a new head instead of building and failing to seal block after block:
// the process stays idle, says once why it does not mine, offers no work,
// and keeps its head.
func TestPostMergeHeadIdles(t *testing.T) {
	dir := t.TempDir()
	genesis, blocks := writePostMergeChain(t, t.TempDir())
	genesisFlag := "--genesis-file=" + genesis
	if out, err := exec.Command(testnode.Binary(t), "--data-path="+dir, genesisFlag, "blocks", "import",
		"--from="+blocks).CombinedOutput(); err != nil {
		t.Fatalf("blocks import: %v\n%s", err, out)
	}
	n := testnode.Start(t, dir, genesisFlag, "--miner-enabled", "--miner-coinbase="+devnode.Coinbase)
	testnode.WaitFor(t, 20*time.Second, "the miner to pause", func() bool {
		return strings.Contains(n.Logs(), "Mining paused")
	})

	before, err := n.CPUTime()
	if err != nil {
		t.Skipf("no process CPU time here: %v", err)
	}
	time.Sleep(3 * time.Second)
	after, err := n.CPUTime()
	if err != nil {
		t.Fatal(err)
	}
	// A spinning loop burns a whole core (about 3 s here); an idle node
	// next to nothing. The bound leaves room for the runtime's own work on
	// a loaded machine.
	used := after - before
	t.Logf("CPU time of the idle mining node over 3s: %v", used)
	if used > 300*time.Millisecond {
		t.Fatalf("idle mining node used %v of CPU in 3s", used)
	}

	logs := n.Logs()
	if c := strings.Count(logs, "Mining paused"); c != 1 {
		t.Fatalf("pause logged %d times:\n%s", c, logs)
	}
	if !strings.Contains(logs, `reason="post-merge head"`) {
		t.Fatalf("pause reason not logged:\n%s", logs)
	}
	if bn := devnode.BlockNumber(t, n); bn != 1 {
		t.Fatalf("head moved to %d", bn)
	}
	if _, err := n.Call("eth_getWork"); err == nil {
		t.Fatal("eth_getWork offered work on a post-merge head")
	}
}

// TestUnavailableRPCGroups enables groups the node cannot serve: like Besu
// it starts, but it names each such group and why at start-up, and their
// methods answer "Method not enabled" while unknown names stay "Method not
// found".
func TestUnavailableRPCGroups(t *testing.T) {
	n := testnode.Start(t, t.TempDir(), "--network=dev", "--rpc-http-api=ETH,PLUGINS,CLIQUE,QBFT")
	logs := n.Logs()
	for _, want := range []string{
		`msg="RPC API group not available on this node" group=PLUGINS reason="not implemented yet"`,
		`msg="RPC API group not available on this node" group=CLIQUE reason="needs the clique consensus engine"`,
		`msg="RPC API group not available on this node" group=QBFT reason="needs the qbft consensus engine"`,
	} {
		if strings.Count(logs, want) != 1 {
			t.Errorf("want one line %s in:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "group=ETH") {
		t.Errorf("ETH reported unavailable:\n%s", logs)
	}
	if bn := devnode.BlockNumber(t, n); bn != 0 {
		t.Fatalf("block number %d", bn)
	}
	for method, code := range map[string]int{
		"debug_traceTransaction":          -32604,
		"clique_getSigners":               -32604,
		"qbft_getValidatorsByBlockNumber": -32604,
		"net_version":                     -32604, // NET is not enabled
		"clique_noSuchMethod":             -32601,
		"foo_bar":                         -32601,
	} {
		_, err := n.Call(method)
		if e, ok := err.(*testnode.RPCError); !ok || e.Code != code {
			t.Errorf("%s: %v, want %d", method, err, code)
		}
	}
}
