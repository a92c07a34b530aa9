package goquorum

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/quorumtx"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// storeRaw stores payload with the manager at q2tURL (POST /storeraw, as
// GoQuorum's eth_fillTransaction and web3js-quorum's raw sends do) and
// returns its 64-byte key.
func storeRaw(t *testing.T, q2tURL string, payload []byte, from string) []byte {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"payload": payload, "from": from})
	resp, err := http.Post(strings.TrimRight(q2tURL, "/")+"/storeraw", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/storeraw: %d %s", resp.StatusCode, b)
	}
	var out struct{ Key string }
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("/storeraw: %s", b)
	}
	key, err := base64.StdEncoding.DecodeString(out.Key)
	if err != nil || len(key) != quorumtx.KeySize {
		t.Fatalf("/storeraw key %q", out.Key)
	}
	return key
}

// signPrivate signs a GoQuorum private transaction (V 37/38, no chain ID)
// carrying key, as web3js-quorum's sendRawPrivateTransaction helpers do.
func signPrivate(t *testing.T, k *ecdsa.PrivateKey, nonce uint64, to *common.Address, gas uint64, key []byte) []byte {
	t.Helper()
	tx, err := quorumtx.Sign(types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: new(big.Int), Gas: gas, To: to, Data: key}), k)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// sendRawPrivate stores payload with the sender's manager, signs the
// private transaction and sends it with eth_sendRawPrivateTransaction.
func sendRawPrivate(t *testing.T, node *testnode.P2PNode, q2tURL, from string, k *ecdsa.PrivateKey, nonce uint64, to *common.Address,
	payload []byte, privateFor ...string) common.Hash {
	t.Helper()
	key := storeRaw(t, q2tURL, payload, from)
	raw := signPrivate(t, k, nonce, to, 0x40000, key)
	var h common.Hash
	node.MustCall(&h, "eth_sendRawPrivateTransaction", hexutil.Encode(raw), map[string]any{"privateFor": privateFor})
	return h
}

// partyReceipt is the part of a party's private receipt the tests read.
type partyReceipt struct {
	Status          hexutil.Uint64  `json:"status"`
	GasUsed         hexutil.Uint64  `json:"gasUsed"`
	BlockNumber     hexutil.Uint64  `json:"blockNumber"`
	ContractAddress *common.Address `json:"contractAddress"`
	Logs            []any           `json:"logs"`
	IsPMT           *bool           `json:"isPrivacyMarkerTransaction"`
}

func receiptOf(t *testing.T, node *testnode.P2PNode, h common.Hash) *partyReceipt {
	t.Helper()
	var r *partyReceipt
	testnode.WaitFor(t, 60*time.Second, "receipt of "+h.Hex(), func() bool {
		raw, err := node.Call("eth_getTransactionReceipt", h)
		if err != nil || string(raw) == "null" {
			return false
		}
		r = new(partyReceipt)
		return json.Unmarshal(raw, r) == nil
	})
	return r
}

// privateView is what a node answers about a private contract.
type privateView struct {
	code, call, slot string
}

func viewOf(t *testing.T, node *testnode.P2PNode, contract common.Address) privateView {
	t.Helper()
	var v privateView
	var code, call hexutil.Bytes
	node.MustCall(&code, "eth_getCode", contract, "latest")
	node.MustCall(&call, "eth_call", map[string]any{"to": contract}, "latest")
	node.MustCall(&v.slot, "eth_getStorageAt", contract, "0x0", "latest")
	v.code, v.call = code.String(), call.String()
	return v
}

