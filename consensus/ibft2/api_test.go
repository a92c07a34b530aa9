package ibft2

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/rpctypes"
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
	a := newCaller(t, f.e.APIs(f.chain))

	if _, err := a.call("ibft_proposeValidatorVote", `"`+strings.TrimPrefix(strings.ToLower(f.vals[0].Hex()), "0x")+`"`, "true"); err != nil {
		t.Fatalf("address without 0x: %v", err)
	}
	a.mustCall(nil, "ibft_discardValidatorVote", `"`+f.vals[0].Hex()+`"`)
	if _, err := a.call("ibft_proposeValidatorVote", `"0x12"`, "true"); !errors.Is(err, rpctypes.ErrInvalidAddressParams) {
		t.Fatalf("short address: %v", err)
	}
	out := `"0x7700000000000000000000000000000000000000"`
	var ok bool
	var pending map[string]bool
	a.mustCall(&ok, "ibft_proposeValidatorVote", out, "true")
	a.mustCall(&pending, "ibft_getPendingVotes")
	if !ok || !pending["0x7700000000000000000000000000000000000000"] {
		t.Fatalf("pending votes %v", pending)
	}
	a.mustCall(&ok, "ibft_discardValidatorVote", out)
	pending = nil
	a.mustCall(&pending, "ibft_getPendingVotes")
	if len(pending) != 0 {
		t.Fatal("vote not discarded")
	}

	var vals []common.Address
	a.mustCall(&vals, "ibft_getValidatorsByBlockNumber", `"latest"`)
	if len(vals) != 4 {
		t.Fatalf("validators %v", vals)
	}
	if _, err := a.call("ibft_getValidatorsByBlockNumber", `"0x63"`); !errors.Is(err, rpctypes.ErrInvalidBlockParams) {
		t.Fatalf("unknown block: %v", err)
	}
	vals = nil
	a.mustCall(&vals, "ibft_getValidatorsByBlockHash", `"`+BlockHash(h).Hex()+`"`)
	if len(vals) != 4 {
		t.Fatalf("by hash: %v", vals)
	}
	if _, err := a.call("ibft_getValidatorsByBlockHash", `"`+common.Hash{1}.Hex()+`"`); !errors.Is(err, rpctypes.ErrInvalidBlockHashParams) {
		t.Fatalf("unknown hash: %v", err)
	}

	var m []signerMetric
	a.mustCall(&m, "ibft_getSignerMetrics", "null", "null")
	if len(m) != 4 {
		t.Fatalf("metrics %v", m)
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
	m = nil
	if a.mustCall(&m, "ibft_getSignerMetrics", `"0x3"`, "null"); got1(m, addr1(f, 1)) != 1 {
		t.Fatalf("metrics from 3: %+v", m)
	}
}

// signerMetric is an entry of ibft_getSignerMetrics.
type signerMetric struct {
	Address                 common.Address `json:"address"`
	ProposedBlockCount      hexutil.Uint64 `json:"proposedBlockCount"`
	LastProposedBlockNumber hexutil.Uint64 `json:"lastProposedBlockNumber"`
}

// caller calls the methods of JSON-RPC groups with JSON parameters, as the
// server would, without a server.
type caller struct {
	t       *testing.T
	methods map[string]any
}

func newCaller(t *testing.T, groups []rpctypes.Group) *caller {
	c := &caller{t: t, methods: map[string]any{}}
	for _, g := range groups {
		for _, m := range g.Methods {
			c.methods[m.Name] = m.Fn
		}
	}
	return c
}

func (c *caller) call(name string, params ...string) (any, error) {
	fn := reflect.ValueOf(c.methods[name])
	if !fn.IsValid() {
		c.t.Fatalf("no method %s", name)
	}
	var args []reflect.Value
	for i := range fn.Type().NumIn() {
		pt := fn.Type().In(i)
		v := reflect.New(pt)
		if i < len(params) && params[i] != "null" {
			if err := json.Unmarshal([]byte(params[i]), v.Interface()); err != nil {
				return nil, err
			}
		}
		args = append(args, v.Elem())
	}
	out := fn.Call(args)
	if len(out) == 2 && !out[1].IsNil() {
		return nil, out[1].Interface().(error)
	}
	return out[0].Interface(), nil
}

func (c *caller) mustCall(result any, name string, params ...string) {
	c.t.Helper()
	r, err := c.call(name, params...)
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	if result != nil {
		b, _ := json.Marshal(r)
		if err := json.Unmarshal(b, result); err != nil {
			c.t.Fatal(err)
		}
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
