package goquorum

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/ptmtest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// storeInit deploys a contract that starts with 42 in slot 0; its runtime
// stores a call's first 32 bytes of input in slot 0, and with no input
// returns slot 0.
//
//	constructor: SSTORE(0, 42); CODECOPY(0, 0x11, 0x17); RETURN(0, 0x17)
//	runtime:     if CALLDATASIZE { SSTORE(0, CALLDATALOAD(0)) } MSTORE(0, SLOAD(0)); RETURN(0, 32)
const storeInit = "0x602a6000556017601160003960176000f3" + "3615600b576000356000555b60005460005260206000f3"

// word is a 32-byte big-endian value in hex.
func word(v uint64) string { return fmt.Sprintf("0x%064x", v) }

// TestMixedNetworkPrivate: GoQuorum nodes A and B each use a basalt-privacy
// as their Tessera (PRIVATE_CONFIG names its Q2T API) in the mixed network
// of 2 Basalt and 2 GoQuorum validators. A deploys a private contract for
// B and then calls it privately: the blocks carrying these GoQuorum private
// transactions are accepted by the Basalt validators (the chain goes on,
// with the same block hashes, so the same state roots, on all four nodes),
// Basalt reports GoQuorum's public receipt (status 1, gas used 0) and the
// right sender, B reads the private state through GoQuorum, and the public
// state holds no code at the contract's address.
func TestMixedNetworkPrivate(t *testing.T) {
	bin := gethBinary(t)
	dir := t.TempDir()
	q2t := "q2tenabled = true\nq2tport = 0"
	pa := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "ptm-a"), Keys: []string{"a"}, Extra: q2t})
	pb := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "ptm-b"), Keys: []string{"b"}, Extra: q2t, OtherNodes: []string{pa.Conf.NodeURL()}})
	ptmtest.WaitFor(t, 30*time.Second, "the two basalt-privacy instances to know each other", func() bool {
		_, okA := pa.Inst.Table.URLFor(pb.Keys[0])
		_, okB := pb.Inst.Table.URLFor(pa.Keys[0])
		return okA && okB
	})
	keyB := pb.Keys[0].String()

	dev, _ := crypto.HexToECDSA(devKeyHex)
	devAddr := crypto.PubkeyToAddress(dev.PublicKey)
	keys := validatorKeys(t, 4)
	setup := func(i int, g *gethNode) {
		// GoQuorum takes its Tessera's HTTP URL from a TOML file named by
		// PRIVATE_CONFIG (common/http/config.go).
		ptm := []*ptmtest.InProcess{pa, pb}[i]
		tm := filepath.Join(g.dir, "tm.toml")
		if err := os.WriteFile(tm, []byte(fmt.Sprintf("HttpUrl = %q\nTimeout = 10\n", ptm.Inst.Q2TURL())), 0o644); err != nil {
			t.Fatal(err)
		}
		g.privateConfig = tm
		if i == 0 {
			// A holds the dev account, unlocked for eth_sendTransaction.
			keyFile, pw := filepath.Join(g.dir, "dev.key"), filepath.Join(g.dir, "dev.pw")
			os.WriteFile(keyFile, []byte(devKeyHex), 0o600)
			os.WriteFile(pw, []byte("pw\n"), 0o600)
			if out, err := exec.Command(bin, "--datadir", g.dir, "account", "import", "--password", pw, keyFile).CombinedOutput(); err != nil {
				t.Fatalf("geth account import: %v\n%s", err, out)
			}
			g.extraArgs = []string{"--unlock", devAddr.Hex(), "--password", pw, "--allow-insecure-unlock"}
		}
	}
	n := startMixedWith(t, bin, keys, mixedOptions{
		setup: setup,
		// so Basalt validators take the price-0 private transactions into
		// their pools (and propose blocks with them) too
		basaltArgs: []string{"--min-gas-price=0"},
		// GoQuorum 24.4.1 panics on a private call that writes storage
		// under Berlin (Consensys/quorum#1657: the private state's access
		// list is never prepared); GoQuorum's quickstart leaves Berlin off
		// for private networks, and so does this test.
		genesis: func(g map[string]any) { delete(g["config"].(map[string]any), "berlinBlock") },
	})
	a, b := n.geth[0].node, n.geth[1].node
	all := n.running()

	// Deploy privately from A for B. geth unlocks --unlock accounts after
	// its JSON-RPC is up (and scrypt takes a while): retry until it has.
	var deployHash common.Hash
	testnode.WaitFor(t, 60*time.Second, "A to unlock the dev account", func() bool {
		raw, err := a.Call("eth_sendTransaction", map[string]any{
			"from": devAddr, "data": storeInit, "gas": "0x30000", "gasPrice": "0x0", "privateFor": []string{keyB},
		})
		if err != nil {
			if !strings.Contains(err.Error(), "authentication needed") {
				t.Fatalf("eth_sendTransaction: %v", err)
			}
			return false
		}
		return json.Unmarshal(raw, &deployHash) == nil
	})
	deploy := waitPrivateReceipt(t, a, deployHash)
	contract := deploy.ContractAddress
	if contract == nil {
		t.Fatalf("deploy receipt on A has no contract address: %+v", deploy)
	}
	t.Logf("private contract %s deployed in block %d", contract, uint64(deploy.BlockNumber))

	// Then a private call from A for B setting 7.
	var setHash common.Hash
	a.MustCall(&setHash, "eth_sendTransaction", map[string]any{
		"from": devAddr, "to": contract, "data": word(7), "gas": "0x20000", "gasPrice": "0x0", "privateFor": []string{keyB},
	})
	set := waitPrivateReceipt(t, a, setHash)

	// The chain goes on past both, on every node, with the same blocks.
	top := uint64(set.BlockNumber) + 3
	waitHeight(t, 90*time.Second, top, all...)
	sameHashes(t, 1, top, all...)
	for _, r := range []*privateReceipt{deploy, set} {
		t.Logf("private transaction in block %d, proposed by Basalt: %v", uint64(r.BlockNumber), n.proposedByBasalt(a, uint64(r.BlockNumber)))
	}

	// Basalt reports GoQuorum's public receipt and the private sender.
	for i, node := range n.basalt {
		for _, h := range []common.Hash{deployHash, setHash} {
			r := waitPrivateReceipt(t, node, h)
			if r.Status != 1 || r.GasUsed != 0 || len(r.Logs) != 0 {
				t.Errorf("Basalt %d: receipt of %s: %+v, want status 1, gas used 0, no logs", i, h, r)
			}
			var tx struct {
				From common.Address `json:"from"`
				V    hexutil.Big    `json:"v"`
			}
			node.MustCall(&tx, "eth_getTransactionByHash", h)
			if tx.From != devAddr || (tx.V.ToInt().Int64() != 37 && tx.V.ToInt().Int64() != 38) {
				t.Errorf("Basalt %d: transaction %s from %s v %v, want %s with v 37/38", i, h, tx.From, tx.V.ToInt(), devAddr)
			}
		}
		var code hexutil.Bytes
		node.MustCall(&code, "eth_getCode", contract, "latest")
		if len(code) != 0 {
			t.Errorf("Basalt %d: public code at the private contract: %x", i, code)
		}
		if r := waitPrivateReceipt(t, node, deployHash); r.ContractAddress == nil || *r.ContractAddress != *contract {
			t.Errorf("Basalt %d: deploy receipt's contract address %v, want %s", i, r.ContractAddress, contract)
		}
	}

	// B, the recipient, reads the private state through GoQuorum; so does A.
	for name, node := range map[string]*testnode.P2PNode{"A": a, "B": b} {
		var got hexutil.Bytes
		node.MustCall(&got, "eth_call", map[string]any{"to": contract}, "latest")
		if hexutil.Encode(got) != word(7) {
			t.Errorf("GoQuorum %s: eth_call on the private contract = %s, want %s", name, got, word(7))
		}
		var slot string
		node.MustCall(&slot, "eth_getStorageAt", contract, "0x0", "latest")
		if slot != word(7) {
			t.Errorf("GoQuorum %s: slot 0 = %s, want %s", name, slot, word(7))
		}
	}
	var payload string
	b.MustCall(&payload, "eth_getQuorumPayload", hexutil.Encode(mustTxInput(t, b, setHash)))
	if !strings.HasSuffix(payload, strings.TrimPrefix(word(7), "0x")) {
		t.Errorf("B: eth_getQuorumPayload = %s, want the call's input", payload)
	}
	n.checkGethLogsExcept(n.ownProposalRaces())
}