// TestBasaltParty: three Basalt nodes on a GoQuorum network (genesis
// isQuorum; one QBFT validator A, two followers B and C), each with its
// own basalt-privacy whose Q2T API it names with --ptm-url. A private
// contract deployed from A for {A, B} with eth_sendRawPrivateTransaction
// runs into A's and B's private state; B then calls it privately for
// {A, B}: A and B read the same private receipt, code, storage and call
// result, C (not a party) reads nothing, and the block hashes agree. B is
// SIGKILLed while more private calls are mined and ends, once restarted,
// with A's private values; a fresh node D importing A's exported blocks
// with B's manager rebuilds the same private state.
func TestBasaltParty(t *testing.T) {
	dir := t.TempDir()
	q2t := "q2tenabled = true\nq2tport = 0"
	pa := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "ptm-a"), Keys: []string{"a"}, Extra: q2t})
	pb := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "ptm-b"), Keys: []string{"b"}, Extra: q2t, OtherNodes: []string{pa.Conf.NodeURL()}})
	pc := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "ptm-c"), Keys: []string{"c"}, Extra: q2t, OtherNodes: []string{pa.Conf.NodeURL()}})
	ptmtest.WaitFor(t, 30*time.Second, "the basalt-privacy instances to know each other", func() bool {
		_, ab := pa.Inst.Table.URLFor(pb.Keys[0])
		_, ba := pb.Inst.Table.URLFor(pa.Keys[0])
		_, ca := pc.Inst.Table.URLFor(pa.Keys[0])
		return ab && ba && ca
	})
	keyA, keyB := pa.Keys[0].String(), pb.Keys[0].String()

	genesis, args, validatorArgs := oneValidatorNetwork(t)
	a := testnode.StartP2P(t, t.TempDir(), append(validatorArgs, "--ptm-url="+pa.Inst.Q2TURL())...)
	b := testnode.StartP2P(t, t.TempDir(), append(args, "--ptm-url="+pb.Inst.Q2TURL())...)
	c := testnode.StartP2P(t, t.TempDir(), append(args, "--ptm-url="+pc.Inst.Q2TURL())...)
	b.AddPeer(a)
	c.AddPeer(a)

	dev, _ := crypto.HexToECDSA(devKeyHex)
	other, _ := crypto.GenerateKey() // B's sender: a second account, nonce 0
	deployHash := sendRawPrivate(t, a, pa.Inst.Q2TURL(), keyA, dev, 0, nil, hexutil.MustDecode(storeInit), keyB)
	deploy := receiptOf(t, a, deployHash)
	if deploy.ContractAddress == nil || deploy.Status != 1 {
		t.Fatalf("deploy receipt on A: %+v", deploy)
	}
	contract := *deploy.ContractAddress
	if want := crypto.CreateAddress(crypto.PubkeyToAddress(dev.PublicKey), 0); contract != want {
		t.Errorf("contract address %s, want GoQuorum's CreateAddress(sender, public nonce) %s", contract, want)
	}
	setHash := sendRawPrivate(t, b, pb.Inst.Q2TURL(), keyB, other, 0, &contract, hexutil.MustDecode(word(7)), keyA)
	set := receiptOf(t, b, setHash)
	top := uint64(set.BlockNumber) + 1
	waitHeight(t, 60*time.Second, top, a, b, c)
	sameHashes(t, 1, top, a, b, c)

	want := privateView{call: word(7), slot: word(7)}
	for name, node := range map[string]*testnode.P2PNode{"A": a, "B": b} {
		got := viewOf(t, node, contract)
		if got.call != want.call || got.slot != want.slot || len(got.code) <= 2 {
			t.Errorf("%s: private contract reads %+v, want call and slot %s and its code", name, got, word(7))
		}
		for _, h := range []common.Hash{deployHash, setHash} {
			r := receiptOf(t, node, h)
			if r.Status != 1 || r.GasUsed != 0 || r.IsPMT == nil || *r.IsPMT {
				t.Errorf("%s: receipt of %s: %+v, want status 1, gas used 0, isPrivacyMarkerTransaction false", name, h, r)
			}
		}
		var payload string
		node.MustCall(&payload, "eth_getQuorumPayload", hexutil.Encode(mustTxInput(t, node, setHash)))
		if payload != word(7) {
			t.Errorf("%s: eth_getQuorumPayload = %s, want %s", name, payload, word(7))
		}
	}
	if got := viewOf(t, c, contract); got.code != "0x" || got.call != "0x" || got.slot != word(0) {
		t.Errorf("C, not a party: private contract reads %+v, want nothing", got)
	}
	var payload string
	c.MustCall(&payload, "eth_getQuorumPayload", hexutil.Encode(mustTxInput(t, c, setHash)))
	if payload != "0x" {
		t.Errorf("C: eth_getQuorumPayload = %s, want 0x", payload)
	}
	if r := receiptOf(t, c, setHash); r.Status != 1 || len(r.Logs) != 0 {
		t.Errorf("C: receipt %+v, want the public one", r)
	}

	// Private logs: in the private receipt and in eth_getLogs, on the
	// parties only.
	topic := common.HexToHash("0xfeed")
	logRuntime := append(append(hexutil.MustDecode("0x6000356000527f"), topic[:]...), hexutil.MustDecode("0x60206000a100")...)
	logInit := append([]byte{0x61, 0, byte(len(logRuntime)), 0x80, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3}, logRuntime...)
	logDeploy := receiptOf(t, a, sendRawPrivate(t, a, pa.Inst.Q2TURL(), keyA, dev, 1, nil, logInit, keyB))
	logger := *logDeploy.ContractAddress
	logHash := sendRawPrivate(t, b, pb.Inst.Q2TURL(), keyB, other, 1, &logger, hexutil.MustDecode(word(0x33)), keyA)
	logBlock := uint64(receiptOf(t, b, logHash).BlockNumber)
	waitHeight(t, 60*time.Second, logBlock, a, b, c)
	type rpcLog struct {
		Address common.Address `json:"address"`
		Topics  []common.Hash  `json:"topics"`
		Data    hexutil.Bytes  `json:"data"`
		TxHash  common.Hash    `json:"transactionHash"`
	}
	query := map[string]any{"fromBlock": "0x1", "toBlock": hexutil.EncodeUint64(logBlock), "address": logger}
	for name, node := range map[string]*testnode.P2PNode{"A": a, "B": b, "C": c} {
		var r struct {
			Logs      []rpcLog    `json:"logs"`
			LogsBloom types.Bloom `json:"logsBloom"`
		}
		node.MustCall(&r, "eth_getTransactionReceipt", logHash)
		var logs []rpcLog
		node.MustCall(&logs, "eth_getLogs", query)
		if name == "C" {
			if len(r.Logs) != 0 || len(logs) != 0 {
				t.Errorf("C, not a party, sees private logs: receipt %v, eth_getLogs %v", r.Logs, logs)
			}
			continue
		}
		if len(r.Logs) != 1 || r.Logs[0].Address != logger || len(r.Logs[0].Topics) != 1 || r.Logs[0].Topics[0] != topic ||
			hexutil.Encode(r.Logs[0].Data) != word(0x33) || !types.BloomLookup(r.LogsBloom, topic) {
			t.Errorf("%s: private receipt's logs %+v (bloom has topic: %v)", name, r.Logs, types.BloomLookup(r.LogsBloom, topic))
		}
		if len(logs) != 1 || logs[0].TxHash != logHash || logs[0].Topics[0] != topic {
			t.Errorf("%s: eth_getLogs %+v, want the private log of %s", name, logs, logHash)
		}
		var block []struct {
			TxHash common.Hash `json:"transactionHash"`
			Logs   []rpcLog    `json:"logs"`
		}
		node.MustCall(&block, "eth_getBlockReceipts", hexutil.EncodeUint64(logBlock))
		for _, br := range block {
			if br.TxHash == logHash && len(br.Logs) != 1 {
				t.Errorf("%s: eth_getBlockReceipts gives the private call %d logs, want 1", name, len(br.Logs))
			}
		}
	}

	// Refusals, with GoQuorum's messages where it has one.
	pubTx, _ := types.SignTx(types.NewTx(&types.LegacyTx{Nonce: 2, GasPrice: new(big.Int), Gas: 21000, To: &contract}),
		types.NewEIP155Signer(big.NewInt(chainID)), dev)
	pubRaw, _ := pubTx.MarshalBinary()
	unknownKey := signPrivate(t, dev, 2, &contract, 0x40000, make([]byte, 64))
	okKey := storeRaw(t, pa.Inst.Q2TURL(), []byte{1}, keyA)
	okRaw := signPrivate(t, dev, 2, &contract, 0x40000, okKey)
	for _, tc := range []struct {
		raw  []byte
		args map[string]any
		want string
	}{
		{pubRaw, map[string]any{"privateFor": []string{keyB}}, "transaction is not private"},
		{okRaw, map[string]any{}, "transaction is not private"},
		{unknownKey, map[string]any{"privateFor": []string{keyB}}, "holds no raw payload"},
		{okRaw, map[string]any{"privateFor": []string{keyB}, "privacyFlag": 1}, "PrivacyEnhancements are disabled"},
		{okRaw, map[string]any{"privateFor": []string{keyB}, "privacyFlag": 3}, "PrivacyEnhancements are disabled"},
		{okRaw, map[string]any{"privateFor": []string{keyB}, "mandatoryFor": []string{keyB}}, "mandatory recipients are only applicable"},
		{okRaw, map[string]any{"privateFor": []string{keyB}, "privacyGroupId": "x"}, "multiple private states"},
	} {
		_, err := a.Call("eth_sendRawPrivateTransaction", hexutil.Encode(tc.raw), tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "-32000") {
			t.Errorf("eth_sendRawPrivateTransaction %v: %v, want -32000 %q", tc.args, err, tc.want)
		}
	}
	if _, err := a.Call("eth_getQuorumPayload", "0x1234"); err == nil || !strings.Contains(err.Error(), "Expected a Quorum digest of length 64, but got 2") {
		t.Errorf("eth_getQuorumPayload of 2 bytes: %v", err)
	}

	// B dies (SIGKILL) while A mines more private calls; restarted, it
	// syncs them from A and ends with A's private values.
	var last common.Hash
	for i := range 6 {
		if i == 2 {
			b.Stop(syscall.SIGKILL)
		}
		last = sendRawPrivate(t, a, pa.Inst.Q2TURL(), keyA, dev, uint64(2+i), &contract, hexutil.MustDecode(word(uint64(100+i))), keyB)
		receiptOf(t, a, last) // one block after another
	}
	lastBlock := uint64(receiptOf(t, a, last).BlockNumber)
	b.RestartAfter(syscall.SIGKILL)
	b.AddPeer(a)
	waitHeight(t, 90*time.Second, lastBlock+1, a, b, c)
	sameHashes(t, 1, lastBlock+1, a, b, c)
	wantLast := privateView{call: word(105), slot: word(105)}
	for name, node := range map[string]*testnode.P2PNode{"A": a, "B": b} {
		if got := viewOf(t, node, contract); got.call != wantLast.call || got.slot != wantLast.slot {
			t.Errorf("%s after B's crash: private contract reads %+v, want %s", name, got, word(105))
		}
	}

	// D, a fresh node with B's manager, rebuilds B's private state by full
	// sync; its blocks, exported and imported into an empty data path with
	// --ptm-url, rebuild it again.
	dDir := t.TempDir()
	d := testnode.StartP2P(t, dDir, append(args, "--ptm-url="+pb.Inst.Q2TURL())...)
	d.AddPeer(a)
	waitHeight(t, 90*time.Second, lastBlock+1, d)
	if got := viewOf(t, d, contract); got != viewOf(t, b, contract) {
		t.Errorf("D after full sync reads %+v, B reads %+v", got, viewOf(t, b, contract))
	}
	d.Stop(syscall.SIGTERM)
	file := filepath.Join(t.TempDir(), "blocks.rlp")
	if out, err := exec.Command(testnode.Binary(t), "--data-path="+dDir, "--genesis-file="+genesis, "blocks", "export",
		"--to="+file, "--end-block="+strconv.FormatUint(lastBlock+1, 10)).CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	eDir := t.TempDir()
	if out, err := exec.Command(testnode.Binary(t), "--data-path="+eDir, "--genesis-file="+genesis, "--ptm-url="+pb.Inst.Q2TURL(),
		"blocks", "import", "--from="+file, "--no-progress").CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	e := testnode.StartP2P(t, eDir, append(args, "--ptm-url="+pb.Inst.Q2TURL())...)
	if got, want := viewOf(t, e, contract), viewOf(t, a, contract); got.call != want.call || got.slot != want.slot || got.code != want.code {
		t.Errorf("E after blocks import reads %+v, A reads %+v", got, want)
	}
}

