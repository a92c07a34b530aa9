package goquorum

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/consensus/qbft"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// validatorsNow returns the validator set a node reports at its head:
// qbft_getValidatorsByBlockNumber("latest") on Basalt (the validators of
// the head block), istanbul_getValidators() on GoQuorum (after the head
// block, its votes counted), sorted.
func validatorsNow(t *testing.T, node *testnode.P2PNode, goQuorum bool) []common.Address {
	t.Helper()
	var vals []common.Address
	if goQuorum {
		node.MustCall(&vals, "istanbul_getValidators")
	} else {
		node.MustCall(&vals, "qbft_getValidatorsByBlockNumber", "latest")
	}
	slices.SortFunc(vals, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	return vals
}

// vote makes every validator of n vote for (add) or against (drop)
// candidate: qbft_proposeValidatorVote on Basalt, istanbul_propose on
// GoQuorum; with discard, each withdraws its vote instead.
func (n *mixedNetwork) vote(candidate common.Address, add, discard bool) {
	t := n.t
	t.Helper()
	for _, b := range n.basalt {
		var ok bool
		if discard {
			b.MustCall(&ok, "qbft_discardValidatorVote", candidate)
		} else {
			b.MustCall(&ok, "qbft_proposeValidatorVote", candidate, add)
		}
	}
	for _, g := range n.geth {
		if discard {
			g.node.MustCall(nil, "istanbul_discard", candidate)
		} else {
			g.node.MustCall(nil, "istanbul_propose", candidate, add)
		}
	}
}

// waitValidators waits until every node of n (and extra) reports want as
// the validator set at its head.
func (n *mixedNetwork) waitValidators(want []common.Address, extra ...*testnode.P2PNode) {
	t := n.t
	t.Helper()
	testnode.WaitFor(t, 2*time.Minute, "validators "+strings.Join(addrStrings(want), ","), func() bool {
		for _, b := range append(slices.Clone(n.basalt), extra...) {
			if !slices.Equal(validatorsNow(t, b, false), want) {
				return false
			}
		}
		for _, g := range n.geth {
			if !slices.Equal(validatorsNow(t, g.node, true), want) {
				return false
			}
		}
		return true
	})
}

func addrStrings(as []common.Address) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Hex())
	}
	return out
}

// votesIn returns the blocks from..to (as GoQuorum stores them) whose
// extraData votes for candidate, by proposer, and checks every drop vote
// is encoded as GoQuorum writes it: [address, 0x80].
func votesIn(t *testing.T, g *gethNode, from, to uint64, candidate common.Address, add bool) map[common.Address]int {
	t.Helper()
	byProposer := map[common.Address]int{}
	dropVote := append(append([]byte{0xd6, 0x94}, candidate[:]...), 0x80)
	for h := from; h <= to; h++ {
		var raw string
		g.node.MustCall(&raw, "debug_getBlockRlp", h)
		header := decodeBlockHeader(t, h, raw)
		extra, err := qbft.DecodeExtraData(header.Extra)
		if err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		if extra.Vote == nil || extra.Vote.Recipient != candidate || extra.Vote.Add != add {
			continue
		}
		if !add && !bytes.Contains(header.Extra, dropVote) {
			t.Fatalf("block %d: drop vote not encoded as [address, 0x80]: %x", h, header.Extra)
		}
		byProposer[header.Coinbase]++
	}
	return byProposer
}

// TestMixedNetworkVotes: in a network of 2 Basalt and 2 GoQuorum
// validators, all four vote a Basalt node in (add votes in the headers of
// both clients' blocks), it then takes part in consensus with both, and
// all four vote it out again (drop votes, which GoQuorum accepts only as
// [address, 0x80]); every node reports the same validators throughout
// and the same block hashes.
func TestMixedNetworkVotes(t *testing.T) {
	bin := gethBinary(t)
	keys := validatorKeys(t, 5)
	n := startMixed(t, bin, keys[:4])
	newKey := keys[4]
	candidate := crypto.PubkeyToAddress(newKey.PublicKey)
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(newKey))), 0o600); err != nil {
		t.Fatal(err)
	}
	newcomer := testnode.StartP2P(t, t.TempDir(), "--genesis-file="+n.genesis, "--node-private-key-file="+keyFile,
		"--rpc-http-api=ETH,NET,WEB3,ADMIN,QBFT")
	for _, b := range n.basalt {
		newcomer.AddPeer(b)
	}
	for _, g := range n.geth {
		var ok bool
		newcomer.MustCall(&ok, "admin_addPeer", g.enode())
	}
	newcomer.WaitPeers(4, time.Minute)
	gq := n.geth[0].node
	waitHeight(t, time.Minute, 3, append(n.running(), newcomer)...)

	// Vote the newcomer in.
	start := gq.BlockNumber() + 1
	n.vote(candidate, true, false)
	all := sortedAddresses(keys)
	n.waitValidators(all, newcomer)
	n.vote(candidate, true, true)
	added := gq.BlockNumber()
	t.Logf("%s voted in by block %d; add votes in blocks by %v", candidate, added, votesIn(t, n.geth[0], start, added, candidate, true))

	// It proposes and seals blocks with the others.
	waitHeight(t, time.Minute, added+6, append(n.running(), newcomer)...)
	proposed := false
	for h := added + 1; h <= added+6; h++ {
		header, signers := gethBlock(t, n.geth[0], h, gq.BlockHash(h))
		if len(signers) < 4 {
			t.Fatalf("block %d: %d seals of 5 validators", h, len(signers))
		}
		proposed = proposed || header.Coinbase == candidate
	}
	if !proposed {
		t.Fatalf("the new validator proposed none of blocks %d..%d", added+1, added+6)
	}

	// Vote it out: drop votes.
	start = gq.BlockNumber() + 1
	n.vote(candidate, false, false)
	n.waitValidators(n.validators, newcomer)
	n.vote(candidate, false, true)
	dropped := gq.BlockNumber()
	drops := votesIn(t, n.geth[0], start, dropped, candidate, false)
	t.Logf("%s voted out by block %d; drop votes in blocks by %v", candidate, dropped, drops)
	basaltDrops := 0
	for _, k := range n.basaltKeys {
		basaltDrops += drops[crypto.PubkeyToAddress(k.PublicKey)]
	}
	if basaltDrops == 0 {
		t.Fatal("no Basalt-proposed block carried a drop vote (GoQuorum's acceptance of Basalt's drop-vote encoding untested)")
	}

	waitHeight(t, time.Minute, dropped+3, n.running()...)
	top := gq.BlockNumber()
	waitHeight(t, time.Minute, top, append(n.running(), newcomer)...)
	hashes := sameHashes(t, 0, top, append(n.running(), newcomer)...)
	for h := uint64(1); h <= top; h++ {
		gethBlock(t, n.geth[0], h, hashes[h])
	}
	n.checkGethLogs()
	t.Logf("heights 0..%d: same hash on all 5 nodes", top)
}
