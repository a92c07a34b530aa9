package txpool

import (
	"encoding/json"
	"math/big"
	"regexp"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// TestTxPoolMethods submits, to a dev node that does not mine, one
// executable transfer and one behind a nonce gap, and checks every TXPOOL
// method over HTTP; a peer receives the executable one and reports it as
// remote.
func TestTxPoolMethods(t *testing.T) {
	args := func(int) []string { return []string{"--network=dev", "--rpc-http-api=ETH,NET,ADMIN,TXPOOL"} }
	nodes := testnode.StartNetwork(t, 2, args)
	n, peer := nodes[0].Node, nodes[1].Node
	signer := types.LatestSignerForChainID(big.NewInt(config.DevChainID))
	key, from := devnode.Key(t, 1)
	to := common.HexToAddress("0x00000000000000000000000000000000000b0b01")
	var gasPrice hexutil.Big
	n.MustCall(&gasPrice, "eth_gasPrice")
	pending := types.MustSignNewTx(key, signer, &types.LegacyTx{Nonce: 0, To: &to, Value: big.NewInt(5), Gas: 21000, GasPrice: gasPrice.ToInt()})
	queued := types.MustSignNewTx(key, signer, &types.LegacyTx{Nonce: 2, To: &to, Value: big.NewInt(6), Gas: 21000, GasPrice: gasPrice.ToInt()})
	devnode.SendRaw(t, n, pending)
	devnode.SendRaw(t, n, queued)

	var stats struct {
		MaxSize, LocalCount, RemoteCount *int
	}
	n.MustCall(&stats, "txpool_besuStatistics")
	if stats.MaxSize == nil || *stats.MaxSize != 27000 || *stats.LocalCount != 2 || *stats.RemoteCount != 0 {
		t.Errorf("txpool_besuStatistics %+v", stats)
	}

	var entries []struct {
		Hash                      common.Hash
		IsReceivedFromLocalSource bool
		AddedToPoolAt             string
	}
	n.MustCall(&entries, "txpool_besuTransactions")
	iso := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$`)
	if len(entries) != 2 || entries[0].Hash != pending.Hash() || entries[1].Hash != queued.Hash() {
		t.Fatalf("txpool_besuTransactions %+v", entries)
	}
	for _, en := range entries {
		at, err := time.Parse(time.RFC3339Nano, en.AddedToPoolAt)
		if !en.IsReceivedFromLocalSource || !iso.MatchString(en.AddedToPoolAt) || err != nil || time.Since(at) > time.Minute {
			t.Errorf("entry %+v", en)
		}
	}

	var txs []map[string]any
	n.MustCall(&txs, "txpool_besuPendingTransactions", 5, map[string]any{"nonce": map[string]any{"eq": "0x2"}, "from": map[string]any{"eq": from}})
	raw, _ := queued.MarshalBinary()
	if len(txs) != 1 || txs[0]["hash"] != queued.Hash().Hex() || txs[0]["raw"] != hexutil.Encode(raw) || txs[0]["publicKey"] == nil {
		t.Errorf("txpool_besuPendingTransactions %v", txs)
	}
	if _, has := txs[0]["blockHash"]; has {
		t.Errorf("pending result with block fields: %v", txs[0])
	}
	if _, err := n.Call("txpool_besuPendingTransactions", 1, map[string]any{"from": map[string]any{"lt": from}}); devnode.RPCCode(t, err) != -32602 {
		t.Errorf("bad filter: %v", err)
	}

	var status struct{ Pending, Queued hexutil.Uint }
	n.MustCall(&status, "txpool_status")
	if status.Pending != 1 || status.Queued != 1 {
		t.Errorf("txpool_status %+v", status)
	}
	var content struct {
		Pending, Queued map[common.Address]map[string]map[string]any
	}
	n.MustCall(&content, "txpool_content")
	if content.Pending[from]["0"]["hash"] != pending.Hash().Hex() || content.Queued[from]["2"]["hash"] != queued.Hash().Hex() {
		t.Errorf("txpool_content %+v", content)
	}
	var fromContent struct{ Pending, Queued map[string]map[string]any }
	n.MustCall(&fromContent, "txpool_contentFrom", from)
	if len(fromContent.Pending) != 1 || len(fromContent.Queued) != 1 || fromContent.Pending["0"]["value"] != "0x5" {
		t.Errorf("txpool_contentFrom %+v", fromContent)
	}
	var inspect struct {
		Pending, Queued map[common.Address]map[string]string
	}
	n.MustCall(&inspect, "txpool_inspect")
	want := to.Hex() + ": 6 wei + 21000 gas × " + gasPrice.ToInt().String() + " wei"
	if got := inspect.Queued[from]["2"]; got != want {
		t.Errorf("txpool_inspect queued %q, want %q", got, want)
	}

	// The peer gets the executable transaction over the network: remote.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var raw json.RawMessage
		peer.MustCall(&raw, "txpool_besuTransactions")
		var got []struct {
			Hash                      common.Hash
			IsReceivedFromLocalSource bool
		}
		_ = json.Unmarshal(raw, &got)
		if len(got) > 0 {
			if got[0].Hash != pending.Hash() || got[0].IsReceivedFromLocalSource {
				t.Fatalf("peer's pool %s", raw)
			}
			var st struct{ LocalCount, RemoteCount int }
			peer.MustCall(&st, "txpool_besuStatistics")
			if st.LocalCount != 0 || st.RemoteCount < 1 {
				t.Errorf("peer's statistics %+v", st)
			}
			// The go-ethereum methods show the remote transaction too.
			var status struct{ Pending, Queued hexutil.Uint }
			peer.MustCall(&status, "txpool_status")
			var content struct {
				Pending map[common.Address]map[string]map[string]any
			}
			peer.MustCall(&content, "txpool_content")
			if status.Pending != 1 || content.Pending[from]["0"]["hash"] != pending.Hash().Hex() {
				t.Errorf("peer's txpool_status %+v, txpool_content %+v", status, content)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the peer never received the transaction")
		}
		time.Sleep(100 * time.Millisecond)
	}

	// And the other way: a transaction submitted to the peer reaches this
	// node as remote, beside its two local ones.
	key2, from2 := devnode.Key(t, 2)
	remote := types.MustSignNewTx(key2, signer, &types.LegacyTx{Nonce: 0, To: &to, Value: big.NewInt(7), Gas: 21000, GasPrice: gasPrice.ToInt()})
	devnode.SendRaw(t, peer, remote)
	testnode.WaitFor(t, 30*time.Second, "the remote transaction", func() bool {
		var st struct{ LocalCount, RemoteCount int }
		n.MustCall(&st, "txpool_besuStatistics")
		return st.RemoteCount == 1
	})
	var st struct{ LocalCount, RemoteCount int }
	n.MustCall(&st, "txpool_basaltStatistics")
	n.MustCall(&entries, "txpool_besuTransactions")
	if st.LocalCount != 2 || len(entries) != 3 || entries[2].Hash != remote.Hash() || entries[2].IsReceivedFromLocalSource {
		t.Errorf("after a remote submission: %+v %+v", st, entries)
	}
	var after struct {
		Pending map[common.Address]map[string]map[string]any
	}
	n.MustCall(&after, "txpool_content")
	n.MustCall(&status, "txpool_status")
	if after.Pending[from2]["0"]["hash"] != remote.Hash().Hex() || status.Pending != 2 || status.Queued != 1 {
		t.Errorf("txpool_content %+v, txpool_status %+v", after.Pending, status)
	}
	n.MustCall(&txs, "txpool_besuPendingTransactions", nil, map[string]any{"from": map[string]any{"eq": from2}})
	if len(txs) != 1 || txs[0]["hash"] != remote.Hash().Hex() {
		t.Errorf("txpool_besuPendingTransactions from the remote sender %v", txs)
	}
}
