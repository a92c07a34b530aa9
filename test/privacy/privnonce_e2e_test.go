package privacy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/privacy/privtx"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// counterRuntime is a hand-assembled counter: called with data it adds 1
// to slot 0, called without it returns slot 0. counterInit deploys it.
const (
	counterRuntime = "36600f5760005460005260206000f35b60005460010160005500"
	counterInit    = "0x601a600c600039601a6000f3" + counterRuntime
)

// signerSend posts eea_sendTransaction to the signer and returns the
// marker's hash, or an error (it may run outside the test's goroutine).
func signerSend(url string, tx map[string]any) (common.Hash, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eea_sendTransaction", "params": []any{tx}})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return common.Hash{}, err
	}
	defer resp.Body.Close()
	var out struct {
		Result common.Hash
		Error  *testnode.RPCError
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return common.Hash{}, err
	}
	if out.Error != nil {
		return common.Hash{}, out.Error
	}
	return out.Result, nil
}

// TestPrivateNonceBursts: concurrent eea_sendTransaction calls without a
// nonce through basalt-signer, faster than blocks are made, on three
// Clique signers whose markers are signed by fresh keys: 100 for one
// group, then 100 spread over three groups (two by privateFor, one made
// with priv_createPrivacyGroup). Every private receipt has status 1 and
// every member's counter holds exactly the calls sent to its group.
func TestPrivateNonceBursts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts seven processes")
	}
	nodes := startPrivacyNetwork(t)
	a, b, c := nodes[0], nodes[1], nodes[2]
	signer := startPrivacySigner(t, a.URL)
	dev1 := config.DevAccounts[1].Address
	var abc string
	a.MustCall(&abc, "priv_createPrivacyGroup", map[string]any{"addresses": []string{a.key, b.key, c.key}, "name": "abc"})
	type group struct {
		name     string
		fields   map[string]any
		members  []*privNode
		id       string
		contract common.Address
		sent     uint64
	}
	groups := []*group{
		{name: "AB", fields: map[string]any{"privateFor": []string{b.key}}, members: []*privNode{a, b}},
		{name: "AC", fields: map[string]any{"privateFor": []string{c.key}}, members: []*privNode{a, c}},
		{name: "ABC", fields: map[string]any{"privacyGroupId": abc}, members: []*privNode{a, b, c}},
	}
	tx := func(g *group, data string) map[string]any {
		m := map[string]any{"from": dev1, "data": data, "gas": "0x100000", "privateFrom": a.key, "restriction": "restricted"}
		for k, v := range g.fields {
			m[k] = v
		}
		if g.contract != (common.Address{}) {
			m["to"] = g.contract
		}
		return m
	}
	for _, g := range groups {
		pmt, err := signerSend(signer, tx(g, counterInit))
		if err != nil {
			t.Fatalf("deploy to %s: %v", g.name, err)
		}
		r := waitPrivReceipt(t, a, pmt)
		if r.Status != "0x1" || r.ContractAddress == nil {
			t.Fatalf("deploy to %s: %+v", g.name, r)
		}
		g.contract, g.id = *r.ContractAddress, r.PrivacyGroupID
	}

	burst := func(n int, pick func(i int) *group) {
		t.Helper()
		hashes := make([]common.Hash, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { hashes[i], errs[i] = signerSend(signer, tx(pick(i), "0x01")) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("call %d of %d: %v", i, n, err)
			}
			pick(i).sent++
		}
		for i, h := range hashes {
			if r := waitPrivReceipt(t, a, h); r.Status != "0x1" {
				t.Fatalf("call %d of %d (group %s): private receipt %+v", i, n, pick(i).name, r)
			}
		}
	}
	burst(100, func(int) *group { return groups[0] })
	burst(100, func(i int) *group { return groups[i%3] })

	for _, g := range groups {
		for _, m := range g.members {
			want := privWord(g.sent)
			var got string
			testnode.WaitFor(t, 30*time.Second, fmt.Sprintf("group %s's counter at %d on %s", g.name, g.sent, m.URL), func() bool {
				got = stored(t, m, g.id, g.contract, "latest")
				return got == want
			})
		}
	}
	if groups[0].sent != 134 {
		t.Fatalf("group AB got %d calls", groups[0].sent)
	}
	// Nothing of the signer's sender is pending any more: the node's count
	// is the head's.
	var count hexutil.Uint64
	a.MustCall(&count, "priv_getTransactionCount", dev1, abc)
	if uint64(count) != groups[2].sent+1 {
		t.Fatalf("priv_getTransactionCount in ABC: %d, want %d", count, groups[2].sent+1)
	}
}

