package api

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

var (
	specStore = common.HexToAddress("0x7dcd17433742f4c0ca53122ab541d0ba67fc27df")
	specRich  = common.HexToAddress("0x00000000000000000000000000000000000000a1")
)

// newSpecServer is an ETH server on a chain whose genesis (base fee 1
// gwei) holds a contract with two storage slots and a funded account.
func newSpecServer(t testing.TB) (*rpc.Server, *chain.Chain) {
	t.Helper()
	db := chain.NewMemoryDatabase()
	t.Cleanup(func() { db.Close() })
	g := chaintest.Genesis()
	g.BaseFee = big.NewInt(1_000_000_000)
	g.Alloc = types.GenesisAlloc{
		specStore: {Code: []byte{0x00}, Storage: map[common.Hash]common.Hash{{}: common.BigToHash(big.NewInt(0x38)), common.BigToHash(big.NewInt(1)): common.BigToHash(big.NewInt(7))}},
		specRich:  {Balance: new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil)},
	}
	c, err := chain.Open(db, g, chaintest.NewEngine())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	reg := rpc.NewRegistry()
	if err := Register(reg, Groups(&backend.Backend{Chain: c, Config: backend.Config{NetworkID: 1337}})...); err != nil {
		t.Fatal(err)
	}
	srv, err := rpc.NewServer(reg, rpc.Config{APIs: []string{rpctypes.GroupEth, rpctypes.GroupDebug}})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func TestGetStorageValues(t *testing.T) {
	srv, c := newSpecServer(t)
	slot := func(n int64) string { return common.BigToHash(big.NewInt(n)).Hex() }
	other := "0xc1cadaffffffffffffffffffffffffffffffffff"
	res, err := callPeer(t, srv, "eth_getStorageValues", map[string][]string{specStore.Hex(): {slot(1), slot(0), slot(5)}, other: {slot(0)}})
	if err != nil {
		t.Fatal(err)
	}
	var got map[common.Address][]common.Hash
	json.Unmarshal(res, &got)
	want := []common.Hash{common.BigToHash(big.NewInt(7)), common.BigToHash(big.NewInt(0x38)), {}}
	if len(got) != 2 || len(got[specStore]) != 3 || got[specStore][0] != want[0] || got[specStore][1] != want[1] || got[specStore][2] != want[2] ||
		len(got[common.HexToAddress(other)]) != 1 || got[common.HexToAddress(other)][0] != (common.Hash{}) {
		t.Errorf("values %s", res)
	}
	// By block hash, the spec's lower-case address keys.
	res, err = callPeer(t, srv, "eth_getStorageValues", map[string][]string{specStore.Hex(): {"0x0"}}, map[string]string{"blockHash": c.CurrentHash().Hex()})
	if err != nil || !strings.Contains(string(res), `"`+strings.ToLower(specStore.Hex())+`":["0x`+strings.Repeat("0", 62)+`38"]`) {
		t.Errorf("by hash: %s %v", res, err)
	}
	many := make([]string, MaxStorageValues+1)
	for i := range many {
		many[i] = slot(int64(i))
	}
	for _, tc := range []struct {
		params []any
		code   int
		msg    string
	}{
		{[]any{map[string][]string{}}, -32602, "empty request"},
		{[]any{map[string][]string{specStore.Hex(): {}}}, -32602, "empty request"},
		{[]any{map[string][]string{specStore.Hex(): many}}, -38026, "too many slots (max 1024)"},
		{[]any{map[string][]string{"0x12": {slot(0)}}}, -32602, "Invalid params"},
		{[]any{map[string][]string{specStore.Hex(): {"0xzz"}}}, -32602, "Invalid params"},
		{[]any{[]string{}}, -32602, "Invalid params"},
	} {
		_, err := callPeer(t, srv, "eth_getStorageValues", tc.params...)
		if e, ok := err.(*rpctypes.Error); !ok || e.Code != tc.code || e.Message != tc.msg {
			t.Errorf("%v: %v", tc.params, err)
		}
	}
}

