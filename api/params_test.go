package api

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/rpctypes"
)

func TestBlockParam(t *testing.T) {
	hash := common.HexToHash("0xb73cee02246c6f32ac0f459934e89102c2ce904d966a4fc2ab6309c3e104b9cb")
	cases := []struct {
		in   string
		want BlockParam
	}{
		{`"latest"`, BlockParam{Tag: rpctypes.TagLatest}},
		{`"PENDING"`, BlockParam{Tag: rpctypes.TagPending}},
		{`"earliest"`, BlockParam{Tag: rpctypes.TagEarliest}},
		{`"safe"`, BlockParam{Tag: rpctypes.TagSafe}},
		{`"finalized"`, BlockParam{Tag: rpctypes.TagFinalized}},
		{`"0x19"`, BlockParam{Number: 25}},
		{`"25"`, BlockParam{Number: 25}},
		{`"-0x10"`, BlockParam{Number: -16}},
		{`"` + hash.Hex() + `"`, BlockParam{Hash: &hash}},
		{`{"blockHash":"` + hash.Hex() + `"}`, BlockParam{Hash: &hash}},
		{`{"blockHash":"` + hash.Hex() + `","requireCanonical":true}`, BlockParam{Hash: &hash, RequireCanonical: true}},
		{`{"blockNumber":"0x19"}`, BlockParam{Number: 25}},
		{`{"blockNumber":25}`, BlockParam{Number: 25}},
	}
	for _, c := range cases {
		var got BlockParam
		if err := json.Unmarshal([]byte(c.in), &got); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got.String() != c.want.String() || got.RequireCanonical != c.want.RequireCanonical {
			t.Errorf("%s: got %+v, want %+v", c.in, got, c.want)
		}
	}
	bad := []string{
		`"0xb73cee02246c6f32ac0f459934e89102c2ce904d966a4fc2ab6309c3e104b9cb1234"`, // 34 bytes
		`"0xD5C9556Ec8Fef8A240EDdFdd01433Dc6EC08CBCa"`,                             // an address
		`"0x02020202020202020202020202"`, `"invalidtag"`, `25`, `true`, `null`, `{}`,
		`{"blockNumber":"x"}`, `[]`, `"0x"`, `""`,
		`"` + hash.Hex()[2:] + `"`, // 64 characters: Besu reads a number, too long
	}
	for _, in := range bad {
		var got BlockParam
		err := got.UnmarshalJSON([]byte(in))
		if !errors.Is(err, rpctypes.ErrInvalidBlockParams) {
			t.Errorf("%s: got %+v, %v; want Invalid block param", in, got, err)
		}
	}
}

func TestLenientParams(t *testing.T) {
	var a rpctypes.Address
	for in, want := range map[string]common.Address{
		`"a94f5374fce5edbc8e2a8697c15331677e6ebf0b"`:   common.HexToAddress("0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b"),
		`"0xA94F5374fce5edbc8e2a8697c15331677e6ebf0b"`: common.HexToAddress("0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b"),
		`"0x12"`: common.HexToAddress("0x12"),
		`"0x1"`:  common.HexToAddress("0x1"),
	} {
		if err := json.Unmarshal([]byte(in), &a); err != nil || common.Address(a) != want {
			t.Errorf("address %s: %x, %v", in, a, err)
		}
	}
	for _, in := range []string{`"0xzz"`, `"0x` + "00112233445566778899aabbccddeeff0011223344" + `"`, `12`, `null`} {
		if err := a.UnmarshalJSON([]byte(in)); err == nil {
			t.Errorf("address %s accepted", in)
		}
	}
	var h rpctypes.Hash
	for _, in := range []string{`"0x0"`, `"0x10aaf14a53caf27552325374429d3558398a36d3682ede6603c2c6511896e9"`, `5`} {
		if err := h.UnmarshalJSON([]byte(in)); err == nil {
			t.Errorf("hash %s accepted", in)
		}
	}
	var ix UintIndex
	for in, want := range map[string]UintIndex{`"0x0"`: 0, `"0xb"`: 11, `"11"`: 11, `3`: 3} {
		if err := json.Unmarshal([]byte(in), &ix); err != nil || ix != want {
			t.Errorf("index %s: %d, %v", in, ix, err)
		}
	}
	for _, in := range []string{`"0x0L"`, `"0x9999999999999999999999999999999999999999999999999999999999999999"`, `"-1"`, `"0x80000000"`} {
		if err := ix.UnmarshalJSON([]byte(in)); err == nil {
			t.Errorf("index %s accepted", in)
		}
	}
	var q Quantity
	for in, want := range map[string]int64{`"0x10"`: 16, `"10"`: 16, `"0x000002"`: 2, `16`: 16} {
		if err := json.Unmarshal([]byte(in), &q); err != nil || q.Big().Int64() != want {
			t.Errorf("quantity %s: %v, %v", in, q.Big(), err)
		}
	}
	var g Uint64Param
	if err := json.Unmarshal([]byte(`21000`), &g); err != nil || g != 0x21000 {
		t.Errorf("gas as a number is read as hex text, as Besu does: %x %v", g, err)
	}
}

