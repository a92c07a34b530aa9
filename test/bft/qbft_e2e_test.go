package bft

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/consensus/qbft"
	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// generateQBFT is a QBFT network of count validators from `operator
// generate-blockchain-config`: 1 s blocks, requestTimeout s round timer.
func generateQBFT(t testing.TB, count, requestTimeout int) *bftnet.Network {
	t.Helper()
	n := bftnet.Generate(t, count, bftnet.OperatorConfig(count,
		fmt.Sprintf(`"qbft": {"blockperiodseconds": 1, "epochlength": 30000, "requesttimeoutseconds": %d}`, requestTimeout), ""))
	n.Groups = "QBFT"
	return n
}

// rawHeader is block number of n, as a header.
func rawHeader(t *testing.T, n *testnode.P2PNode, number uint64) *types.Header {
	t.Helper()
	var raw map[string]any
	n.MustCall(&raw, "eth_getBlockByNumber", hexutil.EncodeUint64(number), false)
	if raw == nil {
		t.Fatalf("no block %d", number)
	}
	return headerFromJSON(t, raw)
}

// TestQBFTFourValidators: a generated network of 4 QBFT validators makes a
// block every period, every node has the same hash at every height, each
// block's extraData is QBFT's and its hash is QBFT's block hash, its seals
// are a quorum of the validators', transfers are mined, and the qbft_*
// methods answer.
func TestQBFTFourValidators(t *testing.T) {
	net := generateQBFT(t, 4, 2)
	net.Start()
	n := net.Nodes
	bftnet.WaitHeight(t, 60*time.Second, 3, n...)

	key, _ := devnode.Key(t, 0)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	var hashes []common.Hash
	for i, node := range n {
		tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(2018)), &types.DynamicFeeTx{
			ChainID: big.NewInt(2018), Nonce: uint64(i), GasTipCap: big.NewInt(0), GasFeeCap: big.NewInt(100e9),
			Gas: 21000, To: &to, Value: big.NewInt(1000),
		})
		hashes = append(hashes, devnode.SendRaw(t, node.Node, tx))
	}
	for _, h := range hashes {
		if r := devnode.WaitReceipt(t, n[3].Node, h); r.Status != 1 {
			t.Fatalf("transfer %s failed", h)
		}
	}
	top := n[0].BlockNumber()
	bftnet.WaitHeight(t, 30*time.Second, top, n...)
	low := bftnet.SameChain(t, n...)
	for h := uint64(1); h <= low; h++ {
		hdr := rawHeader(t, n[1], h)
		extra, err := qbft.DecodeExtraData(hdr.Extra)
		if err != nil {
			t.Fatalf("block %d extraData: %v", h, err)
		}
		if !slices.Equal(extra.Validators, net.Addrs) && len(extra.Validators) != 4 {
			t.Fatalf("block %d validators %v", h, extra.Validators)
		}
		if got := qbft.BlockHash(hdr); got.Hex() != n[1].BlockHash(h) {
			t.Fatalf("block %d hash %s, QBFT hash %s", h, n[1].BlockHash(h), got)
		}
		s, err := qbft.SealSigners(hdr)
		if err != nil || len(s) < 3 {
			t.Fatalf("block %d seals %v %v", h, s, err)
		}
	}
	if got := devnode.Balance(t, n[2].Node, to); got.Cmp(big.NewInt(4000)) != 0 {
		t.Fatalf("recipient balance %v, want 4000", got)
	}
	var vals []common.Address
	n[2].MustCall(&vals, "qbft_getValidatorsByBlockNumber", "latest")
	if len(vals) != 4 {
		t.Fatalf("qbft_getValidatorsByBlockNumber %v", vals)
	}
	vals = nil
	n[2].MustCall(&vals, "qbft_getValidatorsByBlockHash", n[2].BlockHash(1))
	if len(vals) != 4 {
		t.Fatalf("qbft_getValidatorsByBlockHash %v", vals)
	}
	var timeout uint64
	n[0].MustCall(&timeout, "qbft_getRequestTimeoutSeconds")
	if timeout != 2 {
		t.Fatalf("qbft_getRequestTimeoutSeconds %d", timeout)
	}
	var metrics []map[string]any
	n[0].MustCall(&metrics, "qbft_getSignerMetrics")
	if len(metrics) != 4 {
		t.Fatalf("qbft_getSignerMetrics %v", metrics)
	}
	var info struct {
		Protocols map[string]json.RawMessage `json:"protocols"`
	}
	n[0].MustCall(&info, "admin_nodeInfo")
	if !strings.Contains(string(info.Protocols["eth"]), `"qbft":{"blockPeriodSeconds":1,"epochLength":30000,"requestTimeoutSeconds":2}`) {
		t.Fatalf("admin_nodeInfo eth config %s", info.Protocols["eth"])
	}
	var peers []struct {
		Caps []string `json:"caps"`
	}
	n[0].MustCall(&peers, "admin_peers")
	if len(peers) == 0 || !slices.Contains(peers[0].Caps, "istanbul/100") {
		t.Fatalf("admin_peers caps %+v", peers)
	}
}

