package qbftcontract

import (
	"crypto/ecdsa"
	"encoding/json"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/testnode"
	"github.com/basaltchain/basalt/testsupport/txload"
)

// loadRate is the transfers per second offered during
// TestContractValidatorChangesUnderLoad; go test uses one this machine
// sustains beside other tests (docs/concepts/versions-and-upgrades.md
// gives the 500 tx/s command).
var loadRate = flag.Int("load.rate", 40, "transfers per second offered while validators change")

// fund adds balance for keys to the genesis at path.
func fund(t *testing.T, path string, keys []*ecdsa.PrivateKey) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]any
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	alloc := g["alloc"].(map[string]any)
	for _, k := range keys {
		alloc[address(k).Hex()] = map[string]any{"balance": "0xad78ebc5ac6200000000"}
	}
	if raw, err = json.Marshal(g); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// callContract sends key's transaction calling method(arg) of the
// validator contract to n and returns the block that mined it, checking
// it logged event.
func callContract(t *testing.T, n *testnode.P2PNode, parsed abi.ABI, key *ecdsa.PrivateKey, method string, arg common.Address, event string) uint64 {
	t.Helper()
	data, err := parsed.Pack(method, arg)
	if err != nil {
		t.Fatal(err)
	}
	var nonce hexutil.Uint64
	n.MustCall(&nonce, "eth_getTransactionCount", address(key), "pending")
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(chainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(chainID), Nonce: uint64(nonce), GasTipCap: big.NewInt(0), GasFeeCap: big.NewInt(100e9), Gas: 200000,
		To: &contractAddress, Data: data})
	raw, _ := tx.MarshalBinary()
	var hash common.Hash
	n.MustCall(&hash, "eth_sendRawTransaction", hexutil.Encode(raw))
	return waitReceipt(t, n, hash, event)
}

// TestContractValidatorChangesUnderLoad: a QBFT network in contract
// validator-selection mode, 4 validators and a fifth node, under a steady
// stream of transfers: a validator's transaction adds the fifth node to
// ValidatorSet, which then takes part (5 validators need 4 commit seals);
// another's removes validator 3, which stays up as a follower and seals
// nothing more. The chain never halts, every node has the same hash at
// every height, every acknowledged transfer is mined exactly once.
func TestContractValidatorChangesUnderLoad(t *testing.T) {
	c, parsed := compile(t)
	ks := keys(t, 5)
	var initial []common.Address
	for _, k := range ks[:4] {
		initial = append(initial, address(k))
	}
	initial = sorted(initial)
	newcomer, leaving := address(ks[4]), address(ks[3])
	senders := txload.Senders("qbft-contract", 10)
	genesis := writeGenesis(t, t.TempDir(), c, initial)
	fund(t, genesis, senders)
	nodes := testnode.StartNetwork(t, 5, func(i int) []string {
		keyFile := filepath.Join(t.TempDir(), "key")
		if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(ks[i]))), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"--genesis-file=" + genesis, "--node-private-key-file=" + keyFile,
			"--rpc-http-api=ETH,NET,WEB3,ADMIN,QBFT,TXPOOL"}
	})
	net := &bftnet.Network{Engine: "qbft"} // Addrs: node i's address, for the logs
	for _, k := range ks {
		net.Addrs = append(net.Addrs, address(k))
	}
	waitHeight(t, 60*time.Second, transitionBlock+1, nodes...)
	first := bftnet.Head(t, nodes...)
	load := txload.Start(chainID, senders, *loadRate, nodes...)
	defer load.Stop()
	waitHeight(t, 60*time.Second, first+3, nodes...)

	added := callContract(t, nodes[1], parsed, ks[0], "addValidator", newcomer, "ValidatorAdded(address,address)")
	all := sorted(append(slices.Clone(initial), newcomer))
	waitHeight(t, 60*time.Second, added+8, nodes...)
	if got := validatorsAt(t, nodes[2], added+1); !slices.Equal(got, all) {
		t.Fatalf("validators at block %d: %v, want %v", added+1, got, all)
	}
	took := false
	for h := added + 2; h <= added+8; h++ {
		hdr := header(t, nodes[0], h)
		seals := net.Sealers(t, hdr)
		if len(seals) < 4 {
			t.Fatalf("block %d: %d seals, 4 needed of 5 validators", h, len(seals))
		}
		took = took || hdr.Coinbase == newcomer || slices.Contains(seals, newcomer)
	}
	if !took {
		t.Fatalf("added validator %s neither proposed nor sealed blocks %d..%d", newcomer, added+2, added+8)
	}
	addRC := net.RoundChanges(t, nodes[0], added+1, added+8)
	addRounds := net.Rounds(t, nodes[0], added+1, added+8, net.Name("?"))

	removed := callContract(t, nodes[2], parsed, ks[1], "removeValidator", leaving, "ValidatorRemoved(address,address)")
	rest := slices.DeleteFunc(slices.Clone(all), func(a common.Address) bool { return a == leaving })
	waitHeight(t, 60*time.Second, removed+8, nodes...)
	if got := validatorsAt(t, nodes[4], removed+1); !slices.Equal(got, rest) {
		t.Fatalf("validators at block %d: %v, want %v", removed+1, got, rest)
	}
	for h := removed + 2; h <= removed+8; h++ {
		if seals := net.Sealers(t, header(t, nodes[0], h)); slices.Contains(seals, leaving) || len(seals) < 3 {
			t.Fatalf("block %d sealed by %v: want 3 of the 4 remaining, not removed %s", h, seals, leaving)
		}
	}
	removeRC := net.RoundChanges(t, nodes[0], removed+1, removed+8)
	removeRounds := net.Rounds(t, nodes[0], removed+1, removed+8, net.Name("?"))

	load.Stop()
	fig := load.Check(t, nodes[0].Node, 90*time.Second)
	waitHeight(t, 60*time.Second, bftnet.Head(t, nodes...), nodes...)
	low := bftnet.SameChain(t, nodes...)
	if fig.Acknowledged == 0 {
		t.Fatal("no transfer acknowledged")
	}
	t.Logf("contract mode, %d tx/s offered: validator v4 added in block %d (%d of the next 8 blocks at a round above 0: %s), v3 removed in block %d (%d of the next 8: %s); blocks %d..%d (%d produced), one chain on all 5; %s",
		*loadRate, added, addRC, addRounds, removed, removeRC, removeRounds, first, low, low-first, fig)
}