// privateReceipt is the part of a receipt the test reads.
type privateReceipt struct {
	Status          hexutil.Uint64  `json:"status"`
	GasUsed         hexutil.Uint64  `json:"gasUsed"`
	BlockNumber     hexutil.Uint64  `json:"blockNumber"`
	ContractAddress *common.Address `json:"contractAddress"`
	Logs            []any           `json:"logs"`
}

// waitPrivateReceipt waits for h's receipt on node.
func waitPrivateReceipt(t *testing.T, node *testnode.P2PNode, h common.Hash) *privateReceipt {
	t.Helper()
	var r *privateReceipt
	testnode.WaitFor(t, 60*time.Second, "receipt of "+h.Hex(), func() bool {
		raw, err := node.Call("eth_getTransactionReceipt", h)
		if err != nil || string(raw) == "null" {
			return false
		}
		r = new(privateReceipt)
		return json.Unmarshal(raw, r) == nil
	})
	return r
}

// mustTxInput returns the input (the payload key) of transaction h.
func mustTxInput(t *testing.T, node *testnode.P2PNode, h common.Hash) []byte {
	t.Helper()
	var tx struct {
		Input hexutil.Bytes `json:"input"`
	}
	node.MustCall(&tx, "eth_getTransactionByHash", h)
	if len(tx.Input) != 64 {
		t.Fatalf("private transaction %s input is %d bytes, want the 64-byte payload key", h, len(tx.Input))
	}
	return tx.Input
}
