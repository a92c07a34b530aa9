package api

import (
	"context"
	"log/slog"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// TestPrivFilterReorg: a private polling filter reports the logs of a
// block a reorg took back, removed, before those of the new branch, and
// goes on from there.
func TestPrivFilterReorg(t *testing.T) {
	db := chain.NewMemoryDatabase()
	c := chaintest.Open(t, db)
	svc := privacy.New(privacy.Config{Address: common.HexToAddress("0x7e")}, c.Chain, nil,
		privacy.NewProcessor(privstate.Open(db), nil, common.HexToAddress("0x7e"), false, nil), slog.New(slog.DiscardHandler))
	p := &Priv{s: svc, fil: newPrivFilters()}
	records := privstate.Open(db)
	group := common.Hash{0x61}
	gid := privacy.GroupIDString(group)
	// withLog inserts a block on parent with one private log of group
	// carrying data.
	withLog := func(parent uint64, difficulty int64, data byte) common.Hash {
		b, rs := c.Build(c.GetHeaderByNumber(parent), difficulty, data)
		hash := c.Hash(b.Header())
		rec := &privstate.Record{Receipts: []privstate.Receipt{{PMT: common.Hash{data}, Group: group,
			Logs: []privstate.Log{{Address: common.HexToAddress("0x1234"), Data: []byte{data}}}}}}
		if err := records.WriteRecord(hash, rec); err != nil {
			t.Fatal(err)
		}
		c.Insert(b, rs, false)
		return hash
	}
	ctx := context.Background()
	id, err := p.NewFilter(gid, FilterArgs{})
	if err != nil {
		t.Fatal(err)
	}
	a1 := withLog(0, 1, 1)
	logs, err := p.GetFilterChanges(ctx, gid, id)
	if err != nil || len(logs) != 1 || logs[0].Removed || logs[0].BlockHash != a1 {
		t.Fatalf("first poll %+v %v", logs, err)
	}
	b1 := withLog(0, 2, 2) // heavier: replaces a1
	if c.CurrentHash() != b1 {
		t.Fatal("no reorg")
	}
	logs, err = p.GetFilterChanges(ctx, gid, id)
	if err != nil || len(logs) != 2 || !logs[0].Removed || logs[0].BlockHash != a1 || logs[0].Data[0] != 1 ||
		logs[1].Removed || logs[1].BlockHash != b1 || logs[1].Data[0] != 2 {
		t.Fatalf("poll after the reorg %+v %v", logs, err)
	}
	if logs, err = p.GetFilterChanges(ctx, gid, id); err != nil || len(logs) != 0 {
		t.Fatalf("third poll %+v %v", logs, err)
	}
}
