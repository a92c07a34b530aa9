package privacy

import (
	"context"
	"log/slog"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// TestRemovedLogs: after a reorg the private logs of the block that left
// the canonical chain come back marked removed, to pollers
// (RemovedSince, which also says where to go on from) and to
// subscriptions (deliver).
func TestRemovedLogs(t *testing.T) {
	c := chaintest.Open(t, chain.NewMemoryDatabase())
	s := New(Config{Address: common.HexToAddress("0x7e")}, c.Chain, nil,
		NewProcessor(privstate.Open(c.Database()), nil, common.HexToAddress("0x7e"), false, nil), slog.New(slog.DiscardHandler))
	group, other := common.Hash{0x61}, common.Hash{0x62}
	contract := common.HexToAddress("0x1234")
	genesis := c.CurrentHeader()
	a1, rs := c.Build(genesis, 1, 1)
	c.Insert(a1, rs, false)
	hashA1 := c.Hash(a1.Header())
	rec := &privstate.Record{Receipts: []privstate.Receipt{
		{PMT: common.Hash{1}, Group: other, Logs: []privstate.Log{{Address: contract, Data: []byte{1}}}},
		{PMT: common.Hash{2}, PMTIndex: 1, Group: group, Logs: []privstate.Log{{Address: contract, Data: []byte{2}}}},
	}}
	if err := s.store.WriteRecord(hashA1, rec); err != nil {
		t.Fatal(err)
	}
	b1, rs := c.Build(genesis, 2, 2) // heavier: replaces a1
	c.Insert(b1, rs, false)
	hashB1 := c.Hash(b1.Header())
	if c.CurrentHash() != hashB1 {
		t.Fatal("no reorg")
	}
	all := func(uint64) bool { return true }
	ctx := context.Background()
	logs, from, err := s.RemovedSince(ctx, group, LogQuery{}, 1, hashA1, all)
	if err != nil || from != 0 || len(logs) != 1 || !logs[0].Removed || logs[0].BlockHash != hashA1 ||
		logs[0].Data[0] != 2 || logs[0].Index != 1 || logs[0].TxHash != (common.Hash{2}) {
		t.Fatalf("removed %+v from %d: %v", logs, from, err)
	}
	if logs, from, _ := s.RemovedSince(ctx, group, LogQuery{}, 1, hashB1, all); len(logs) != 0 || from != 1 {
		t.Fatalf("canonical last: %+v from %d", logs, from)
	}
	if logs, from, _ := s.RemovedSince(ctx, group, LogQuery{}, 1, hashA1, func(n uint64) bool { return n > 1 }); len(logs) != 0 || from != 0 {
		t.Fatalf("outside the filter's range: %+v from %d", logs, from)
	}
	if logs, _, _ := s.RemovedSince(ctx, group, LogQuery{Addresses: []common.Address{{9}}}, 1, hashA1, all); len(logs) != 0 {
		t.Fatalf("other address: %+v", logs)
	}

	var got []*types.Log
	cancel := s.SubscribeLogs(group, LogQuery{}, func(l *types.Log) bool { got = append(got, l); return true })
	defer cancel()
	s.deliver(a1, true)
	if len(got) != 1 || !got[0].Removed || got[0].BlockHash != hashA1 {
		t.Fatalf("subscription got %+v", got)
	}
}
