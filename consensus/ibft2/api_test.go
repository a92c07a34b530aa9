package ibft2

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/api"
	"github.com/basaltchain/basalt/rpc"
)

func (c *testChain) CurrentHeader() *types.Header {
	var top *types.Header
	for n, h := range c.byNum {
		if top == nil || n > top.Number.Uint64() {
			top = h
		}
	}
	return top
}

func (c *testChain) GetHeaderByHash(h common.Hash) *types.Header { return c.headers[h] }

func TestAPI(t *testing.T) {
	f := newFixture(4)
	h := f.chain.byNum[0]
	proposers := []int{1, 2, 1}
	for _, p := range proposers {
		h = f.next(h, f.keys[p], nil, f.keys[:3])
		f.chain.add(h)
	}
	a := &ibftAPI{e: f.e, chain: f.chain}

	var addr address
	if err := json.Unmarshal([]byte(`"`+strings.TrimPrefix(strings.ToLower(f.vals[0].Hex()), "0x")+`"`), &addr); err != nil ||
		common.Address(addr) != f.vals[0] {
		t.Fatalf("address without 0x: %v", err)
	}
	if err := json.Unmarshal([]byte(`"0x12"`), &addr); !errors.Is(err, rpc.ErrInvalidAddressParams) {
		t.Fatalf("short address: %v", err)
	}
	out := address(common.Address{0x77})
	if !a.proposeValidatorVote(out, true) || !a.getPendingVotes()["0x7700000000000000000000000000000000000000"] {
		t.Fatalf("pending votes %v", a.getPendingVotes())
	}
	a.discardValidatorVote(out)
	if len(a.getPendingVotes()) != 0 {
		t.Fatal("vote not discarded")
	}

	vals, err := a.getValidatorsByBlockNumber(api.BlockNumber{Tag: "latest"})
	if err != nil || len(vals) != 4 {
		t.Fatalf("validators %v %v", vals, err)
	}
	if _, err := a.getValidatorsByBlockNumber(api.BlockNumber{Number: 99}); !errors.Is(err, rpc.ErrInvalidBlockParams) {
		t.Fatalf("unknown block: %v", err)
	}
	if v, err := a.getValidatorsByBlockHash(BlockHash(h)); err != nil || len(v) != 4 {
		t.Fatalf("by hash: %v %v", v, err)
	}
	if _, err := a.getValidatorsByBlockHash(common.Hash{1}); !errors.Is(err, rpc.ErrInvalidBlockHashParams) {
		t.Fatalf("unknown hash: %v", err)
	}

	m, err := a.getSignerMetrics(nil, nil)
	if err != nil || len(m) != 4 {
		t.Fatalf("metrics %v %v", m, err)
	}
	got := map[common.Address]signerMetric{}
	for _, x := range m {
		got[x.Address] = x
	}
	p1 := got[addr1(f, 1)]
	if p1.ProposedBlockCount != 2 || p1.LastProposedBlockNumber != 3 || got[addr1(f, 2)].ProposedBlockCount != 1 ||
		got[addr1(f, 0)].ProposedBlockCount != 0 {
		t.Fatalf("metrics %+v", m)
	}
	from := api.BlockNumber{Number: 3}
	if m, _ := a.getSignerMetrics(&from, nil); got1(m, addr1(f, 1)) != 1 {
		t.Fatalf("metrics from 3: %+v", m)
	}
}

func addr1(f *fixture, i int) common.Address { return addr(f.keys[i]) }

func got1(m []signerMetric, a common.Address) uint64 {
	for _, x := range m {
		if x.Address == a {
			return uint64(x.ProposedBlockCount)
		}
	}
	return 0
}
