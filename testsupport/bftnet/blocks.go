package bftnet

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/consensus/qbft"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// Engines are the genesis keys of the two BFT protocols, for scenarios
// that run on both.
var Engines = []string{"qbft", "ibft2"}

// GenerateEngine is Generate for count validators of engine ("qbft" or
// "ibft2") with 1 s blocks, requestTimeout s round timers and more alloc
// entries; its nodes enable that protocol's RPC group.
func GenerateEngine(t testing.TB, engine string, count, requestTimeout int, extraAlloc string) *Network {
	t.Helper()
	n := Generate(t, count, OperatorConfig(count, fmt.Sprintf(
		`%q: {"blockperiodseconds": 1, "epochlength": 30000, "requesttimeoutseconds": %d}`, engine, requestTimeout), extraAlloc))
	n.Engine = engine
	if engine == "qbft" {
		n.Groups = "QBFT"
	}
	return n
}

// Header is block number as node serves it (eth_getBlockByNumber), as a
// header; nil when node has no such block.
func Header(t testing.TB, node *testnode.P2PNode, number uint64) *types.Header {
	t.Helper()
	var raw json.RawMessage
	node.MustCall(&raw, "eth_getBlockByNumber", hexutil.EncodeUint64(number), false)
	if string(raw) == "null" {
		return nil
	}
	var h types.Header
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatalf("block %d: %v", number, err)
	}
	return &h
}

// Round is the round block h was committed in, from its extraData.
func (n *Network) Round(t testing.TB, h *types.Header) uint32 {
	t.Helper()
	if n.Engine == "qbft" {
		e, err := qbft.DecodeExtraData(h.Extra)
		if err != nil {
			t.Fatalf("block %d extraData: %v", h.Number, err)
		}
		return e.Round
	}
	e, err := ibft2.DecodeExtraData(h.Extra)
	if err != nil {
		t.Fatalf("block %d extraData: %v", h.Number, err)
	}
	return e.Round
}

// Sealers are the signers of block h's commit seals.
func (n *Network) Sealers(t testing.TB, h *types.Header) []common.Address {
	t.Helper()
	seal := ibft2.SealSigners
	if n.Engine == "qbft" {
		seal = qbft.SealSigners
	}
	s, err := seal(h)
	if err != nil {
		t.Fatalf("block %d seals: %v", h.Number, err)
	}
	return s
}

// RoundChanges counts the blocks in from..to (inclusive) that node has
// and that were committed after a round change (round above 0).
func (n *Network) RoundChanges(t testing.TB, node *testnode.P2PNode, from, to uint64) int {
	t.Helper()
	c := 0
	for h := from; h <= to; h++ {
		if hdr := Header(t, node, h); hdr != nil && n.Round(t, hdr) > 0 {
			c++
		}
	}
	return c
}

// Head is the highest head among nodes.
func Head(t testing.TB, nodes ...*testnode.P2PNode) uint64 {
	t.Helper()
	var top uint64
	for _, n := range nodes {
		top = max(top, n.BlockNumber())
	}
	return top
}

// Rounds describes blocks from..to (inclusive) as node has them: each
// block's round and its proposer (coinbase) as named by name, e.g.
// "r0:v2 r1:v3"; for the logs of fault scenarios.
func (n *Network) Rounds(t testing.TB, node *testnode.P2PNode, from, to uint64, name func(common.Address) string) string {
	t.Helper()
	var b strings.Builder
	for h := from; h <= to; h++ {
		hdr := Header(t, node, h)
		if hdr == nil {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "r%d:%s", n.Round(t, hdr), name(hdr.Coinbase))
	}
	return b.String()
}

// Name names a's validator by its index in Addrs ("v0"), or other for
// an address not among them.
func (n *Network) Name(other string) func(common.Address) string {
	return func(a common.Address) string {
		for i, v := range n.Addrs {
			if v == a {
				return fmt.Sprintf("v%d", i)
			}
		}
		return other
	}
}
