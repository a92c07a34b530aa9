package rpc

import (
	"encoding/binary"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/testnode"
)

// Results of eth_simulateV1 as the test reads them.
type simLog struct {
	Address          common.Address
	Topics           []common.Hash
	Data             hexutil.Bytes
	BlockHash        common.Hash
	BlockNumber      hexutil.Uint64
	BlockTimestamp   hexutil.Uint64
	TransactionHash  common.Hash
	TransactionIndex hexutil.Uint64
	LogIndex         hexutil.Uint64
}

type simCall struct {
	ReturnData hexutil.Bytes
	Logs       []simLog
	GasUsed    hexutil.Uint64
	MaxUsedGas hexutil.Uint64
	Status     hexutil.Uint64
	Error      *struct {
		Code    int
		Message string
		Data    string
	}
}

type simBlock struct {
	Number        hexutil.Uint64
	Hash          common.Hash
	ParentHash    common.Hash
	Timestamp     hexutil.Uint64
	GasLimit      hexutil.Uint64
	GasUsed       hexutil.Uint64
	Miner         common.Address
	BaseFeePerGas *hexutil.Big
	Transactions  []json.RawMessage
	Calls         []simCall
}

// Contract code for the test, assembled here.
func asm(parts ...any) hexutil.Bytes {
	var out []byte
	for _, p := range parts {
		switch v := p.(type) {
		case vm.OpCode:
			out = append(out, byte(v))
		case []byte:
			out = append(out, v...)
		case int:
			out = append(out, byte(v))
		}
	}
	return out
}

// returnWords returns the values the opcode groups leave on the stack, one
// 32-byte word each.
func returnWords(groups ...[]any) hexutil.Bytes {
	var parts []any
	for i, g := range groups {
		parts = append(parts, g...)
		parts = append(parts, vm.PUSH1, i*32, vm.MSTORE)
	}
	parts = append(parts, vm.PUSH1, len(groups)*32, vm.PUSH1, 0, vm.RETURN)
	return asm(parts...)
}

func push8(n uint64) []any {
	b := binary.BigEndian.AppendUint64(nil, n)
	return []any{vm.PUSH8, b}
}

func balanceOf(a common.Address) []any { return []any{vm.PUSH20, a.Bytes(), vm.BALANCE} }

func word(n uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(n)) }

func words(b []byte) []common.Hash {
	var out []common.Hash
	for i := 0; i+32 <= len(b); i += 32 {
		out = append(out, common.BytesToHash(b[i:i+32]))
	}
	return out
}

