// Package qbftcontract tests QBFT validator selection by contract end to
// end: ValidatorSet.sol, compiled with solc (the npm package test/ethers
// installs; skipped without it, as the ethers tests are), sits in the
// genesis alloc with its storage holding the initial validators; a
// transition switches the network from block-header to contract mode; a
// transaction to the contract adds a validator, which then proposes and
// signs blocks; under a steady stream of transfers, one is added and
// another removed (contract_load_test.go).
package qbftcontract

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/consensus/qbft"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

const (
	chainID = 1337
	// transitionBlock is the first block whose validators come from the
	// contract.
	transitionBlock = 3
)

// contractAddress is where the genesis puts ValidatorSet.
var contractAddress = common.HexToAddress("0x0000000000000000000000000000000000008888")

// compiled is ValidatorSet.sol as compile.mjs prints it.
type compiled struct {
	Version string          `json:"version"`
	ABI     json.RawMessage `json:"abi"`
	Runtime hexutil.Bytes   `json:"runtime"`
	Storage []struct {
		Label string `json:"label"`
		Slot  string `json:"slot"`
	} `json:"storage"`
}

// compile runs compile.mjs with Node.js, skipping the test when the solc
// package is not installed.
func compile(t *testing.T) (*compiled, abi.ABI) {
	t.Helper()
	if _, err := os.Stat("../ethers/node_modules/solc"); err != nil {
		t.Skip("test/ethers/node_modules is absent: run `npm ci` in test/ethers to compile the validator contract with solc")
	}
	nodeJS, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("solc is installed but Node.js is not on PATH")
	}
	out, err := exec.Command(nodeJS, "compile.mjs").Output()
	if err != nil {
		t.Fatalf("compile.mjs: %v\n%s", err, out)
	}
	var c compiled
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	parsed, err := abi.JSON(bytes.NewReader(c.ABI))
	if err != nil {
		t.Fatal(err)
	}
	return &c, parsed
}

// slot returns the storage slot solc gave the state variable label.
func (c *compiled) slot(t *testing.T, label string) common.Hash {
	t.Helper()
	for _, s := range c.Storage {
		if s.Label == label {
			n, ok := new(big.Int).SetString(s.Slot, 10)
			if !ok {
				t.Fatalf("slot %q", s.Slot)
			}
			return common.BigToHash(n)
		}
	}
	t.Fatalf("no storage variable %s in %+v", label, c.Storage)
	return common.Hash{}
}

// storage is the contract storage that holds validators: the dynamic
// array `validators` (length at its slot, items from keccak256(slot)) and
// the mapping `isValidator` (true at keccak256(address ‖ slot)).
func (c *compiled) storage(t *testing.T, validators []common.Address) map[string]string {
	t.Helper()
	arr, set := c.slot(t, "validators"), c.slot(t, "isValidator")
	st := map[string]string{arr.Hex(): common.BigToHash(big.NewInt(int64(len(validators)))).Hex()}
	first := new(big.Int).SetBytes(crypto.Keccak256(arr[:]))
	one := common.BigToHash(common.Big1).Hex()
	for i, v := range validators {
		st[common.BigToHash(new(big.Int).Add(first, big.NewInt(int64(i)))).Hex()] = common.BytesToHash(v[:]).Hex()
		st[crypto.Keccak256Hash(common.LeftPadBytes(v[:], 32), set[:]).Hex()] = one
	}
	return st
}

// keys returns count deterministic keys.
func keys(t *testing.T, count int) []*ecdsa.PrivateKey {
	t.Helper()
	var out []*ecdsa.PrivateKey
	for i := range count {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("basalt-qbft-contract-%d", i))))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	return out
}

