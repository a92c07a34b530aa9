package clique

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/rpc"

	"github.com/basaltchain/basalt/rpctypes"
)

// apiServer serves the engine's CLIQUE group over an in-process JSON-RPC
// server.
func apiServer(t *testing.T, n *testNet) *rpc.Server {
	t.Helper()
	reg := rpc.NewRegistry()
	if err := reg.RegisterGroups(n.engine.APIs(n.chain)); err != nil {
		t.Fatal(err)
	}
	srv, err := rpc.NewServer(reg, rpc.Config{APIs: []string{rpctypes.GroupClique}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func call(t *testing.T, srv *rpc.Server, method string, params ...any) rpcAnswer {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	p, _ := json.Marshal(params)
	resp, _ := srv.HandleMessage(context.Background(), []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, p)))
	var a rpcAnswer
	if err := json.Unmarshal(resp, &a); err != nil {
		t.Fatalf("%s: %s: %v", method, resp, err)
	}
	return a
}

func TestCliqueAPI(t *testing.T) {
	n := newTestNet(t, defaultCfg, "A", "A", "B", "C")
	order := n.turnOrder("A", "B", "C")
	srv := apiServer(t, n)
	// Block 1 votes D in (one of three votes needed: two).
	n.chain.add(n.next(block{signer: order[1], voted: "D", auth: true}))
	n.chain.add(n.next(block{signer: order[2], voted: "D", auth: true})) // block 2: D is in
	n.chain.add(n.next(block{signer: order[0]}))                         // block 3

	names := func(raw json.RawMessage) string {
		var addrs []common.Address
		if err := json.Unmarshal(raw, &addrs); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return strings.Join(n.acc.names(addrs), ",")
	}
	abc, abcd := strings.Join(n.turnOrder("A", "B", "C"), ","), strings.Join(n.turnOrder("A", "B", "C", "D"), ",")
	for _, tc := range []struct {
		params []any
		want   string
	}{
		{nil, abcd},
		{[]any{"latest"}, abcd},
		{[]any{"earliest"}, abc},
		{[]any{"0x1"}, abc},
		{[]any{"0x2"}, abcd},
		{[]any{"pending"}, abcd},
	} {
		a := call(t, srv, "clique_getSigners", tc.params...)
		if a.Error != nil || names(a.Result) != tc.want {
			t.Errorf("clique_getSigners%v: %s %+v, want %s", tc.params, a.Result, a.Error, tc.want)
		}
	}
	g := n.chain.GetHeaderByNumber(1)
	if a := call(t, srv, "clique_getSignersAtHash", g.Hash()); a.Error != nil || names(a.Result) != abc {
		t.Errorf("clique_getSignersAtHash(1): %s %+v", a.Result, a.Error)
	}

	// Besu's errors.
	for _, tc := range []struct {
		method string
		params []any
		code   int
		msg    string
	}{
		{"clique_getSigners", []any{"0x63"}, -32603, "Internal error"},
		{"clique_getSigners", []any{"bad"}, -32602, "Invalid block param (block not found)"},
		{"clique_getSignersAtHash", []any{common.Hash{1}}, -32603, "Internal error"},
		{"clique_getSignersAtHash", []any{"0x12"}, -32602, "Invalid block hash params"},
		{"clique_getSignersAtHash", nil, -32602, "Invalid block hash params"},
		{"clique_propose", []any{"0xzz", true}, -32602, "Invalid address params"},
		{"clique_propose", []any{common.Address{1}}, -32602, "Invalid proposal params"},
		{"clique_propose", []any{common.Address{1}, "yes"}, -32602, "Invalid proposal params"},
		{"clique_propose", []any{common.Address{}, true}, -32600, "Invalid Request"},
		{"clique_discard", []any{"0x1234567890123456789012345678901234567890ab"}, -32602, "Invalid address params"},
		{"clique_getSignerMetrics", []any{"0x3", "0x3"}, -32602, "Invalid block number params"},
		{"clique_getSignerMetrics", []any{"x"}, -32602, "Invalid block number params"},
		{"clique_getSignerMetrics", []any{"safe"}, -32603, "Internal error"},
	} {
		a := call(t, srv, tc.method, tc.params...)
		if a.Error == nil || a.Error.Code != tc.code || a.Error.Message != tc.msg {
			t.Errorf("%s%v: %s %+v, want %d %s", tc.method, tc.params, a.Result, a.Error, tc.code, tc.msg)
		}
	}

	// Proposals.
	e := n.acc.address("E")
	if a := call(t, srv, "clique_propose", e, true); string(a.Result) != "true" {
		t.Fatalf("clique_propose: %s %+v", a.Result, a.Error)
	}
	call(t, srv, "clique_propose", n.acc.address("B"), false)
	var props map[common.Address]bool
	json.Unmarshal(call(t, srv, "clique_proposals").Result, &props)
	if len(props) != 2 || !props[e] || props[n.acc.address("B")] {
		t.Fatalf("clique_proposals %v", props)
	}
	if a := call(t, srv, "clique_discard", e); string(a.Result) != "true" {
		t.Fatalf("clique_discard: %s", a.Result)
	}
	if a := call(t, srv, "clique_discard", e); string(a.Result) != "true" {
		t.Fatalf("clique_discard of nothing: %s", a.Result)
	}
	props = nil
	json.Unmarshal(call(t, srv, "clique_proposals").Result, &props)
	if len(props) != 1 {
		t.Fatalf("after discard: %v", props)
	}

	// Metrics over blocks 0..2 (the end block is excluded, as in Besu):
	// the genesis counts for the zero address; every signer after block 2
	// appears.
	var metrics []SignerMetric
	a := call(t, srv, "clique_getSignerMetrics")
	if a.Error != nil {
		t.Fatal(a.Error)
	}
	json.Unmarshal(a.Result, &metrics)
	got := map[string]string{}
	for _, m := range metrics {
		name := n.acc.names([]common.Address{m.Address})[0]
		if m.Address == (common.Address{}) {
			name = "genesis"
		}
		got[name] = fmt.Sprintf("%d@%d", m.ProposedBlockCount, m.LastProposedBlockNumber)
	}
	want := map[string]string{"genesis": "1@0", order[1]: "1@1", order[2]: "1@2", order[0]: "0@0", "D": "0@0"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("clique_getSignerMetrics %v, want %v", got, want)
	}
	json.Unmarshal(call(t, srv, "clique_getSignerMetrics", "0x1", "latest").Result, &metrics)
	if len(metrics) != 4 {
		t.Fatalf("metrics from block 1: %+v", metrics)
	}
}
