package p2p_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/internal/testnode"
)

// graphQLSyncing is the answer to syncingQuery.
type graphQLSyncing struct {
	Syncing *struct {
		StartingBlock hexutil.Uint64 `json:"startingBlock"`
		CurrentBlock  hexutil.Uint64 `json:"currentBlock"`
		HighestBlock  hexutil.Uint64 `json:"highestBlock"`
	} `json:"syncing"`
}

const syncingQuery = `{ syncing { startingBlock currentBlock highestBlock } }`

// GraphQL's syncing is served by the node's one backend, wired to the
// network: node B, with GraphQL on, syncs a few thousand blocks from node A
// and answers a progress object while it catches up (current below
// highest), then null once it has.
func TestGraphQLSyncingDuringSync(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two nodes")
	}
	const blocks = 3000
	f := generated(t, blocks, 1)
	dir := t.TempDir()
	importBlocks(t, f, dir)
	a := testnode.StartP2P(t, dir, "--genesis-file="+f.Genesis)
	if a.BlockNumber() != blocks {
		t.Fatalf("node A at block %d", a.BlockNumber())
	}
	b := testnode.StartP2PGraphQL(t, t.TempDir(), "--genesis-file="+f.Genesis)
	syncing := func() graphQLSyncing {
		t.Helper()
		data, err := b.GraphQL(syncingQuery)
		if err != nil {
			t.Fatal(err)
		}
		var out graphQLSyncing
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("answer %s: %v", data, err)
		}
		return out
	}
	if s := syncing(); s.Syncing != nil {
		t.Fatalf("syncing before any peer: %+v", *s.Syncing)
	}

	b.AddPeer(a)
	var seen int
	testnode.WaitFor(t, 2*time.Minute, "B to report progress, then finish the sync", func() bool {
		s := syncing()
		if s.Syncing == nil {
			// Null again after progress, with the head reached: the sync
			// is over (a sync cut short would start again).
			return seen > 0 && b.BlockNumber() == blocks
		}
		p := *s.Syncing
		if p.HighestBlock != blocks || p.StartingBlock != 0 || p.CurrentBlock > p.HighestBlock {
			t.Fatalf("progress %+v", p)
		}
		if p.CurrentBlock < p.HighestBlock {
			seen++
		}
		return false
	})
	if b.BlockNumber() != blocks || b.BlockHash(blocks) != f.Head.Hex() {
		t.Fatalf("B at block %d (%s), want %d (%s)", b.BlockNumber(), b.BlockHash(blocks), blocks, f.Head.Hex())
	}
	if s := syncing(); s.Syncing != nil {
		t.Fatalf("syncing after the sync: %+v", *s.Syncing)
	}
	t.Logf("GraphQL reported progress %d times during the sync", seen)
}
