package goquorum

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// signerNet is the network TestSignerGoQuorumPrivate drives, whatever runs
// its nodes: basalt-signer fronts node A, which holds no key of the
// sender's and takes the signed private transaction through
// eth_sendRawPrivateTransaction; B reads as a party, C as a non-party.
// Another constructor may build it from other nodes (Basalt ones) and run
// the same checks (checkSignerPrivate).
type signerNet struct {
	a, b, c *testnode.P2PNode
	// q2tA is the Q2T API of A's privacy manager (the signer's
	// --tessera-url); keyA and keyB are the parties' manager keys.
	q2tA       string
	keyA, keyB string
	chainID    int
	// sender is the signer's key, funded in the genesis, held by no node.
	sender *ecdsa.PrivateKey
}

// signerSenderKey is the key basalt-signer signs with.
func signerSenderKey() *ecdsa.PrivateKey {
	k, _ := crypto.ToECDSA(crypto.Keccak256([]byte("basalt-goquorum-signer")))
	return k
}

// startGoQuorumSignerNet starts three GoQuorum 24.4.1 QBFT validators, A,
// B and C, each with its own basalt-privacy as its Tessera (PRIVATE_CONFIG
// names the Q2T API), and no account on any of them.
func startGoQuorumSignerNet(t *testing.T, bin string) *signerNet {
	ptms := startQ2TManagers(t, "a", "b", "c")

	sender := signerSenderKey()
	keys := validatorKeys(t, 3)
	genesis := writeGenesis(t, t.TempDir(), sortedAddresses(keys), func(g map[string]any) {
		// GoQuorum 24.4.1 panics on a private call that writes storage
		// under Berlin (Consensys/quorum#1657); see private_test.go.
		delete(g["config"].(map[string]any), "berlinBlock")
		g["alloc"].(map[string]any)[crypto.PubkeyToAddress(sender.PublicKey).Hex()] = map[string]string{"balance": "0x3635c9adc5dea00000"}
	})
	var nodes []*gethNode
	var enodes []string
	for i, k := range keys {
		g := newGeth(t, bin, genesis, k)
		tm := filepath.Join(g.dir, "tm.toml")
		if err := os.WriteFile(tm, []byte(fmt.Sprintf("HttpUrl = %q\nTimeout = 10\n", ptms[i].Inst.Q2TURL())), 0o644); err != nil {
			t.Fatal(err)
		}
		g.privateConfig = tm
		nodes = append(nodes, g)
		enodes = append(enodes, g.enode())
	}
	for _, g := range nodes {
		g.launch(enodes)
	}
	for _, g := range nodes {
		g.connect(enodes) // once every engine runs: see gethNode.connect
	}
	for _, g := range nodes {
		g.node.WaitPeers(2, 60*time.Second)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for i, g := range nodes {
				if g.node != nil {
					t.Logf("GoQuorum %c logs (tail):\n%s", 'A'+i, tail(g.node.Logs(), 60))
				}
			}
		}
	})
	return &signerNet{
		a: nodes[0].node, b: nodes[1].node, c: nodes[2].node,
		q2tA: ptms[0].Inst.Q2TURL(), keyA: ptms[0].Keys[0].String(), keyB: ptms[1].Keys[0].String(),
		chainID: chainID, sender: sender,
	}
}

