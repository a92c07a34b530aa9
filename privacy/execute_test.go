package privacy

import (
	"encoding/binary"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy/privtx"
)

// revertWith is init code that reverts with data: CODECOPY of the bytes
// after its 15-byte prefix, then REVERT.
func revertWith(data []byte) []byte {
	n := make([]byte, 2)
	binary.BigEndian.PutUint16(n, uint16(len(data)))
	code := []byte{0x61, n[0], n[1], 0x61, 0x00, 0x0f, 0x60, 0x00, 0x39, 0x61, n[0], n[1], 0x60, 0x00, 0xfd}
	return append(code, data...)
}

// TestFailureReasons: a failed private transaction's outcome says why, as
// its receipt will: the revert data and its decoded reason for a revert,
// Besu's halt description for an exceptional halt (PUSH0 on London rules,
// the first-hour failure, among them), Besu's message for a nonce
// that is not the sender's; a success says nothing.
func TestFailureReasons(t *testing.T) {
	errorData, _ := (abi.Arguments{{Type: mustType(t, "string")}}).Pack("not the owner")
	errorData = append(crypto.Keccak256([]byte("Error(string)"))[:4], errorData...)
	panicData, _ := (abi.Arguments{{Type: mustType(t, "uint256")}}).Pack(big.NewInt(0x11))
	panicData = append(crypto.Keccak256([]byte("Panic(uint256)"))[:4], panicData...)
	for _, tc := range []struct {
		name    string
		code    []byte
		nonce   uint64
		status  uint64
		revert  []byte
		failure string
	}{
		{"success", []byte{0x00}, 0, 1, nil, ""},
		{"Error(string)", revertWith(errorData), 0, 0, errorData, "Execution reverted (not the owner)"},
		{"Panic(uint256)", revertWith(panicData), 0, 0, panicData, "Execution reverted (arithmetic underflow or overflow)"},
		{"bare revert", []byte{0x60, 0x00, 0x60, 0x00, 0xfd}, 0, 0, nil, "Execution reverted"},
		{"INVALID", []byte{0xfe}, 0, 0, nil, "Invalid opcode: 0xfe"},
		{"PUSH0 before Shanghai", []byte{0x5f, 0x00}, 0, 0, nil, "Invalid opcode: 0x5f"},
		{"memory past the gas", []byte{0x63, 0x10, 0x00, 0x00, 0x00, 0x51}, 0, 0, nil, "Out of gas"},
		{"stack underflow", []byte{0x01}, 0, 0, nil, "Stack underflow"},
		{"nonce", []byte{0x00}, 3, 0, nil, "Private Transaction nonce 3, does not match sender account nonce 0."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			priv, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
			public, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
			blockCtx := vm.BlockContext{CanTransfer: core.CanTransfer, Transfer: core.Transfer, GetHash: func(uint64) common.Hash { return common.Hash{} },
				BlockNumber: big.NewInt(1), Time: 1, Difficulty: big.NewInt(1), GasLimit: 30_000_000, BaseFee: new(big.Int)}
			tx := &privtx.Transaction{Nonce: tc.nonce, Data: tc.code, Restriction: privtx.Restricted}
			// London rules: AllEthashProtocolChanges stops before Shanghai.
			out := run(chain.NewExecutor(params.AllEthashProtocolChanges, nil, nil), blockCtx, priv, public, tx, common.Address{1}, testGroup, common.Hash{2}, false)
			if out.status != tc.status || string(out.revert) != string(tc.revert) || out.failure != tc.failure {
				t.Fatalf("status %d, revert %x, failure %q; want %d, %x, %q", out.status, out.revert, out.failure, tc.status, tc.revert, tc.failure)
			}
		})
	}
}

func mustType(t *testing.T, name string) abi.Type {
	typ, err := abi.NewType(name, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}