func TestCapabilitiesBaseFeeFillTransaction(t *testing.T) {
	srv, c := newSpecServer(t)
	res, err := callPeer(t, srv, "eth_capabilities")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"head":{"number":"0x0","hash":"` + c.CurrentHash().Hex() + `"},"state":{"disabled":false,"oldestBlock":"0x0"},"tx":{"disabled":false,"oldestBlock":"0x0"},` +
		`"logs":{"disabled":false,"oldestBlock":"0x0"},"receipts":{"disabled":false,"oldestBlock":"0x0"},"blocks":{"disabled":false,"oldestBlock":"0x0"},"stateproofs":{"disabled":false,"oldestBlock":"0x0"}}`
	if string(res) != want {
		t.Errorf("eth_capabilities %s", res)
	}
	// An empty genesis block at 1 gwei: the next base fee is 7/8 of it.
	if res, err := callPeer(t, srv, "eth_baseFee"); err != nil || string(res) != `"0x342770c0"` {
		t.Errorf("eth_baseFee %s %v", res, err)
	}

	var tip hexutil.Big
	res, _ = callPeer(t, srv, "eth_maxPriorityFeePerGas")
	json.Unmarshal(res, &tip)
	res, err = callPeer(t, srv, "eth_fillTransaction", map[string]any{"from": specRich, "to": specStore, "value": "0x1"})
	if err != nil {
		t.Fatal(err)
	}
	var filled struct {
		Raw hexutil.Bytes
		Tx  *types.Transaction
	}
	if err := json.Unmarshal(res, &filled); err != nil {
		t.Fatalf("%v: %s", err, res)
	}
	tx := filled.Tx
	wantFee := new(big.Int).Add(big.NewInt(2*875_000_000), tip.ToInt())
	if tx.Type() != types.DynamicFeeTxType || tx.Nonce() != 0 || tx.Gas() != 21000 || tx.ChainId().Int64() != 1337 || *tx.To() != specStore ||
		tx.Value().Int64() != 1 || tx.GasTipCap().Cmp(tip.ToInt()) != 0 || tx.GasFeeCap().Cmp(wantFee) != 0 {
		t.Errorf("filled %s", res)
	}
	var decoded types.Transaction
	if err := decoded.UnmarshalBinary(filled.Raw); err != nil || decoded.Hash() != tx.Hash() {
		t.Errorf("raw %x: %v", filled.Raw, err)
	}
	// A gasPrice makes a legacy transaction; given fields are kept.
	res, err = callPeer(t, srv, "eth_fillTransaction", map[string]any{"from": specRich, "to": specStore, "gasPrice": "0x3b9aca00", "nonce": "0x7", "gas": "0x5208"})
	if err != nil || json.Unmarshal(res, &filled) != nil || filled.Tx.Type() != types.LegacyTxType || filled.Tx.Nonce() != 7 || filled.Tx.GasPrice().Int64() != 1e9 {
		t.Errorf("legacy fill %s %v", res, err)
	}
	for _, bad := range []map[string]any{
		{"from": specRich, "gasPrice": "0x1", "maxFeePerGas": "0x1"},
		{"from": specRich, "chainId": "0x1"},
		{"from": specRich, "maxFeePerGas": "0x1", "maxPriorityFeePerGas": "0x2"},
	} {
		if _, err := callPeer(t, srv, "eth_fillTransaction", bad); err == nil || err.(*rpctypes.Error).Code != -32602 {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// FuzzSpecMethodParams sends arbitrary params to eth_getStorageValues,
// eth_fillTransaction, eth_baseFee, eth_capabilities and
// debug_getBadBlocks: never an internal error from a panic.
func FuzzSpecMethodParams(f *testing.F) {
	for _, s := range []string{`[]`, `[{}]`, `[{"0x7dcd17433742f4c0ca53122ab541d0ba67fc27df":["0x0","0x1"]},"latest"]`,
		`[{"0x7dcd17433742f4c0ca53122ab541d0ba67fc27df":["0x0"]},{"blockHash":"0x00"}]`, `[{"from":"0x00000000000000000000000000000000000000a1","data":"0x6000"}]`,
		`[{"from":"0x00000000000000000000000000000000000000a1","value":"0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"}]`,
		`[{"authorizationList":[{"chainId":"0x1","address":"0x00000000000000000000000000000000000000a1","nonce":"0x0","yParity":"0x0","r":"0x1","s":"0x1"}],"to":"0x00000000000000000000000000000000000000a1","gas":"0x10000"}]`,
		`[null]`, `[1,2,3]`} {
		f.Add(s)
	}
	srv, _ := newSpecServer(f)
	f.Fuzz(func(t *testing.T, params string) {
		for _, m := range []string{"eth_getStorageValues", "eth_fillTransaction", "eth_baseFee", "eth_capabilities", "debug_getBadBlocks"} {
			resp, _ := srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":`+params+`}`))
			if strings.Contains(string(resp), `"code":-32603`) {
				t.Fatalf("%s %s: %s", m, params, resp)
			}
		}
	})
}