// startQ2TManagers starts one in-process basalt-privacy per name, each with
// its Q2T API on and a key named after it, the later ones knowing the
// first, and waits until every instance knows every other's key.
func startQ2TManagers(t *testing.T, names ...string) []*ptmtest.InProcess {
	t.Helper()
	dir := t.TempDir()
	var ptms []*ptmtest.InProcess
	for i, name := range names {
		c := ptmtest.Conf{Dir: filepath.Join(dir, "ptm-"+name), Keys: []string{name}, Extra: "q2tenabled = true\nq2tport = 0"}
		if i > 0 {
			c.OtherNodes = []string{ptms[0].Conf.NodeURL()}
		}
		ptms = append(ptms, ptmtest.StartInProcess(t, c))
	}
	ptmtest.WaitFor(t, 30*time.Second, "the basalt-privacy instances to know each other", func() bool {
		for _, p := range ptms {
			for _, q := range ptms {
				if _, ok := p.Inst.Table.URLFor(q.Keys[0]); p != q && !ok {
					return false
				}
			}
		}
		return true
	})
	return ptms
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// startSignerFor runs basalt-signer in front of node with key and
// --tessera-url=q2t, and returns its JSON-RPC URL.
func startSignerFor(t *testing.T, node *testnode.P2PNode, q2t string, chain int, key *ecdsa.PrivateKey) string {
	t.Helper()
	port := node.URL[strings.LastIndex(node.URL, ":")+1:]
	data := t.TempDir()
	cmd := exec.Command(proctest.Build(t, "./cmd/basalt-signer"), "--http-listen-port=0", "--data-path="+data,
		"--chain-id="+strconv.Itoa(chain), "--downstream-http-host=127.0.0.1", "--downstream-http-port="+port,
		"--downstream-http-request-timeout=20000", "--tessera-url="+q2t, "--logging=DEBUG",
		"raw-signer", "--key="+hexutil.Encode(crypto.FromECDSA(key)))
	p := proctest.Start(t, "signer", cmd, new(proctest.LogBuffer))
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("signer logs:\n%s", tail(p.Logs(), 60))
		}
	})
	return p.WaitSignerUp(t, data, 60*time.Second)
}

// callURL calls method at url and decodes the result into v.
func callURL(t *testing.T, url string, v any, method string, params ...any) {
	t.Helper()
	raw, err := (&testnode.Node{URL: url}).Call(method, params...)
	if err != nil {
		t.Fatalf("%s via %s: %v", method, url, err)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %s: %v", method, raw, err)
		}
	}
}

// TestSignerGoQuorumPrivate: basalt-signer in front of GoQuorum node A,
// with a key A does not hold, deploys a private contract for {A, B} and
// calls it (eth_sendTransaction with privateFor: the signer stores the
// data with A's basalt-privacy, signs a V 37/38 transaction and sends it
// with eth_sendRawPrivateTransaction); B reads the private state, C, not a
// party, reads nothing.
func TestSignerGoQuorumPrivate(t *testing.T) {
	bin := gethBinary(t)
	checkSignerPrivate(t, startGoQuorumSignerNet(t, bin))
}

// TestSignerBasaltPrivate: the same through basalt-signer in front of a
// Basalt node A (a GoQuorum network's QBFT validator, a party with
// --ptm-url), with Basalt nodes B (a party) and C (not one). It needs no
// GoQuorum.
func TestSignerBasaltPrivate(t *testing.T) {
	checkSignerPrivate(t, startBasaltSignerNet(t))
}

// startBasaltSignerNet starts three Basalt nodes on a GoQuorum network
// (genesis isQuorum; A its one QBFT validator, B and C followers), each
// with its own basalt-privacy named by --ptm-url, and the signer's sender
// funded in the genesis.
func startBasaltSignerNet(t *testing.T) *signerNet {
	ptms := startQ2TManagers(t, "a", "b", "c")
	sender := signerSenderKey()
	vk := validatorKeys(t, 1)[0]
	genesis := writeGenesis(t, t.TempDir(), []common.Address{crypto.PubkeyToAddress(vk.PublicKey)}, func(g map[string]any) {
		g["alloc"].(map[string]any)[crypto.PubkeyToAddress(sender.PublicKey).Hex()] = map[string]string{"balance": "0x3635c9adc5dea00000"}
	})
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(vk))), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--genesis-file=" + genesis, "--min-gas-price=0", "--rpc-http-api=ETH,NET,WEB3,ADMIN,QBFT,TXPOOL"}
	a := testnode.StartP2P(t, t.TempDir(), append(args, "--node-private-key-file="+keyFile, "--ptm-url="+ptms[0].Inst.Q2TURL())...)
	b := testnode.StartP2P(t, t.TempDir(), append(args, "--ptm-url="+ptms[1].Inst.Q2TURL())...)
	c := testnode.StartP2P(t, t.TempDir(), append(args, "--ptm-url="+ptms[2].Inst.Q2TURL())...)
	b.AddPeer(a)
	c.AddPeer(a)
	return &signerNet{
		a: a, b: b, c: c,
		q2tA: ptms[0].Inst.Q2TURL(), keyA: ptms[0].Keys[0].String(), keyB: ptms[1].Keys[0].String(),
		chainID: chainID, sender: sender,
	}
}

