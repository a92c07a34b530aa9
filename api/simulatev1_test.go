package api

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// newSimServer is an ETH server on a test chain (London from genesis, no
// timestamp forks).
func newSimServer(t testing.TB) *rpc.Server {
	t.Helper()
	db := chain.NewMemoryDatabase()
	t.Cleanup(func() { db.Close() })
	c := chaintest.Open(t, db)
	reg := rpc.NewRegistry()
	if err := Register(reg, Groups(&backend.Backend{Chain: c.Chain, Config: backend.Config{NetworkID: 1337, SimulateMaxBlocks: 16, SimulateGasCap: 10_000_000}})...); err != nil {
		t.Fatal(err)
	}
	srv, err := rpc.NewServer(reg, rpc.Config{APIs: []string{rpctypes.GroupEth}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestSimulateV1Shape checks the members of a simulated block and call
// against the spec's EthSimulateBlockResultSingleSuccess and
// CallResultSuccess on a pre-Shanghai chain (no withdrawals, blob or
// requests fields).
func TestSimulateV1Shape(t *testing.T) {
	srv := newSimServer(t)
	res, err := callPeer(t, srv, "eth_simulateV1", json.RawMessage(`{"blockStateCalls":[{"stateOverrides":{"0xc000000000000000000000000000000000000000":{"balance":"0x3e8"}},
		"calls":[{"from":"0xc000000000000000000000000000000000000000","to":"0xc100000000000000000000000000000000000000","value":"0x1"}]}],"traceTransfers":true}`))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []map[string]json.RawMessage
	if err := json.Unmarshal(res, &blocks); err != nil || len(blocks) != 1 {
		t.Fatalf("%s", res)
	}
	keys := func(m map[string]json.RawMessage) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		slices.Sort(k)
		return k
	}
	want := []string{"baseFeePerGas", "calls", "difficulty", "extraData", "gasLimit", "gasUsed", "hash", "logsBloom", "miner", "mixHash",
		"nonce", "number", "parentHash", "receiptsRoot", "sha3Uncles", "size", "stateRoot", "timestamp", "transactions", "transactionsRoot", "uncles"}
	if got := keys(blocks[0]); !slices.Equal(got, want) {
		t.Errorf("block members %v, want %v", got, want)
	}
	var calls []map[string]json.RawMessage
	json.Unmarshal(blocks[0]["calls"], &calls)
	if got := keys(calls[0]); !slices.Equal(got, []string{"gasUsed", "logs", "maxUsedGas", "returnData", "status"}) {
		t.Errorf("call members %v", got)
	}
	var logs []map[string]json.RawMessage
	json.Unmarshal(calls[0]["logs"], &logs)
	if len(logs) != 1 || string(logs[0]["address"]) != `"0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"` {
		t.Errorf("logs %s", calls[0]["logs"])
	}
}

// FuzzSimulateV1Params sends arbitrary params to eth_simulateV1: every
// answer is a result or an error the spec names, never an internal error
// from a panic.
func FuzzSimulateV1Params(f *testing.F) {
	for _, s := range []string{
		`[{"blockStateCalls":[{}]}]`,
		`[{"blockStateCalls":[{"blockOverrides":{"number":"0x5","time":"0x100","gasLimit":"0x1","baseFeePerGas":"0x1","prevRandao":"0x2","feeRecipient":"0x00000000000000000000000000000000000000aa"}}]},"latest"]`,
		`[{"blockStateCalls":[{"stateOverrides":{"0x01":{"movePrecompileToAddress":"0x02"}},"calls":[{"to":"0x02","input":"0x00"}]}],"validation":true}]`,
		`[{"blockStateCalls":[{"stateOverrides":{"0xaa":{"balance":"0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff","nonce":"0xffffffffffffffff","code":"0x5b600056"}},"calls":[{"from":"0xaa","to":"0xaa"},{"from":"0xaa","gas":"0xffffffffffffffff"}]}],"traceTransfers":true,"returnFullTransactions":true}]`,
		`[{"blockStateCalls":[{"calls":[{"from":"0xaa","value":"0x1","maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x2","blobVersionedHashes":["0x01` + strings.Repeat("00", 31) + `"]}]}]},"0x0"]`,
		`[{"blockStateCalls":[{"blockOverrides":{"number":"0xffffffffffffffff"}}]}]`,
		`[{"blockStateCalls":null}]`, `[{}]`, `[]`, `[null]`, `[{"blockStateCalls":[{"calls":[null]}]}]`,
		`[{"blockStateCalls":[{"blockOverrides":{"withdrawals":[{"index":"0x0","validatorIndex":"0x1","address":"0x00000000000000000000000000000000000000aa","amount":"0x10"}]}}]}]`,
	} {
		f.Add(s)
	}
	srv := newSimServer(f)
	f.Fuzz(func(t *testing.T, params string) {
		resp, _ := srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":`+params+`}`))
		// -32603 is also the spec's answer for a sender at the maximum
		// nonce; a panic answers "Internal error".
		if strings.Contains(string(resp), `"code":-32603`) && !strings.Contains(string(resp), "nonce has max value") {
			t.Fatalf("%s: %s", params, resp)
		}
	})
}