// TestPrivacyMarkerSurvivesKill: a marker goes through the transaction
// journal like eth_sendRawTransaction, so a node killed (SIGKILL) right
// after eea_sendRawTransaction answered keeps it: after the restart the
// marker is pooled, its private nonce counts (the node asks the manager for
// the pooled markers' private transactions), and once the node mines, the
// private transactions run. --network=dev charges a base fee, so the
// markers are signed by a funded --privacy-marker-transaction-signing-key-file.
func TestPrivacyMarkerSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a manager and a node four times")
	}
	p := ptmtest.StartProcess(t, ptmtest.Conf{Dir: t.TempDir(), Keys: []string{"a", "b"}})
	a, bKey := p.Keys[0].String(), p.Keys[1].String()
	marker := filepath.Join(t.TempDir(), "marker.key")
	os.WriteFile(marker, []byte(config.DevAccounts[0].PrivateKey), 0o600)
	dir := t.TempDir()
	args := append([]string{"--network=dev", "--rpc-http-api=ETH,EEA,PRIV", "--privacy-marker-transaction-signing-key-file=" + marker},
		privacyArgs(p)...)
	mining := append([]string{"--miner-enabled", "--miner-coinbase=" + devCoinbase}, args...)
	dev1 := config.DevAccounts[1]
	group, err := privacy.LegacyGroup(b64key(a), [][]byte{b64key(bKey)})
	if err != nil {
		t.Fatal(err)
	}
	groupID := base64.StdEncoding.EncodeToString(group[:])
	contract := privacy.ContractAddress(dev1.Address, 0, group)
	send := func(n *testnode.Node, nonce uint64, to *common.Address, data []byte) common.Hash {
		t.Helper()
		tx := &privtx.Transaction{Nonce: nonce, GasPrice: big.NewInt(2_000_000_000), Gas: 200000, To: to, Value: new(big.Int),
			Data: data, PrivateFrom: b64key(a), PrivateFor: [][]byte{b64key(bKey)}, Restriction: privtx.Restricted}
		var h common.Hash
		n.MustCall(&h, "eea_sendRawTransaction", signPriv(t, tx, dev1.PrivateKey, 1337))
		return h
	}
	pooled := func(n *testnode.Node, h common.Hash) {
		t.Helper()
		var tx *struct {
			BlockNumber *hexutil.Uint64 `json:"blockNumber"`
		}
		n.MustCall(&tx, "eth_getTransactionByHash", h)
		if tx == nil || tx.BlockNumber != nil {
			t.Fatalf("marker %s after the kill: %+v", h.Hex(), tx)
		}
	}

	// No miner: the markers wait in the pool when the node is killed.
	n := testnode.Start(t, dir, args...)
	deploy := send(n, 0, nil, hexutil.MustDecode(storeInit))
	n.Stop(syscall.SIGKILL)

	n = testnode.Start(t, dir, args...)
	pooled(n, deploy)
	var count hexutil.Uint64
	n.MustCall(&count, "priv_getTransactionCount", dev1.Address, groupID)
	if count != 1 {
		t.Fatalf("pending private nonce after the restart: %d, want 1 (the pooled marker's transaction)", count)
	}
	if _, err := n.Call("eea_sendRawTransaction", signPriv(t, &privtx.Transaction{Nonce: 0, GasPrice: big.NewInt(2_000_000_000), Gas: 200000,
		Value: new(big.Int), PrivateFrom: b64key(a), PrivateFor: [][]byte{b64key(bKey)}, Restriction: privtx.Restricted},
		dev1.PrivateKey, 1337)); err == nil || err.Error() != "-32001 Nonce too low" {
		t.Fatalf("nonce 0 again: %v", err)
	}
	set := send(n, 1, &contract, common.BigToHash(big.NewInt(7)).Bytes())
	n.Stop(syscall.SIGKILL)

	n = testnode.Start(t, dir, mining...)
	for _, h := range []common.Hash{deploy, set} {
		var r *privReceipt
		testnode.WaitFor(t, 60*time.Second, "private receipt of "+h.Hex(), func() bool {
			n.MustCall(&r, "priv_getTransactionReceipt", h)
			return r != nil
		})
		if r.Status != "0x1" {
			t.Fatalf("private receipt of %s: %+v", h.Hex(), r)
		}
	}
	var got string
	n.MustCall(&got, "priv_call", groupID, map[string]any{"to": contract}, "latest")
	if got != privWord(7) {
		t.Fatalf("the contract holds %s", got)
	}
}