// checkSignerPrivate runs the signer's private deploy and call on net.
func checkSignerPrivate(t *testing.T, net *signerNet) {
	sender := crypto.PubkeyToAddress(net.sender.PublicKey)
	// A holds no key: the sender is not among its accounts.
	var nodeAccounts []common.Address
	net.a.MustCall(&nodeAccounts, "eth_accounts")
	for _, a := range nodeAccounts {
		if a == sender {
			t.Fatalf("node A holds the sender's key %s", sender)
		}
	}
	signer := startSignerFor(t, net.a, net.q2tA, net.chainID, net.sender)
	var accounts []common.Address
	callURL(t, signer, &accounts, "eth_accounts")
	if len(accounts) != 1 || accounts[0] != sender {
		t.Fatalf("signer accounts %v, want [%s]", accounts, sender)
	}

	// Deploy privately for B (A, the sender's party, is in it anyway).
	var deployHash common.Hash
	callURL(t, signer, &deployHash, "eth_sendTransaction", map[string]any{
		"from": sender, "data": storeInit, "gas": "0x30000", "privateFrom": net.keyA, "privateFor": []string{net.keyB}})
	deploy := waitPrivateReceipt(t, net.a, deployHash)
	if deploy.Status != 1 || deploy.ContractAddress == nil {
		t.Fatalf("private deploy receipt on A: %+v", deploy)
	}
	contract := *deploy.ContractAddress
	t.Logf("private contract %s deployed through the signer in block %d", contract, uint64(deploy.BlockNumber))

	// A private call setting 7, gas and fee left to the signer's defaults.
	var setHash common.Hash
	callURL(t, signer, &setHash, "eth_sendTransaction", map[string]any{
		"from": sender, "to": contract, "data": word(7), "privateFor": []string{net.keyB}})
	if set := waitPrivateReceipt(t, net.a, setHash); set.Status != 1 {
		t.Fatalf("private call receipt on A: %+v", set)
	}

	// On chain: private transactions (V 37/38) from the sender, with the
	// payload key as input, at its public nonces 0 and 1.
	for i, h := range []common.Hash{deployHash, setHash} {
		var tx struct {
			From  common.Address `json:"from"`
			V     hexutil.Big    `json:"v"`
			Nonce hexutil.Uint64 `json:"nonce"`
		}
		net.b.MustCall(&tx, "eth_getTransactionByHash", h)
		if v := tx.V.ToInt().Int64(); tx.From != sender || (v != 37 && v != 38) || uint64(tx.Nonce) != uint64(i) {
			t.Errorf("transaction %s: from %s v %d nonce %d, want %s, 37/38, %d", h, tx.From, v, tx.Nonce, sender, i)
		}
		mustTxInput(t, net.b, h)
	}

	// B, a party, reads the private state, as A does; B's manager gives
	// the call's input back.
	waitHeight(t, 60*time.Second, uint64(waitPrivateReceipt(t, net.a, setHash).BlockNumber), net.b, net.c)
	for name, node := range map[string]*testnode.P2PNode{"A": net.a, "B": net.b} {
		var got hexutil.Bytes
		node.MustCall(&got, "eth_call", map[string]any{"to": contract}, "latest")
		if hexutil.Encode(got) != word(7) {
			t.Errorf("%s: eth_call on the private contract = %s, want %s", name, got, word(7))
		}
		var slot string
		node.MustCall(&slot, "eth_getStorageAt", contract, "0x0", "latest")
		if slot != word(7) {
			t.Errorf("%s: slot 0 = %s, want %s", name, slot, word(7))
		}
	}
	var payload string
	net.b.MustCall(&payload, "eth_getQuorumPayload", hexutil.Encode(mustTxInput(t, net.b, setHash)))
	if !strings.HasSuffix(payload, strings.TrimPrefix(word(7), "0x")) {
		t.Errorf("B: eth_getQuorumPayload = %s, want the call's input", payload)
	}

	// C, not a party, reads nothing: no code, an empty call, an empty
	// slot and no payload.
	var code, got hexutil.Bytes
	net.c.MustCall(&code, "eth_getCode", contract, "latest")
	net.c.MustCall(&got, "eth_call", map[string]any{"to": contract}, "latest")
	var slot string
	net.c.MustCall(&slot, "eth_getStorageAt", contract, "0x0", "latest")
	if len(code) != 0 || len(got) != 0 || (slot != word(0) && slot != "0x") {
		t.Errorf("C (not a party): code %s, call %s, slot %s; want nothing", code, got, slot)
	}
	net.c.MustCall(&payload, "eth_getQuorumPayload", hexutil.Encode(mustTxInput(t, net.c, setHash)))
	if payload != "0x" && payload != "" {
		t.Errorf("C: eth_getQuorumPayload = %s, want 0x", payload)
	}

	// Concurrent private calls from the one account get distinct public
	// nonces from the signer's nonce manager and are all mined; the two
	// parties then hold the same private value.
	const concurrent = 4
	hashes := make([]common.Hash, concurrent)
	errs := make([]error, concurrent)
	var wg sync.WaitGroup
	for i := range concurrent {
		wg.Go(func() {
			raw, err := (&testnode.Node{URL: signer}).Call("eth_sendTransaction", map[string]any{
				"from": sender, "to": contract, "data": word(uint64(100 + i)), "gas": "0x20000", "privateFor": []string{net.keyB}})
			if err == nil {
				err = json.Unmarshal(raw, &hashes[i])
			}
			errs[i] = err
		})
	}
	wg.Wait()
	nonces := map[uint64]bool{}
	var last uint64
	for i, h := range hashes {
		if errs[i] != nil {
			t.Fatalf("concurrent private send %d: %v", i, errs[i])
		}
		r := waitPrivateReceipt(t, net.a, h)
		if r.Status != 1 {
			t.Errorf("concurrent private send %d: receipt %+v", i, r)
		}
		last = max(last, uint64(r.BlockNumber))
		var tx struct {
			Nonce hexutil.Uint64 `json:"nonce"`
		}
		net.a.MustCall(&tx, "eth_getTransactionByHash", h)
		nonces[uint64(tx.Nonce)] = true
	}
	for n := uint64(2); n < 2+concurrent; n++ {
		if !nonces[n] {
			t.Errorf("concurrent private sends used nonces %v, want 2..%d", nonces, 1+concurrent)
		}
	}
	waitHeight(t, 60*time.Second, last, net.b)
	var onA, onB hexutil.Bytes
	net.a.MustCall(&onA, "eth_call", map[string]any{"to": contract}, "latest")
	net.b.MustCall(&onB, "eth_call", map[string]any{"to": contract}, "latest")
	if onA.String() != onB.String() || len(onA) != 32 || onA[31] < 100 {
		t.Errorf("after concurrent calls: A reads %s, B %s", onA, onB)
	}

	// The sender's public nonce counts them all.
	var n hexutil.Uint64
	net.a.MustCall(&n, "eth_getTransactionCount", sender, "latest")
	if n != 2+concurrent {
		t.Errorf("sender nonce %d, want %d", n, 2+concurrent)
	}

	// What the signer refuses never reaches the node.
	_, err := (&testnode.Node{URL: signer}).Call("eth_sendTransaction", map[string]any{
		"from": sender, "to": contract, "data": word(8), "privateFor": []string{net.keyB}, "privacyFlag": 1})
	if err == nil || !strings.Contains(err.Error(), "privacyFlag 1 (party protection) is not supported") {
		t.Errorf("privacyFlag 1: %v", err)
	}
}