// TestSimulateV1 drives eth_simulateV1 over HTTP on a dev node, with
// expected values worked out here: multi-block transfers with transfer
// logs, block and state overrides (precompile moves included), BLOCKHASH
// across simulated blocks, reverts and halts, the request gas budget, the
// spec's error codes, and the intent of the execution-apis
// tests/eth_simulateV1 examples.
func TestSimulateV1(t *testing.T) {
	n := testnode.Start(t, t.TempDir(), "--network=dev", "--rpc-simulate-max-blocks=8", "--rpc-simulate-gas-cap=20000000")
	var head struct {
		Number    hexutil.Uint64
		Hash      common.Hash
		Timestamp hexutil.Uint64
		GasLimit  hexutil.Uint64
		Miner     common.Address
	}
	n.MustCall(&head, "eth_getBlockByNumber", "latest", false)
	simulate := func(t *testing.T, payload any) []simBlock {
		t.Helper()
		var out []simBlock
		raw, err := n.Call("eth_simulateV1", payload, "latest")
		if err != nil {
			t.Fatalf("eth_simulateV1: %v", err)
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		return out
	}
	failure := func(t *testing.T, payload any) *testnode.RPCError {
		t.Helper()
		raw, err := n.Call("eth_simulateV1", payload, "latest")
		e, ok := err.(*testnode.RPCError)
		if !ok {
			t.Fatalf("want an error, got %s, %v", raw, err)
		}
		return e
	}
	type obj = map[string]any
	var (
		a = common.HexToAddress("0xc000000000000000000000000000000000000000")
		b = common.HexToAddress("0xc100000000000000000000000000000000000000")
		c = common.HexToAddress("0xc200000000000000000000000000000000000000")
		r = common.HexToAddress("0xc300000000000000000000000000000000000000")
		s = common.HexToAddress("0xc400000000000000000000000000000000000000")
		f = common.HexToAddress("0xfee0000000000000000000000000000000000001")
		// forwarder sends its value on to the address in its calldata.
		forwarder = asm(vm.PUSH1, 0, vm.PUSH1, 0, vm.PUSH1, 0, vm.PUSH1, 0, vm.CALLVALUE, vm.PUSH1, 4, vm.CALLDATALOAD, vm.GAS, vm.CALL, vm.POP, vm.STOP)
		burner    = asm(vm.JUMPDEST, vm.PUSH1, 0, vm.JUMP)
		transfer  = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
		eeee      = common.HexToAddress("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE")
	)
	// reverter reverts with Error("nope").
	reason := append(append(hexutil.MustDecode("0x08c379a0"), word(32).Bytes()...), word(4).Bytes()...)
	reason = append(reason, common.RightPadBytes([]byte("nope"), 32)...)
	reverter := append(asm(vm.PUSH1, len(reason), vm.PUSH1, 12, vm.PUSH1, 0, vm.CODECOPY, vm.PUSH1, len(reason), vm.PUSH1, 0, vm.REVERT), reason...)

	t.Run("multi-block transfers with transfer logs", func(t *testing.T) {
		blocks := simulate(t, obj{"traceTransfers": true, "blockStateCalls": []obj{
			{"stateOverrides": obj{a.Hex(): obj{"balance": "0x3e8"}}, "calls": []obj{{"from": a, "to": b, "value": "0x258"}}},
			{"calls": []obj{{"from": b, "to": c, "value": "0xfa"}, {"from": a, "to": c, "value": "0x190"}}},
			{"stateOverrides": obj{r.Hex(): obj{"code": returnWords(balanceOf(a), balanceOf(b), balanceOf(c))}}, "calls": []obj{{"from": a, "to": r}}},
		}})
		if len(blocks) != 3 {
			t.Fatalf("%d blocks", len(blocks))
		}
		parent := head.Hash
		for i, blk := range blocks {
			if blk.Number != head.Number+hexutil.Uint64(i+1) || blk.Timestamp != head.Timestamp+hexutil.Uint64(12*(i+1)) || blk.ParentHash != parent {
				t.Errorf("block %d: number %d time %d parent %s", i, blk.Number, blk.Timestamp, blk.ParentHash)
			}
			if blk.BaseFeePerGas == nil || blk.BaseFeePerGas.ToInt().Sign() != 0 {
				t.Errorf("block %d base fee %v, want 0 without validation", i, blk.BaseFeePerGas)
			}
			if len(blk.Transactions) != len(blk.Calls) {
				t.Errorf("block %d: %d transactions for %d calls", i, len(blk.Transactions), len(blk.Calls))
			}
			parent = blk.Hash
		}
		if blocks[0].GasUsed != 21000 || blocks[1].GasUsed != 42000 {
			t.Errorf("gas used %d, %d", blocks[0].GasUsed, blocks[1].GasUsed)
		}
		// 1000 - 600 - 400, 600 - 250, 250 + 400.
		if got := words(blocks[2].Calls[0].ReturnData); len(got) != 3 || got[0] != word(0) || got[1] != word(350) || got[2] != word(650) {
			t.Errorf("balances %v", got)
		}
		want := []struct {
			from, to common.Address
			value    uint64
		}{{b, c, 250}, {a, c, 400}}
		for i, w := range want {
			call := blocks[1].Calls[i]
			var txHash common.Hash
			json.Unmarshal(blocks[1].Transactions[i], &txHash)
			if call.Status != 1 || len(call.Logs) != 1 {
				t.Fatalf("call %d: %+v", i, call)
			}
			l := call.Logs[0]
			if l.Address != eeee || len(l.Topics) != 3 || l.Topics[0] != transfer || l.Topics[1] != common.BytesToHash(w.from.Bytes()) ||
				l.Topics[2] != common.BytesToHash(w.to.Bytes()) || common.BytesToHash(l.Data) != word(w.value) {
				t.Errorf("call %d transfer log %+v", i, l)
			}
			if l.BlockHash != blocks[1].Hash || l.BlockNumber != blocks[1].Number || l.LogIndex != hexutil.Uint64(i) ||
				l.TransactionIndex != hexutil.Uint64(i) || l.TransactionHash != txHash || l.BlockTimestamp != blocks[1].Timestamp {
				t.Errorf("call %d log location %+v", i, l)
			}
		}
		if len(blocks[2].Calls[0].Logs) != 0 {
			t.Errorf("a call without value logged %+v", blocks[2].Calls[0].Logs)
		}
	})

	t.Run("block overrides, gaps and BLOCKHASH", func(t *testing.T) {
		env := returnWords([]any{vm.NUMBER}, []any{vm.TIMESTAMP}, []any{vm.COINBASE}, []any{vm.BASEFEE}, []any{vm.PREVRANDAO}, []any{vm.GASLIMIT})
		hashes := returnWords(append(push8(uint64(head.Number)+1), vm.BLOCKHASH), append(push8(uint64(head.Number)+3), vm.BLOCKHASH))
		n3, t3 := uint64(head.Number)+3, uint64(head.Timestamp)+100
		blocks := simulate(t, obj{"blockStateCalls": []obj{
			{"blockOverrides": obj{"number": hexutil.Uint64(n3), "time": hexutil.Uint64(t3), "feeRecipient": f, "baseFeePerGas": "0x7",
				"prevRandao": "0x1234", "gasLimit": hexutil.Uint64(5_000_000)},
				"stateOverrides": obj{r.Hex(): obj{"code": env}, s.Hex(): obj{"code": hashes}},
				"calls":          []obj{{"from": a, "to": r}}},
			{"calls": []obj{{"from": a, "to": r}, {"from": a, "to": s}},
				"blockOverrides": obj{"withdrawals": []obj{{"index": "0x0", "validatorIndex": "0x1", "address": c, "amount": "0x10"}}}},
			{"stateOverrides": obj{r.Hex(): obj{"code": returnWords(balanceOf(c))}}, "calls": []obj{{"from": a, "to": r}}},
		}})
		if len(blocks) != 5 {
			t.Fatalf("%d blocks, want 2 asked for and 2 filling the gap", len(blocks))
		}
		for i, blk := range blocks[:2] {
			if blk.Number != head.Number+hexutil.Uint64(i+1) || blk.Timestamp != head.Timestamp+hexutil.Uint64(12*(i+1)) || len(blk.Calls) != 0 {
				t.Errorf("gap block %d: %+v", i, blk)
			}
		}
		got := words(blocks[2].Calls[0].ReturnData)
		want := []common.Hash{word(n3), word(t3), common.BytesToHash(f.Bytes()), word(7), word(0x1234), word(5_000_000)}
		for i := range want {
			if len(got) != len(want) || got[i] != want[i] {
				t.Fatalf("overridden block reads %v, want %v", got, want)
			}
		}
		if blocks[2].Miner != f || blocks[2].GasLimit != 5_000_000 || blocks[2].BaseFeePerGas.ToInt().Int64() != 7 {
			t.Errorf("overridden block %+v", blocks[2])
		}
		// The next block follows: number+1, time+12, the same fee recipient
		// and gas limit, a zero base fee again.
		got = words(blocks[3].Calls[0].ReturnData)
		if got[0] != word(n3+1) || got[1] != word(t3+12) || got[2] != common.BytesToHash(f.Bytes()) || got[3] != word(0) || got[5] != word(5_000_000) {
			t.Errorf("following block reads %v", got)
		}
		got = words(blocks[3].Calls[1].ReturnData)
		if got[0] != blocks[0].Hash || got[1] != blocks[2].Hash {
			t.Errorf("BLOCKHASH %v, want %s %s", got, blocks[0].Hash, blocks[2].Hash)
		}
		// The withdrawal of 16 gwei reached its address after that block.
		if got := words(blocks[4].Calls[0].ReturnData); got[0] != word(16_000_000_000) {
			t.Errorf("balance after the withdrawal %v", got)
		}
	})

	t.Run("state overrides and precompile moves", func(t *testing.T) {
		key, _ := crypto.GenerateKey()
		digest := crypto.Keccak256([]byte("basalt"))
		sig, _ := crypto.Sign(digest, key)
		input := append(append(append([]byte{}, digest...), word(uint64(sig[64])+27).Bytes()...), sig[:64]...)
		signer := common.BytesToHash(crypto.PubkeyToAddress(key.PublicKey).Bytes())
		moved := common.HexToAddress("0x0000000000000000000000000000000000123456")
		ecrecover := common.BytesToAddress([]byte{1})
		reader := returnWords([]any{vm.PUSH1, 0, vm.SLOAD}, []any{vm.PUSH1, 1, vm.SLOAD})
		blocks := simulate(t, obj{"blockStateCalls": []obj{
			{"stateOverrides": obj{s.Hex(): obj{"code": reader, "state": obj{word(0).Hex(): word(42).Hex()}}},
				"calls": []obj{{"from": a, "to": s}, {"from": a, "to": ecrecover, "input": hexutil.Bytes(input)}}},
			{"stateOverrides": obj{s.Hex(): obj{"stateDiff": obj{word(1).Hex(): word(7).Hex()}}, ecrecover.Hex(): obj{"movePrecompileToAddress": moved}},
				"calls": []obj{{"from": a, "to": s}, {"from": a, "to": moved, "input": hexutil.Bytes(input)}, {"from": a, "to": ecrecover, "input": hexutil.Bytes(input)}}},
			{"stateOverrides": obj{s.Hex(): obj{"state": obj{word(1).Hex(): word(9).Hex()}}},
				"calls": []obj{{"from": a, "to": s}, {"from": a, "to": ecrecover, "input": hexutil.Bytes(input)}}},
		}})
		check := func(what string, got hexutil.Bytes, want ...common.Hash) {
			t.Helper()
			w := words(got)
			if len(w) != len(want) || (len(want) > 0 && w[0] != want[0]) || (len(want) > 1 && w[1] != want[1]) {
				t.Errorf("%s: %x, want %v", what, got, want)
			}
		}
		check("state", blocks[0].Calls[0].ReturnData, word(42), word(0))
		check("ecrecover in place", blocks[0].Calls[1].ReturnData, signer)
		check("stateDiff keeps other slots", blocks[1].Calls[0].ReturnData, word(42), word(7))
		check("moved ecrecover", blocks[1].Calls[1].ReturnData, signer)
		check("ecrecover's old address", blocks[1].Calls[2].ReturnData)
		check("state replaces the storage", blocks[2].Calls[0].ReturnData, word(0), word(9))
		check("a move lasts one block", blocks[2].Calls[1].ReturnData, signer)
	})

	t.Run("reverts, halts and the gas budget", func(t *testing.T) {
		blocks := simulate(t, obj{"blockStateCalls": []obj{{
			"stateOverrides": obj{r.Hex(): obj{"code": hexutil.Bytes(reverter)}, s.Hex(): obj{"code": burner}},
			"calls":          []obj{{"from": a, "to": r}, {"from": a, "to": s, "gas": "0x186a0"}, {"from": a, "to": s}},
		}}})
		calls := blocks[0].Calls
		if e := calls[0].Error; calls[0].Status != 0 || e == nil || e.Code != 3 || e.Message != "execution reverted: nope" ||
			e.Data != hexutil.Encode(reason) || len(calls[0].ReturnData) != 0 {
			t.Errorf("revert %+v %+v", calls[0], calls[0].Error)
		}
		if e := calls[1].Error; calls[1].Status != 0 || e == nil || e.Code != -32015 || e.Message != "out of gas" || calls[1].GasUsed != 100000 {
			t.Errorf("halt %+v", calls[1])
		}
		// The third call gets what is left of the request's 20,000,000,
		// above Osaka's per-transaction cap, which a call without
		// validation is not held to.
		left := 20_000_000 - uint64(calls[0].GasUsed) - 100000
		if calls[2].GasUsed != hexutil.Uint64(left) {
			t.Errorf("budget: used %d, want %d", calls[2].GasUsed, left)
		}
		e := failure(t, obj{"blockStateCalls": []obj{{
			"stateOverrides": obj{s.Hex(): obj{"code": burner}},
			"calls":          []obj{{"from": a, "to": s}, {"from": a, "to": b}},
		}}})
		if e.Code != -38013 {
			t.Errorf("a call after the budget is spent: %v", e)
		}
	})

	t.Run("full transactions", func(t *testing.T) {
		blocks := simulate(t, obj{"returnFullTransactions": true, "blockStateCalls": []obj{{
			"stateOverrides": obj{a.Hex(): obj{"balance": "0x3e8"}},
			"calls":          []obj{{"from": a, "to": b, "value": "0x1"}},
		}}})
		var tx struct {
			From, To    common.Address
			Hash        common.Hash
			BlockHash   common.Hash
			BlockNumber hexutil.Uint64
			Value       hexutil.Big
			Type        hexutil.Uint64
		}
		if err := json.Unmarshal(blocks[0].Transactions[0], &tx); err != nil {
			t.Fatal(err)
		}
		if tx.From != a || tx.To != b || tx.BlockHash != blocks[0].Hash || tx.BlockNumber != blocks[0].Number || tx.Value.ToInt().Int64() != 1 || tx.Type != 2 {
			t.Errorf("transaction %s", blocks[0].Transactions[0])
		}
	})

	t.Run("validation", func(t *testing.T) {
		rich := obj{"balance": "0x56bc75e2d63100000"} // 100 ether
		fees := obj{"maxFeePerGas": "0xe8d4a51000"}   // 1000 gwei
		call := func(extra obj) obj {
			c := obj{"from": a, "to": b}
			for k, v := range extra {
				c[k] = v
			}
			for k, v := range fees {
				c[k] = v
			}
			return c
		}
		blocks := simulate(t, obj{"validation": true, "blockStateCalls": []obj{{
			"stateOverrides": obj{a.Hex(): rich},
			"calls":          []obj{call(obj{"value": "0x1"}), call(nil)},
		}}})
		if blocks[0].BaseFeePerGas == nil || blocks[0].BaseFeePerGas.ToInt().Sign() <= 0 || blocks[0].Calls[1].Status != 1 {
			t.Errorf("validated block %+v", blocks[0])
		}
		// A contract may send, validation or not.
		contract := obj{"balance": "0x56bc75e2d63100000", "code": "0x00"}
		simulate(t, obj{"validation": true, "blockStateCalls": []obj{{"stateOverrides": obj{a.Hex(): contract}, "calls": []obj{call(nil)}}}})
	})

	at := func(off uint64) hexutil.Uint64 { return head.Timestamp + hexutil.Uint64(off) }
	for _, tc := range []struct {
		name    string
		payload obj
		code    int
	}{
		{"validation without fees: base fee too low", obj{"validation": true, "blockStateCalls": []obj{{"stateOverrides": obj{a.Hex(): obj{"balance": "0xffffffffffff"}}, "calls": []obj{{"from": a, "to": b}}}}}, -38012},
		{"validation: nonce too low", obj{"validation": true, "blockStateCalls": []obj{{"stateOverrides": obj{a.Hex(): obj{"balance": "0x56bc75e2d63100000", "nonce": "0x5"}}, "calls": []obj{{"from": a, "to": b, "nonce": "0x0", "maxFeePerGas": "0xe8d4a51000"}}}}}, -38010},
		{"validation: nonce too high", obj{"validation": true, "blockStateCalls": []obj{{"stateOverrides": obj{a.Hex(): obj{"balance": "0x56bc75e2d63100000"}}, "calls": []obj{{"from": a, "to": b, "nonce": "0x9", "maxFeePerGas": "0xe8d4a51000"}}}}}, -38011},
		// ethSimulate-gas-fees-and-value-error-38014, ethSimulate-simple-no-funds
		{"insufficient funds for the value", obj{"blockStateCalls": []obj{{"calls": []obj{{"from": a, "to": b, "value": "0x3e8"}}}}}, -38014},
		// ethSimulate-instrict-gas-38013
		{"intrinsic gas", obj{"blockStateCalls": []obj{{"calls": []obj{{"from": b, "to": b, "gas": "0x0"}}}}}, -38013},
		{"call gas above the block's", obj{"blockStateCalls": []obj{{"blockOverrides": obj{"gasLimit": "0x7530"}, "calls": []obj{{"from": a, "to": b, "gas": "0xc350"}}}}}, -38015},
		// ethSimulate-block-num-order-38020
		{"block numbers out of order", obj{"blockStateCalls": []obj{{"blockOverrides": obj{"number": head.Number + 5}}, {"blockOverrides": obj{"number": head.Number + 3}}}}, -38020},
		{"block number not after the base", obj{"blockStateCalls": []obj{{"blockOverrides": obj{"number": head.Number}}}}, -38020},
		// ethSimulate-block-timestamp-non-increment, -order-38021, -auto-increment
		{"same timestamp", obj{"blockStateCalls": []obj{{"blockOverrides": obj{"time": at(20)}}, {"blockOverrides": obj{"time": at(20)}}}}, -38021},
		{"timestamp going back", obj{"blockStateCalls": []obj{{"blockOverrides": obj{"time": at(20)}}, {"blockOverrides": obj{"time": at(19)}}}}, -38021},
		{"timestamp below an automatic one", obj{"blockStateCalls": []obj{{"blockOverrides": obj{"time": at(11)}}, {}, {"blockOverrides": obj{"time": at(12)}}}}, -38021},
		// ethSimulate-move-to-address-itself-reference-38022
		{"precompile moved to itself", obj{"blockStateCalls": []obj{{"stateOverrides": obj{"0x0000000000000000000000000000000000000001": obj{"movePrecompileToAddress": "0x0000000000000000000000000000000000000001"}}}}}, -38022},
		// ethSimulate-try-to-move-non-precompile
		{"moving a non-precompile", obj{"blockStateCalls": []obj{{"stateOverrides": obj{a.Hex(): obj{"movePrecompileToAddress": b}}}}}, -32000},
		// ethSimulate-big-block-state-calls-array (the node's limit is 8)
		{"too many blocks", obj{"blockStateCalls": make([]obj, 9)}, -38026},
		{"a block number too far", obj{"blockStateCalls": []obj{{"blockOverrides": obj{"number": head.Number + 9}}}}, -38026},
		{"no blockStateCalls", obj{"validation": true}, -32602},
		{"unknown block override", obj{"blockStateCalls": []obj{{"blockOverrides": obj{"numbr": "0x1"}}}}, -32602},
		{"gasPrice and maxFeePerGas", obj{"blockStateCalls": []obj{{"calls": []obj{{"from": a, "to": b, "gasPrice": "0x1", "maxFeePerGas": "0x1"}}}}}, -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if e := failure(t, tc.payload); e.Code != tc.code {
				t.Errorf("error %v, want code %d", e, tc.code)
			}
		})
	}

	// The intent of execution-apis tests/eth_simulateV1 examples that
	// succeed, on this chain.
	t.Run("spec examples", func(t *testing.T) {
		// ethSimulate-move-two-accounts-to-same-38023: accepted, as the
		// reference does; in address order the later move (SHA-256) wins.
		moved := simulate(t, obj{"blockStateCalls": []obj{{"stateOverrides": obj{
			"0x0000000000000000000000000000000000000001": obj{"movePrecompileToAddress": c},
			"0x0000000000000000000000000000000000000002": obj{"movePrecompileToAddress": c}},
			"calls": []obj{{"from": a, "to": c}}}}})
		if got := moved[0].Calls[0].ReturnData.String(); got != "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
			t.Errorf("two precompiles moved onto one address: %s", got)
		}
		// ethSimulate-simple: a transfer passed on within the block.
		blocks := simulate(t, obj{"blockStateCalls": []obj{{"stateOverrides": obj{a.Hex(): obj{"balance": "0x3e8"}},
			"calls": []obj{{"from": a, "to": b, "value": "0x3e8"}, {"from": b, "to": c, "value": "0x3e8"}}}}})
		if bl := blocks[0]; bl.GasUsed != 0xa410 || bl.Calls[0].GasUsed != 0x5208 || bl.Calls[1].MaxUsedGas != 0x5208 || bl.Calls[1].Status != 1 {
			t.Errorf("ethSimulate-simple %+v", bl)
		}
		// ethSimulate-transaction-too-high-nonce and -too-low-nonce-38010
		// without validation: nonces are not checked.
		blocks = simulate(t, obj{"blockStateCalls": []obj{{"stateOverrides": obj{a.Hex(): obj{"nonce": "0xa"}},
			"calls": []obj{{"from": b, "to": b, "nonce": "0x64"}, {"from": a, "to": a, "nonce": "0x0"}}}}})
		if blocks[0].Calls[0].Status != 1 || blocks[0].Calls[1].Status != 1 {
			t.Errorf("nonces without validation %+v", blocks[0].Calls)
		}
		// ethSimulate-empty
		blocks = simulate(t, obj{"returnFullTransactions": true, "blockStateCalls": []obj{{}}})
		if len(blocks) != 1 || len(blocks[0].Transactions) != 0 || blocks[0].GasUsed != 0 || blocks[0].Calls == nil {
			t.Errorf("ethSimulate-empty %+v", blocks)
		}
		// ethSimulate-eth-send-should-produce-more-logs-on-forward, and
		// -should-not-produce-logs-by-default, -on-revert.
		fwd := func(trace bool, to common.Address) simCall {
			blocks := simulate(t, obj{"traceTransfers": trace, "blockStateCalls": []obj{{
				"stateOverrides": obj{a.Hex(): obj{"balance": "0x7d0"}, b.Hex(): obj{"code": forwarder}, r.Hex(): obj{"code": hexutil.Bytes(reverter)}},
				"calls":          []obj{{"from": a, "to": b, "value": "0x3e8", "input": hexutil.Bytes(append(hexutil.MustDecode("0x4b64e492"), common.BytesToHash(to.Bytes()).Bytes()...))}},
			}}})
			return blocks[0].Calls[0]
		}
		if call := fwd(true, c); len(call.Logs) != 2 || call.Logs[1].Topics[1] != common.BytesToHash(b.Bytes()) ||
			call.Logs[1].Topics[2] != common.BytesToHash(c.Bytes()) || call.Logs[1].LogIndex != 1 {
			t.Errorf("forwarded transfer logs %+v", call.Logs)
		}
		if call := fwd(false, c); len(call.Logs) != 0 {
			t.Errorf("logs without traceTransfers %+v", call.Logs)
		}
		// The forwarded call reverts: its transfer log goes with it, the
		// outer transfer stays.
		if call := fwd(true, r); len(call.Logs) != 1 || call.Logs[0].Topics[2] != common.BytesToHash(b.Bytes()) {
			t.Errorf("logs of a reverted inner transfer %+v", call.Logs)
		}
		// ethSimulate-run-out-of-gas-in-block-38015: a call without gas
		// gets what the block has left, and runs out of it.
		blocks = simulate(t, obj{"blockStateCalls": []obj{{"blockOverrides": obj{"gasLimit": hexutil.Uint64(100000)},
			"stateOverrides": obj{s.Hex(): obj{"code": burner}},
			"calls":          []obj{{"from": a, "to": s, "gas": hexutil.Uint64(60000)}, {"from": a, "to": s}}}}})
		if bl := blocks[0]; bl.GasUsed != 100000 || bl.Calls[1].GasUsed != 40000 || bl.Calls[1].Error == nil || bl.Calls[1].Error.Code != -32015 {
			t.Errorf("block gas shared by calls %+v", bl)
		}
	})
}