func address(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// writeGenesis writes a QBFT genesis in Besu's format: validators in the
// extraData (block-header mode), ValidatorSet in the alloc holding the
// same validators, and a transition to contract mode at transitionBlock.
// Every validator account is funded so it can send transactions.
func writeGenesis(t *testing.T, dir string, c *compiled, validators []common.Address) string {
	t.Helper()
	alloc := map[string]any{
		contractAddress.Hex(): map[string]any{"balance": "0x0", "code": hexutil.Encode(c.Runtime), "storage": c.storage(t, validators)},
	}
	for _, v := range validators {
		alloc[v.Hex()] = map[string]any{"balance": "0xad78ebc5ac6200000"}
	}
	g := map[string]any{
		"config": map[string]any{
			"chainId": chainID, "berlinBlock": 0, "londonBlock": 0,
			"qbft": map[string]any{"blockperiodseconds": 1, "epochlength": 30000, "requesttimeoutseconds": 2},
			"transitions": map[string]any{"qbft": []any{map[string]any{
				"block": transitionBlock, "validatorselectionmode": "contract",
				"validatorcontractaddress": contractAddress.Hex(),
			}}},
		},
		"nonce": "0x0", "timestamp": "0x0", "gasLimit": "0x1fffffffffffff", "difficulty": "0x1",
		"extraData":  hexutil.Encode(qbft.EncodeValidators(validators)),
		"mixHash":    qbft.MixDigest.Hex(),
		"coinbase":   common.Address{}.Hex(),
		"alloc":      alloc,
		"parentHash": common.Hash{}.Hex(),
	}
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "genesis.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sorted returns addrs in ascending byte order.
func sorted(addrs []common.Address) []common.Address {
	return slices.SortedFunc(slices.Values(addrs), func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
}

// validatorsAt is qbft_getValidatorsByBlockNumber, sorted.
func validatorsAt(t *testing.T, n *testnode.P2PNode, number uint64) []common.Address {
	t.Helper()
	var vals []common.Address
	n.MustCall(&vals, "qbft_getValidatorsByBlockNumber", hexutil.EncodeUint64(number))
	return sorted(vals)
}

// header fetches block number as a header and checks that Basalt's QBFT
// hash of it is the hash the node reports.
func header(t *testing.T, n *testnode.P2PNode, number uint64) *types.Header {
	t.Helper()
	raw, err := n.Call("eth_getBlockByNumber", hexutil.EncodeUint64(number), false)
	if err != nil {
		t.Fatal(err)
	}
	var h types.Header
	var reported struct {
		Hash common.Hash `json:"hash"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatalf("block %d: %v", number, err)
	}
	if err := json.Unmarshal(raw, &reported); err != nil {
		t.Fatal(err)
	}
	if got := qbft.BlockHash(&h); got != reported.Hash {
		t.Fatalf("block %d: QBFT hash %s, reported %s", number, got, reported.Hash)
	}
	return &h
}

// callValidators is eth_call getValidators() at latest.
func callValidators(t *testing.T, n *testnode.P2PNode, parsed abi.ABI) []common.Address {
	t.Helper()
	data, _ := parsed.Pack("getValidators")
	var out hexutil.Bytes
	n.MustCall(&out, "eth_call", map[string]any{"to": contractAddress, "data": hexutil.Bytes(data)}, "latest")
	res, err := parsed.Unpack("getValidators", out)
	if err != nil {
		t.Fatal(err)
	}
	return sorted(res[0].([]common.Address))
}

// TestContractValidatorSelection: 4 validators start in block-header mode
// beside a fifth node that is not a validator; from transitionBlock the
// validators are the contract's; a validator's transaction to the contract
// adds the fifth node, which is then a validator from the next block on,
// proposes a block and signs commit seals, and with one original validator
// stopped the chain goes on only because the new one takes part (4 of 5
// needed).
func TestContractValidatorSelection(t *testing.T) {
	c, parsed := compile(t)
	t.Logf("compiled ValidatorSet.sol with solc %s (%d bytes of runtime code)", c.Version, len(c.Runtime))
	ks := keys(t, 5)
	var initial []common.Address
	for _, k := range ks[:4] {
		initial = append(initial, address(k))
	}
	initial = sorted(initial)
	newcomer := address(ks[4])
	genesis := writeGenesis(t, t.TempDir(), c, initial)

	nodes := testnode.StartNetwork(t, 5, func(i int) []string {
		keyFile := filepath.Join(t.TempDir(), "key")
		if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(ks[i]))), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"--genesis-file=" + genesis, "--node-private-key-file=" + keyFile,
			"--rpc-http-api=ETH,NET,WEB3,ADMIN,QBFT,TXPOOL"}
	})
	waitHeight(t, 60*time.Second, transitionBlock+1, nodes...)

	// Header mode before the transition, the contract's list after it:
	// the same four addresses either way.
	for _, number := range []uint64{1, transitionBlock - 1, transitionBlock, transitionBlock + 1} {
		if got := validatorsAt(t, nodes[4], number); !slices.Equal(got, initial) {
			t.Fatalf("validators at block %d: %v, want %v", number, got, initial)
		}
	}
	if got := callValidators(t, nodes[0], parsed); !slices.Equal(got, initial) {
		t.Fatalf("getValidators() = %v, want %v", got, initial)
	}
	// Blocks list their validators in extraData in block-header mode; in
	// contract mode the list is empty and there is no vote, as Besu and
	// GoQuorum write it (and Besu requires).
	for number := uint64(1); number <= transitionBlock+1; number++ {
		extra, err := qbft.DecodeExtraData(header(t, nodes[1], number).Extra)
		if err != nil {
			t.Fatalf("block %d: %v", number, err)
		}
		want := initial
		if number >= transitionBlock {
			want = nil
		}
		if !slices.Equal(extra.Validators, want) || extra.Vote != nil {
			t.Fatalf("block %d extraData validators %v vote %v, want %v and none", number, extra.Validators, extra.Vote, want)
		}
	}

	// Validator 0 adds the fifth node through the contract.
	data, err := parsed.Pack("addValidator", newcomer)
	if err != nil {
		t.Fatal(err)
	}
	tx := types.MustSignNewTx(ks[0], types.LatestSignerForChainID(big.NewInt(chainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(chainID), GasTipCap: big.NewInt(0), GasFeeCap: big.NewInt(100e9), Gas: 200000,
		To: &contractAddress, Data: data})
	raw, _ := tx.MarshalBinary()
	var hash common.Hash
	nodes[1].MustCall(&hash, "eth_sendRawTransaction", hexutil.Encode(raw))
	added := waitReceipt(t, nodes[4], hash, "ValidatorAdded(address,address)")
	t.Logf("addValidator(%s) mined in block %d", newcomer, added)
	all := sorted(append(slices.Clone(initial), newcomer))
	if got := callValidators(t, nodes[4], parsed); !slices.Equal(got, all) {
		t.Fatalf("getValidators() after the transaction = %v, want %v", got, all)
	}
	// The block after the one holding the transaction is the first whose
	// validators (read at its parent's state) include the newcomer; like
	// Besu, qbft_getValidatorsByBlockNumber(N) in contract mode answers
	// getValidators() at N's own state, so it names the newcomer from the
	// block holding the transaction on.
	waitHeight(t, 30*time.Second, added+1, nodes...)
	if got := validatorsAt(t, nodes[2], added-1); !slices.Equal(got, initial) {
		t.Fatalf("validators at block %d: %v, want %v", added-1, got, initial)
	}
	for _, n := range []uint64{added, added + 1} {
		if got := validatorsAt(t, nodes[2], n); !slices.Equal(got, all) {
			t.Fatalf("validators at block %d: %v, want %v", n, got, all)
		}
	}
	var pending []common.Address
	nodes[2].MustCall(&pending, "qbft_getValidatorsByBlockNumber", "pending")
	if !slices.Equal(sorted(pending), all) {
		t.Fatalf("validators of the pending block: %v, want %v", pending, all)
	}

	// The newcomer proposes within a round of 5 blocks and signs commits.
	waitHeight(t, 60*time.Second, added+6, nodes...)
	proposed, sealed := false, false
	for number := added + 1; number <= added+6; number++ {
		h := header(t, nodes[0], number)
		signers, err := qbft.SealSigners(h)
		if err != nil {
			t.Fatalf("block %d: %v", number, err)
		}
		for _, s := range signers {
			if !slices.Contains(all, s) {
				t.Fatalf("block %d sealed by %s, not a validator", number, s)
			}
		}
		if len(signers) < 4 {
			t.Fatalf("block %d: %d seals, 4 needed of 5 validators", number, len(signers))
		}
		proposed = proposed || h.Coinbase == newcomer
		sealed = sealed || slices.Contains(signers, newcomer)
	}
	if !proposed || !sealed {
		t.Fatalf("new validator %s: proposed a block %v, sealed a block %v (blocks %d..%d)", newcomer, proposed, sealed, added+1, added+6)
	}

	// With one original validator down, 4 of the 5 remain: exactly the
	// quorum, so blocks are made only with the newcomer's commits.
	nodes[3].Stop(syscall.SIGTERM)
	rest := []*testnode.P2PNode{nodes[0], nodes[1], nodes[2], nodes[4]}
	from := nodes[0].BlockNumber()
	waitHeight(t, 60*time.Second, from+3, rest...)
	h := header(t, nodes[4], from+3)
	if signers, err := qbft.SealSigners(h); err != nil || !slices.Contains(signers, newcomer) {
		t.Fatalf("block %d seals %v (%v): the new validator's is missing", from+3, signers, err)
	}
	for number := uint64(1); number <= from+3; number++ {
		want := nodes[0].BlockHash(number)
		for i, n := range rest[1:] {
			if got := n.BlockHash(number); got != want {
				t.Fatalf("block %d: node %d has %s, node 0 %s", number, i+1, got, want)
			}
		}
	}
	t.Logf("validator %s stopped; blocks %d..%d made with the new validator's commit seals", address(ks[3]), from+1, from+3)
}

// waitHeight waits until every listed node reached height.
func waitHeight(t *testing.T, timeout time.Duration, height uint64, nodes ...*testnode.P2PNode) {
	t.Helper()
	testnode.WaitFor(t, timeout, fmt.Sprintf("height %d on %d nodes", height, len(nodes)), func() bool {
		for _, n := range nodes {
			if n.BlockNumber() < height {
				return false
			}
		}
		return true
	})
}

// waitReceipt waits for the receipt of hash on n, checks it succeeded
// with one log, the event of signature event, and returns its block
// number.
func waitReceipt(t *testing.T, n *testnode.P2PNode, hash common.Hash, event string) uint64 {
	t.Helper()
	var r *struct {
		Status      hexutil.Uint64 `json:"status"`
		BlockNumber hexutil.Uint64 `json:"blockNumber"`
		Logs        []struct {
			Topics []common.Hash `json:"topics"`
		} `json:"logs"`
	}
	testnode.WaitFor(t, 60*time.Second, "receipt of "+hash.Hex(), func() bool {
		n.MustCall(&r, "eth_getTransactionReceipt", hash)
		return r != nil
	})
	if r.Status != 1 {
		t.Fatalf("transaction %s failed", hash)
	}
	if len(r.Logs) != 1 || !strings.EqualFold(r.Logs[0].Topics[0].Hex(), crypto.Keccak256Hash([]byte(event)).Hex()) {
		t.Fatalf("transaction %s logs %+v, want one %s", hash, r.Logs, event)
	}
	return uint64(r.BlockNumber)
}