// TestMixedNetworkParty: 2 GoQuorum validators (A, A2) and 2 Basalt
// validators (B, B2) and a Basalt non-validator N peered with the GoQuorum
// nodes only, each with its own basalt-privacy. A private contract deployed from GoQuorum A for {A, B}
// (eth_sendTransaction with privateFor): B reads the same receipt, code,
// storage and call result as A; the Basalt non-parties B2 and N and the
// GoQuorum non-party A2 read no code. Basalt B then calls it privately for
// {A, B} with eth_sendRawPrivateTransaction (its own key, payload stored
// with /storeraw) and A reads the new value; so it does after a call
// through basalt-signer in front of B (a key no node holds). B is SIGKILLed while A makes
// more private calls for {A, B} and ends, restarted, with A's values; the
// block hashes agree on every node at every height.
func TestMixedNetworkParty(t *testing.T) {
	bin := gethBinary(t)
	ptms := startQ2TManagers(t, "a", "a2", "b", "b2", "n") // A, A2, B, B2, N
	pA, pB := ptms[0], ptms[2]
	keyA, keyB := pA.Keys[0].String(), pB.Keys[0].String()

	dev, _ := crypto.HexToECDSA(devKeyHex)
	devAddr := crypto.PubkeyToAddress(dev.PublicKey)
	keys := validatorKeys(t, 4)
	setup := func(i int, g *gethNode) {
		tm := filepath.Join(g.dir, "tm.toml")
		if err := os.WriteFile(tm, []byte(fmt.Sprintf("HttpUrl = %q\nTimeout = 10\n", ptms[i].Inst.Q2TURL())), 0o644); err != nil {
			t.Fatal(err)
		}
		g.privateConfig = tm
		if i == 0 {
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
		setup:         setup,
		basaltArgs:    []string{"--min-gas-price=0"},
		basaltArgsFor: func(i int) []string { return []string{"--ptm-url=" + ptms[2+i].Inst.Q2TURL()} },
		// GoQuorum 24.4.1 panics on private storage writes under Berlin
		// (Consensys/quorum#1657).
		genesis: func(g map[string]any) { delete(g["config"].(map[string]any), "berlinBlock") },
	})
	a, a2 := n.geth[0].node, n.geth[1].node
	b, b2 := n.basalt[0], n.basalt[1]
	nv := testnode.StartP2P(t, t.TempDir(), "--genesis-file="+n.genesis, "--min-gas-price=0",
		"--rpc-http-api=ETH,NET,WEB3,ADMIN,QBFT,TXPOOL", "--ptm-url="+ptms[4].Inst.Q2TURL())
	// N syncs from the GoQuorum nodes alone.
	for _, g := range n.geth {
		var ok bool
		nv.MustCall(&ok, "admin_addPeer", g.enode())
	}

	// A deploys for {A, B}.
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
	deployA := receiptOf(t, a, deployHash)
	if deployA.ContractAddress == nil || deployA.Status != 1 {
		t.Fatalf("deploy receipt on A: %+v", deployA)
	}
	contract := *deployA.ContractAddress
	waitHeight(t, 60*time.Second, uint64(deployA.BlockNumber), n.running()...)
	waitHeight(t, 60*time.Second, uint64(deployA.BlockNumber), nv)
	viewA := viewOf(t, a, contract)
	if viewA.call != word(42) || len(viewA.code) <= 2 {
		t.Fatalf("A: private contract reads %+v, want 42 and its code", viewA)
	}
	if got := viewOf(t, b, contract); got != viewA {
		t.Errorf("B reads %+v, A reads %+v", got, viewA)
	}
	if r := receiptOf(t, b, deployHash); r.Status != deployA.Status || r.ContractAddress == nil || *r.ContractAddress != contract ||
		r.GasUsed != deployA.GasUsed || r.IsPMT == nil || *r.IsPMT {
		t.Errorf("B's receipt %+v, A's %+v", r, deployA)
	}
	for name, node := range map[string]*testnode.P2PNode{"A2 (GoQuorum)": a2, "B2 (Basalt validator)": b2, "N (Basalt non-validator)": nv} {
		var code hexutil.Bytes
		node.MustCall(&code, "eth_getCode", contract, "latest")
		if len(code) != 0 {
			t.Errorf("%s, not a party, reads code %x", name, code)
		}
		var payload string
		node.MustCall(&payload, "eth_getQuorumPayload", hexutil.Encode(mustTxInput(t, node, deployHash)))
		if payload != "0x" {
			t.Errorf("%s: eth_getQuorumPayload = %.20s…, want 0x", name, payload)
		}
	}

	// B calls it for {A, B}, signing itself.
	other, _ := crypto.GenerateKey()
	setHash := sendRawPrivate(t, b, pB.Inst.Q2TURL(), keyB, other, 0, &contract, hexutil.MustDecode(word(9)), keyA)
	set := receiptOf(t, b, setHash)
	waitHeight(t, 60*time.Second, uint64(set.BlockNumber), n.running()...)
	for name, node := range map[string]*testnode.P2PNode{"A": a, "B": b} {
		if got := viewOf(t, node, contract); got.call != word(9) || got.slot != word(9) {
			t.Errorf("%s after B's private call: reads %+v, want 9", name, got)
		}
		if r := receiptOf(t, node, setHash); r.Status != 1 {
			t.Errorf("%s: receipt of B's private call %+v", name, r)
		}
	}

	// B's user, whose key no node holds, calls it for {A, B} through
	// basalt-signer in front of B (eth_sendTransaction with privateFor:
	// the signer stores the data with B's manager, signs a V 37/38
	// transaction and sends it with eth_sendRawPrivateTransaction to B);
	// GoQuorum A reads the new value.
	signerURL := startSignerFor(t, b, pB.Inst.Q2TURL(), chainID, signerSenderKey())
	var viaSigner common.Hash
	callURL(t, signerURL, &viaSigner, "eth_sendTransaction", map[string]any{
		"from": crypto.PubkeyToAddress(signerSenderKey().PublicKey), "to": contract, "data": word(11),
		"gas": "0x30000", "gasPrice": "0x0", "privateFrom": keyB, "privateFor": []string{keyA},
	})
	signed := receiptOf(t, a, viaSigner)
	waitHeight(t, 60*time.Second, uint64(signed.BlockNumber), n.running()...)
	for name, node := range map[string]*testnode.P2PNode{"A (GoQuorum)": a, "B": b} {
		if got := viewOf(t, node, contract); got.call != word(11) || got.slot != word(11) {
			t.Errorf("%s after the signer's private call through B: reads %+v, want 11", name, got)
		}
		if r := receiptOf(t, node, viaSigner); r.Status != 1 {
			t.Errorf("%s: receipt of the signer's private call %+v", name, r)
		}
	}
	var onChain struct {
		V hexutil.Big `json:"v"`
	}
	a.MustCall(&onChain, "eth_getTransactionByHash", viaSigner)
	if v := onChain.V.ToInt().Uint64(); v != 37 && v != 38 {
		t.Errorf("the signer's transaction on A has V %d, want GoQuorum's private 37 or 38", v)
	}

	// A private log, made by B's call for {A, B}: the same on both, in
	// the receipt and in eth_getLogs.
	topic := common.HexToHash("0xfeed")
	logRuntime := append(append(hexutil.MustDecode("0x6000356000527f"), topic[:]...), hexutil.MustDecode("0x60206000a100")...)
	logInit := append([]byte{0x61, 0, byte(len(logRuntime)), 0x80, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3}, logRuntime...)
	var logDeployHash common.Hash
	a.MustCall(&logDeployHash, "eth_sendTransaction", map[string]any{
		"from": devAddr, "data": hexutil.Encode(logInit), "gas": "0x30000", "gasPrice": "0x0", "privateFor": []string{keyB},
	})
	logger := *receiptOf(t, a, logDeployHash).ContractAddress
	logHash := sendRawPrivate(t, b, pB.Inst.Q2TURL(), keyB, other, 1, &logger, hexutil.MustDecode(word(0x33)), keyA)
	logBlock := uint64(receiptOf(t, b, logHash).BlockNumber)
	waitHeight(t, 60*time.Second, logBlock, n.running()...)
	logsOf := func(node *testnode.P2PNode) (receipt, query string) {
		var r struct {
			Logs      json.RawMessage `json:"logs"`
			LogsBloom string          `json:"logsBloom"`
			Status    string          `json:"status"`
		}
		node.MustCall(&r, "eth_getTransactionReceipt", logHash)
		q, err := node.Call("eth_getLogs", map[string]any{"fromBlock": "0x1", "toBlock": hexutil.EncodeUint64(logBlock), "address": logger})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%s %s %s", r.Status, r.LogsBloom, r.Logs), string(q)
	}
	// Basalt adds the execution-apis' blockTimestamp to every log, which
	// GoQuorum 24.4.1 predates.
	noTime := regexp.MustCompile(`"blockTimestamp":"0x[0-9a-f]+",`)
	ra, qa := logsOf(a)
	rb, qb := logsOf(b)
	rb, qb = noTime.ReplaceAllString(rb, ""), noTime.ReplaceAllString(qb, "")
	if !strings.Contains(ra, strings.TrimPrefix(topic.Hex(), "0x")) {
		t.Errorf("A's receipt of the private log call: %s", ra)
	}
	if ra != rb || qa != qb {
		t.Errorf("private log on A: receipt %s, eth_getLogs %s\non B: receipt %s, eth_getLogs %s", ra, qa, rb, qb)
	}

	// Up to here no GoQuorum node refused a block or message; B's crash
	// below makes round changes, whose messages are not checked.
	n.checkGethLogsExcept(n.ownProposalRaces())

	// B dies while A sends more for {A, B}.
	var last common.Hash
	for i := range 4 {
		if i == 1 {
			b.Stop(syscall.SIGKILL)
		}
		var h common.Hash
		a.MustCall(&h, "eth_sendTransaction", map[string]any{
			"from": devAddr, "to": contract, "data": word(uint64(200 + i)), "gas": "0x20000", "gasPrice": "0x0", "privateFor": []string{keyB},
		})
		receiptOf(t, a, h)
		last = h
	}
	lastBlock := uint64(receiptOf(t, a, last).BlockNumber)
	b.RestartAfter(syscall.SIGKILL)
	b.AddPeer(b2)
	top := lastBlock + 2
	waitHeight(t, 120*time.Second, top, append(n.running(), nv)...)
	sameHashes(t, 1, top, append(n.running(), nv)...)
	viewA = viewOf(t, a, contract)
	if viewA.call != word(203) {
		t.Errorf("A: reads %+v, want 203", viewA)
	}
	if got := viewOf(t, b, contract); got != viewA {
		t.Errorf("B after its crash reads %+v, A reads %+v", got, viewA)
	}
}

// oneValidatorNetwork writes a GoQuorum-style genesis (Berlin off, as
// GoQuorum's quickstart has it for private networks) with one QBFT
// validator, and returns the arguments of a Basalt node on it and of the
// validator itself (the same with the validator's key), and the genesis
// file's path.
func oneValidatorNetwork(t *testing.T) (genesis string, args, validatorArgs []string) {
	t.Helper()
	vk := validatorKeys(t, 1)[0]
	genesis = writeGenesis(t, t.TempDir(), []common.Address{crypto.PubkeyToAddress(vk.PublicKey)},
		func(g map[string]any) { delete(g["config"].(map[string]any), "berlinBlock") })
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(vk))), 0o600); err != nil {
		t.Fatal(err)
	}
	args = []string{"--genesis-file=" + genesis, "--min-gas-price=0", "--rpc-http-api=ETH,NET,WEB3,ADMIN,QBFT,TXPOOL"}
	return genesis, args, append(slices.Clip(args), "--node-private-key-file="+keyFile)
}