func TestCallArgs(t *testing.T) {
	var a CallArgs
	in := `{"to":"0x6295ee1b4f6dd65047762f924ecd367c17eabf8f","from":"a94f5374fce5edbc8e2a8697c15331677e6ebf0b",
		"input":"0x12a7b914","data":"0x12a7b914","strict":false,"comment":"ignored","gas":"0x1"}`
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		t.Fatal(err)
	}
	if a.sender() != common.HexToAddress("0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b") || string(a.data()) != "\x12\xa7\xb9\x14" || *a.Strict || uint64(*a.Gas) != 1 {
		t.Fatalf("decoded %+v", a)
	}
	for _, bad := range []string{
		`{"input":"0x12a7b914","data":"0x12a7b915"}`,
		`{"blobVersionedHashes":["0x0"]}`,
		`{"blobVersionedHashes":["0x0200000051c8833cfbaf272e62da1285b183b0405357f62b052a4894ffcdaa2d"]}`,
		`{"to":"0xzz"}`, `"0x8"`, `[]`,
	} {
		var a CallArgs
		if err := json.Unmarshal([]byte(bad), &a); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestStateOverrides(t *testing.T) {
	var o StateOverrides
	in := `{"a94f5374fce5edbc8e2a8697c15331677e6ebf0b":{"balance":"0xde0b6b3a7640000","nonce":88},
		"0x0000000000000000000000000000000000000001":{"comment":"x","code":"0x6000","movePrecompileToAddress":"0x0000000000000000000000000000000000123456"},
		"0xb9741079a300Cb3B8f324CdDB847c0d1d273a05E":{"stateDiff":{"0x01":"0x02"},"movePrecompileToAddress":null}}`
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	if len(o) != 3 {
		t.Fatalf("%d overrides", len(o))
	}
	precompiles := vm.ActivePrecompiledContracts(params.Rules{IsCancun: true, IsBerlin: true, IsIstanbul: true, IsByzantium: true})
	byAddr := map[common.Address]backend.AccountOverride{}
	for _, ao := range o {
		byAddr[ao.Address] = ao
	}
	if n := byAddr[common.HexToAddress("0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b")].Nonce; n == nil || *n != 88 {
		t.Fatalf("nonce %v", n)
	}
	moved := backend.StateOverrides{byAddr[common.HexToAddress("0x1")]}
	if err := moved.Apply(emptyState(t), precompiles); err != nil {
		t.Fatal(err)
	}
	if _, ok := precompiles[common.HexToAddress("0x123456")]; !ok {
		t.Fatal("ecrecover not moved")
	}
	if _, ok := precompiles[common.HexToAddress("0x1")]; ok {
		t.Fatal("ecrecover still at 0x1")
	}
	for _, bad := range []string{`{"0xzz":{}}`, `{"0x01":{"state":{},"stateDiff":{}}}`, `{"0x01":{"nonce":"-1"}}`, `[]`} {
		if err := json.Unmarshal([]byte(bad), &o); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestBesuRenderings(t *testing.T) {
	for k, want := range map[string]string{"0x347": "0x0347", "0x0": "0x0", "0x1": "0x01", "0xff00": "0xff00"} {
		if got := proofKey(common.HexToHash(k)); got != want {
			t.Errorf("proofKey(%s) = %s, want %s", k, got, want)
		}
	}
	for op, want := range map[byte]string{0xfe: "Invalid opcode: 0xfe", 0xef: "Invalid opcode: 0xef", 0x0c: "Invalid opcode: 0x0c"} {
		err := runCode(t, []byte{op})
		if got := chain.HaltReason(err); got != want {
			t.Errorf("chain.HaltReason(%v) = %q, want %q", err, got, want)
		}
	}
	if got := chain.HaltReason(runCode(t, []byte{0x01})); got != "Stack underflow" {
		t.Errorf("stack underflow: %q", got)
	}
	if got := chain.HaltReason(runCode(t, []byte{0x60, 0x05, 0x56})); got != "Bad jump destination" {
		t.Errorf("bad jump: %q", got)
	}
	if got := chain.HaltReason(vm.ErrOutOfGas); got != "Out of gas" {
		t.Errorf("out of gas: %q", got)
	}
}

// EIP-2124 vectors for mainnet (from the EIP and go-ethereum's tests).
func TestForkID(t *testing.T) {
	cfg := params.MainnetChainConfig
	genesis := params.MainnetGenesisHash
	const genesisTime = 0
	for _, c := range []struct {
		time uint64
		want string
	}{
		{0, "f0afd0e3"},          // every block fork passed (Gray Glacier)
		{1681338455, "dce96c2d"}, // Shanghai
		{1710338135, "9f3d2254"}, // Cancun
	} {
		id := forkID(cfg, genesis, genesisTime, c.time)
		if got := common.Bytes2Hex(id[:]); got != c.want {
			t.Errorf("fork id at %d = %s, want %s", c.time, got, c.want)
		}
	}
	// Besu's conformance chain: London at 33, Shanghai and Cancun by time.
	conf := &params.ChainConfig{ChainID: big.NewInt(1), LondonBlock: big.NewInt(33), ShanghaiTime: ptr(1444660030), CancunTime: ptr(1444660040)}
	id := forkID(conf, common.HexToHash("0xf8f01382f5636d02edac7fff679a6feb7a572d37a395daaab77938feb6fe217f"), 0x54c98c81, 1444660040)
	if got := common.Bytes2Hex(id[:]); got != "f3cf4bb5" {
		t.Errorf("conformance chain fork id %s, want f3cf4bb5", got)
	}
}

func ptr(v uint64) *uint64 { return &v }

func emptyState(t *testing.T) *state.StateDB {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// runCode executes code in a fresh EVM and returns its error.
func runCode(t *testing.T, code []byte) error {
	t.Helper()
	st := emptyState(t)
	contract := common.HexToAddress("0xc0de")
	st.SetCode(contract, code, tracing.CodeChangeUnspecified)
	ctx := vm.BlockContext{
		CanTransfer: core.CanTransfer, Transfer: core.Transfer, GetHash: func(uint64) common.Hash { return common.Hash{} },
		BlockNumber: big.NewInt(1), Difficulty: new(big.Int), BaseFee: new(big.Int), GasLimit: 1e7,
	}
	evm := vm.NewEVM(ctx, st, params.MergedTestChainConfig, vm.Config{})
	_, _, err := evm.Call(common.Address{1}, contract, nil, vm.NewGasBudget(100000, 0), new(uint256.Int))
	return err
}

// TestRawTransaction: a raw (private) transaction's hex reads as Besu's
// Bytes.fromHexString reads it — 0x optional (web3js-quorum sends none), an
// odd digit count as if a 0 led — and anything else is refused, so the
// method answers its parameter's error.
func TestRawTransaction(t *testing.T) {
	for in, want := range map[string]string{`"0xf86b01"`: "f86b01", `"f86b01"`: "f86b01", `"0XF86B"`: "f86b", `"c0c"`: "0c0c", `"0x"`: "", `""`: ""} {
		var r RawTransaction
		if err := json.Unmarshal([]byte(in), &r); err != nil || hex.EncodeToString(r.Data) != want {
			t.Errorf("%s: %x %v, want %s", in, r.Data, err, want)
		}
	}
	for _, in := range []string{`"0xzz"`, `"f8 6b"`, `"0x0x01"`, `null`, `12`, `{}`, `["0x01"]`} {
		var r RawTransaction
		if err := json.Unmarshal([]byte(in), &r); err == nil {
			t.Errorf("%s accepted as %x", in, r.Data)
		}
	}
}
