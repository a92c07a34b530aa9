package api

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// TestGetBadBlocks refuses a block whose transactions do not match its
// header and finds it, with its hash, transactions and RLP, in
// debug_getBadBlocks.
func TestGetBadBlocks(t *testing.T) {
	db := chain.NewMemoryDatabase()
	t.Cleanup(func() { db.Close() })
	c := chaintest.Open(t, db)
	reg := rpc.NewRegistry()
	if err := Register(reg, Groups(&backend.Backend{Chain: c.Chain, Config: backend.Config{NetworkID: 1337}})...); err != nil {
		t.Fatal(err)
	}
	srv, err := rpc.NewServer(reg, rpc.Config{APIs: []string{rpctypes.GroupDebug}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := callPeer(t, srv, "debug_getBadBlocks"); err != nil || string(res) != "[]" {
		t.Fatalf("no bad blocks yet: %s %v", res, err)
	}
	good, _ := c.Build(c.CurrentHeader(), 1, 0, nil, nil)
	h := good.Header()
	h.TxHash = common.Hash{7}
	bad := types.NewBlockWithHeader(h).WithBody(*good.Body())
	if _, err := c.InsertBlock(context.Background(), bad, chain.InsertOptions{}); err == nil {
		t.Fatal("bad block accepted")
	}
	res, err := callPeer(t, srv, "debug_getBadBlocks")
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Block struct {
			Hash             common.Hash
			Number           hexutil.Uint64
			TransactionsRoot common.Hash
			Transactions     []struct{ Hash, BlockHash common.Hash }
		}
		Hash common.Hash
		RLP  hexutil.Bytes
	}
	if err := json.Unmarshal(res, &got); err != nil || len(got) != 1 {
		t.Fatalf("%s %v", res, err)
	}
	want, _ := rlp.EncodeToBytes(bad)
	b := got[0]
	hash := c.Hash(bad.Header())
	if b.Hash != hash || b.Block.Hash != hash || b.Block.Number != 1 || b.Block.TransactionsRoot != (common.Hash{7}) ||
		len(b.Block.Transactions) != 2 || b.Block.Transactions[1].Hash != bad.Transactions()[1].Hash() ||
		b.Block.Transactions[0].BlockHash != hash || hexutil.Encode(b.RLP) != hexutil.Encode(want) {
		t.Errorf("bad block %s", res)
	}
}
