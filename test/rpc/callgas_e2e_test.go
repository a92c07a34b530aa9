package rpc

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// The looping contract of the report: JUMPDEST PUSH1 0 JUMP, forever.
const (
	loopAddr = "0x00000000000000000000000000000000000000aa"
	hugeGas  = "0xffffffffffffff"
)

var loopOverride = map[string]any{loopAddr: map[string]any{"code": "0x5b600056"}}

func loopCall(gas string) map[string]any {
	c := map[string]any{"to": loopAddr}
	if gas != "" {
		c["gas"] = gas
	}
	return c
}

type traceResult struct {
	Gas     hexutil.Uint64
	GasUsed hexutil.Uint64
	Error   string
}

// TestCallGasCapped runs a contract that loops forever with a huge gas
// through every method that simulates a call: with --rpc-gas-cap at its
// default (0, "the block's gas limit") each answers out of gas having used
// the block's gas (on the dev chain, Osaka's per-transaction cap below its
// gas limit), instead of looping until the JSON-RPC timeout; with a cap set,
// the cap bounds them and each call of eth_simulateV1.
func TestCallGasCapped(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		n := testnode.Start(t, t.TempDir(), "--network=dev", "--rpc-http-api=ETH,DEBUG")
		blockGas := uint64(params.MaxTxGas) // the dev chain runs Osaka; its gas limit is higher
		assertCapped(t, n, blockGas)

		// eth_simulateV1: a call's gas is bounded by its simulated block's
		// gas limit; asking for more is the spec's -38015.
		_, err := n.Call("eth_simulateV1", map[string]any{"blockStateCalls": []any{map[string]any{
			"blockOverrides": map[string]any{"gasLimit": "0x1000000"},
			"stateOverrides": loopOverride, "calls": []any{loopCall(hugeGas)}}}}, "latest")
		if code := devnode.RPCCode(t, err); code != -38015 {
			t.Fatalf("eth_simulateV1 with gas above the block's: %v", err)
		}
		var blocks []simBlock
		n.MustCall(&blocks, "eth_simulateV1", map[string]any{"blockStateCalls": []any{map[string]any{
			"blockOverrides": map[string]any{"gasLimit": "0x1000000"},
			"stateOverrides": loopOverride, "calls": []any{loopCall("")}}}}, "latest")
		if c := blocks[0].Calls[0]; c.Status != 0 || c.Error == nil || c.Error.Message != "out of gas" || c.GasUsed != 0x1000000 {
			t.Fatalf("eth_simulateV1 looping call: %+v", c)
		}
		// In a block with more gas, the request's budget
		// (--rpc-simulate-gas-cap, default 50,000,000 as go-ethereum's)
		// bounds the call.
		n.MustCall(&blocks, "eth_simulateV1", map[string]any{"blockStateCalls": []any{map[string]any{
			"blockOverrides": map[string]any{"gasLimit": "0x10000000"},
			"stateOverrides": loopOverride, "calls": []any{loopCall("")}}}}, "latest")
		if c := blocks[0].Calls[0]; c.Status != 0 || c.Error == nil || c.GasUsed != 50_000_000 {
			t.Fatalf("eth_simulateV1 looping call in a big block: %+v", c)
		}
	})
	t.Run("rpc-gas-cap", func(t *testing.T) {
		const limit = 100_000
		n := testnode.Start(t, t.TempDir(), "--network=dev", "--rpc-http-api=ETH,DEBUG", "--rpc-gas-cap=100000")
		assertCapped(t, n, limit)
		var blocks []simBlock
		n.MustCall(&blocks, "eth_simulateV1", map[string]any{"blockStateCalls": []any{map[string]any{
			"stateOverrides": loopOverride, "calls": []any{loopCall(""), loopCall("0x1000000")}}}}, "latest")
		for i, c := range blocks[0].Calls {
			if c.Status != 0 || c.Error == nil || c.Error.Message != "out of gas" || c.GasUsed != limit {
				t.Fatalf("eth_simulateV1 looping call %d: %+v", i, c)
			}
		}
	})
}

// assertCapped checks eth_call, eth_estimateGas, eth_createAccessList and
// debug_traceCall of the looping contract with a huge gas: out of gas
// after exactly limit gas.
func assertCapped(t *testing.T, n *testnode.Node, limit uint64) {
	t.Helper()
	for _, m := range []string{"eth_call", "eth_estimateGas"} {
		_, err := n.Call(m, loopCall(hugeGas), "latest", loopOverride)
		if err == nil || devnode.RPCCode(t, err) != -32000 || !strings.Contains(err.Error(), "Out of gas") {
			t.Fatalf("%s of a loop with a huge gas: %v", m, err)
		}
	}
	var al struct {
		GasUsed hexutil.Uint64
		Error   string
	}
	n.MustCall(&al, "eth_createAccessList", loopCall(hugeGas), "latest", loopOverride)
	if uint64(al.GasUsed) != limit || al.Error == "" {
		t.Fatalf("eth_createAccessList of a loop with a huge gas: %+v", al)
	}
	var tr traceResult
	n.MustCall(&tr, "debug_traceCall", loopCall(hugeGas), "latest",
		map[string]any{"tracer": "callTracer", "stateOverrides": loopOverride})
	if uint64(tr.Gas) != limit || uint64(tr.GasUsed) != limit || tr.Error != "out of gas" {
		t.Fatalf("debug_traceCall of a loop with a huge gas: %+v", tr)
	}
}