// TestQBFTFaults: the IBFT 2.0 fault scenarios on QBFT: with 1 of 4
// validators stopped the chain goes on, with 2 it halts, with one back it
// resumes; then, all four back, a 2|2 partition halts both halves and,
// healed, the network goes on on one chain.
func TestQBFTFaults(t *testing.T) {
	net := generateQBFT(t, 4, 1)
	net.Start()
	n := net.Nodes
	stopValidators(t, n)
	n[3].Restart()
	testnode.Connect(t, n...)
	progresses(t, 90*time.Second, n...)
	partition(t, n)
}

// TestQBFTVoting votes a fifth validator in with qbft_proposeValidatorVote
// by a majority, sees it seal blocks, then votes one of the four out.
func TestQBFTVoting(t *testing.T) {
	net := generateQBFT(t, 4, 1)
	net.Start()
	voting(t, net, bftMethods{"qbft", qbft.SealSigners})
}

// migrationStart is the first QBFT block of the migration test: block 20,
// the switch a consortium would schedule, not one right after genesis.
const migrationStart = 20

// TestQBFTMigration: 4 validators start on IBFT 2.0 with
// config.qbft.startblock; blocks before it carry IBFT 2.0 extraData and
// hashes, blocks from it QBFT's; the chain does not stall at the switch;
// ibft_* and qbft_* both answer; a node syncing from scratch verifies the
// whole chain.
func TestQBFTMigration(t *testing.T) {
	net := bftnet.Generate(t, 4, bftnet.OperatorConfig(4, fmt.Sprintf(
		`"ibft2": {"blockperiodseconds": 1, "requesttimeoutseconds": 1},
		 "qbft": {"blockperiodseconds": 1, "requesttimeoutseconds": 1, "startblock": %d}`, migrationStart), ""))
	net.Groups = "IBFT,QBFT,DEBUG"
	net.Start("--metrics-enabled", "--metrics-port=0")
	n := net.Nodes
	bftnet.WaitHeight(t, 90*time.Second, migrationStart+3, n...)
	// Each part's heights report under its own protocol's metrics.
	var dm struct {
		Consensus map[string]float64 `json:"consensus"`
	}
	n[1].MustCall(&dm, "debug_metrics")
	if c := dm.Consensus; c["ibft2_height"] != migrationStart-1 || c["qbft_height"] < migrationStart ||
		c["ibft2_committed_blocks_total"] < 1 || c["qbft_committed_blocks_total"] < 1 {
		t.Fatalf("consensus metrics %v: want IBFT 2.0 heights up to %d, QBFT's from it", c, migrationStart-1)
	}
	low := bftnet.SameChain(t, n...)
	for h := uint64(1); h <= low; h++ {
		hdr := rawHeader(t, n[0], h)
		if h < migrationStart {
			if _, err := ibft2.DecodeExtraData(hdr.Extra); err != nil {
				t.Fatalf("block %d: not IBFT 2.0 extraData: %v", h, err)
			}
			if ibft2.BlockHash(hdr).Hex() != n[0].BlockHash(h) {
				t.Fatalf("block %d: not the IBFT 2.0 hash", h)
			}
			continue
		}
		if _, err := qbft.DecodeExtraData(hdr.Extra); err != nil {
			t.Fatalf("block %d: not QBFT extraData: %v", h, err)
		}
		if qbft.BlockHash(hdr).Hex() != n[0].BlockHash(h) {
			t.Fatalf("block %d: not the QBFT hash", h)
		}
	}
	for _, m := range []string{"ibft_getValidatorsByBlockNumber", "qbft_getValidatorsByBlockNumber"} {
		for _, b := range []string{"0x2", "latest"} {
			var v []common.Address
			n[1].MustCall(&v, m, b)
			if !slices.Equal(v, net.Addrs) && len(v) != 4 {
				t.Fatalf("%s(%s) = %v", m, b, v)
			}
		}
	}
	// A node with an empty data directory syncs the migrated chain,
	// verifying both parts.
	s := testnode.StartP2P(t, t.TempDir(), "--genesis-file="+net.Genesis)
	testnode.Connect(t, append(slices.Clone(n), s)...)
	bftnet.WaitHeight(t, 60*time.Second, low, s)
	for h := uint64(1); h <= low; h++ {
		if s.BlockHash(h) != n[0].BlockHash(h) {
			t.Fatalf("synced node differs at %d", h)
		}
	}
}

