package bft

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// bftMethods are the methods and the seal reader of one BFT protocol, for
// the scenarios both protocols run.
type bftMethods struct {
	prefix      string // "ibft", "qbft"
	sealSigners func(*types.Header) ([]common.Address, error)
}

var ibftMethods = bftMethods{"ibft", ibft2.SealSigners}

func (m bftMethods) validatorsAt(t *testing.T, n *testnode.P2PNode, block string) []common.Address {
	t.Helper()
	var v []common.Address
	n.MustCall(&v, m.prefix+"_getValidatorsByBlockNumber", block)
	return v
}

// vote makes each of voters propose add (or drop) of a.
func (m bftMethods) vote(t *testing.T, a common.Address, add bool, voters ...*testnode.P2PNode) {
	t.Helper()
	for _, n := range voters {
		var ok bool
		n.MustCall(&ok, m.prefix+"_proposeValidatorVote", a, add)
		if !ok {
			t.Fatal("proposeValidatorVote returned false")
		}
	}
}

// sealersOf returns the signers of the commit seals of block number.
func (m bftMethods) sealersOf(t *testing.T, n *testnode.P2PNode, number uint64) []common.Address {
	t.Helper()
	var raw map[string]any
	n.MustCall(&raw, "eth_getBlockByNumber", hexutil.EncodeUint64(number), false)
	h := headerFromJSON(t, raw)
	s, err := m.sealSigners(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestIBFTVoting votes a fifth validator in by a majority of
// ibft_proposeValidatorVote, then one out: the quorum follows the set
// (5 validators need 4 to agree, so the new one takes part), and once out a
// validator's seals no longer appear.
func TestIBFTVoting(t *testing.T) {
	net := bftnet.GenerateIBFT(t, 4, 1)
	net.Start()
	voting(t, net, ibftMethods)
}

// voting votes a fifth validator into net (running, 4 validators) and then
// one of the four out, with the protocol's methods m.
func voting(t *testing.T, net *bftnet.Network, m bftMethods) {
	t.Helper()
	n := net.Nodes
	bftnet.WaitHeight(t, 60*time.Second, 2, n...)

	key, _ := crypto.GenerateKey()
	fifth := crypto.PubkeyToAddress(key.PublicKey)
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(key))), 0o600); err != nil {
		t.Fatal(err)
	}
	e := testnode.StartP2P(t, t.TempDir(), "--genesis-file="+net.Genesis, "--node-private-key-file="+keyFile,
		"--rpc-http-api=ETH,NET,WEB3,ADMIN,"+net.APIGroups())
	all := append(slices.Clone(n), e)
	testnode.Connect(t, all...)

	var pending map[string]bool
	m.vote(t, fifth, true, n[0])
	n[0].MustCall(&pending, m.prefix+"_getPendingVotes")
	if !pending[common.Address(fifth).Hex()] && !pending[lower(fifth)] {
		t.Fatalf("pending votes %v", pending)
	}
	m.vote(t, fifth, true, n[1:3]...) // 3 of 4: a majority
	testnode.WaitFor(t, 60*time.Second, "fifth validator voted in", func() bool {
		return slices.Contains(m.validatorsAt(t, n[0], "latest"), fifth)
	})
	for _, v := range n[:3] {
		var ok bool
		v.MustCall(&ok, m.prefix+"_discardValidatorVote", fifth)
	}
	progresses(t, 60*time.Second, all...)

	// Five validators: the quorum is 4, so with one of the original four
	// stopped the chain needs the new validator.
	n[3].Stop(syscall.SIGTERM)
	live := []*testnode.P2PNode{n[0], n[1], n[2], e}
	progresses(t, 90*time.Second, live...)
	head := n[0].BlockNumber()
	if s := m.sealersOf(t, n[0], head); !slices.Contains(s, fifth) || len(s) < 4 {
		t.Fatalf("block %d sealed by %v; want 4 seals including %s", head, s, fifth)
	}

	// Vote n[3] (stopped) out: 3 of 5 is a majority. Then 4 validators
	// remain, all live, quorum 3.
	gone := net.Addrs[3] // node i runs on key i
	m.vote(t, gone, false, n[0], n[1], e)
	testnode.WaitFor(t, 90*time.Second, "validator voted out", func() bool {
		v := m.validatorsAt(t, n[0], "latest")
		return len(v) == 4 && !slices.Contains(v, gone)
	})
	progresses(t, 60*time.Second, live...)
	bftnet.SameChain(t, live...)
}

// headerFromJSON rebuilds a header from its eth_getBlockByNumber form.
func headerFromJSON(t *testing.T, block map[string]any) *types.Header {
	t.Helper()
	b, _ := json.Marshal(block)
	var h types.Header
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	return &h
}

func lower(a common.Address) string { return "0x" + common.Bytes2Hex(a[:]) }