// validatorContractCode is EVM runtime code that returns, whatever it is
// called with, the ABI encoding of vals as an address[]: what
// getValidators() of a validator contract returns.
func validatorContractCode(vals []common.Address) string {
	data := common.LeftPadBytes([]byte{0x20}, 32)
	data = append(data, common.LeftPadBytes(big.NewInt(int64(len(vals))).Bytes(), 32)...)
	for _, v := range vals {
		data = append(data, common.LeftPadBytes(v[:], 32)...)
	}
	const prefix = 15 // the code before the data
	n := len(data)
	code := []byte{0x61, byte(n >> 8), byte(n), 0x61, 0, prefix, 0x60, 0, 0x39, 0x61, byte(n >> 8), byte(n), 0x60, 0, 0xf3}
	return hexutil.Encode(append(code, data...))
}

// TestQBFTContractTransition: 4 QBFT validators select validators by
// block header until block 3, where a transition switches to a validator
// contract whose getValidators() names 3 of them, and to 2 s blocks: from
// block 3 headers are 2 s apart and carry no validators,
// qbft_getValidatorsByBlockNumber answers the contract's set, the chain
// goes on with the 3, and the fourth no longer seals.
func TestQBFTContractTransition(t *testing.T) {
	const switchAt = 3
	contract := common.HexToAddress("0x0000000000000000000000000000000000008888")
	net := generateQBFT(t, 4, 1)
	// The contract's set: the validators but the last one.
	kept := slices.Clone(net.Addrs[:3])
	var g map[string]any
	raw, err := os.ReadFile(net.Genesis)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	cfg := g["config"].(map[string]any)
	cfg["transitions"] = map[string]any{"qbft": []any{map[string]any{
		"block": switchAt, "validatorselectionmode": "contract", "validatorcontractaddress": contract.Hex(),
		"blockperiodseconds": 2}}}
	g["alloc"].(map[string]any)[contract.Hex()[2:]] = map[string]any{"balance": "0x0", "code": validatorContractCode(kept)}
	raw, _ = json.Marshal(g)
	if err := os.WriteFile(net.Genesis, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	net.Start()
	n := net.Nodes
	bftnet.WaitHeight(t, 60*time.Second, switchAt+3, n[:3]...)
	low := bftnet.SameChain(t, n[:3]...)
	for h := uint64(1); h <= low; h++ {
		hdr := rawHeader(t, n[0], h)
		x, err := qbft.DecodeExtraData(hdr.Extra)
		if err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		var vals []common.Address
		n[1].MustCall(&vals, "qbft_getValidatorsByBlockNumber", hexutil.EncodeUint64(h))
		seals, _ := qbft.SealSigners(hdr)
		if h < switchAt {
			if len(x.Validators) != 4 || len(vals) != 4 {
				t.Fatalf("block %d (block-header mode): extraData %v, RPC %v", h, x.Validators, vals)
			}
			continue
		}
		if len(x.Validators) != 0 || !slices.Equal(vals, sortedAddrs(kept)) {
			t.Fatalf("block %d (contract mode): extraData %v, RPC %v, want %v", h, x.Validators, vals, kept)
		}
		if slices.Contains(seals, net.Addrs[3]) || len(seals) < 2 { // quorum of 3 is 2
			t.Fatalf("block %d sealed by %v", h, seals)
		}
		if parent := rawHeader(t, n[0], h-1); hdr.Time < parent.Time+2 {
			t.Fatalf("block %d %d s after its parent; the transition's period is 2 s", h, hdr.Time-parent.Time)
		}
	}
}

func sortedAddrs(a []common.Address) []common.Address {
	out := slices.Clone(a)
	slices.SortFunc(out, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })
	return out
}
