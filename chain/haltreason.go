package chain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/core/vm"
)

// HaltReason is Besu's description of the exceptional halt err (Besu's
// ExceptionalHaltReason texts: "Invalid opcode: 0x5f", "Out of gas", …), the
// error's own text for anything Besu has no name for. Calls (eth_call,
// eth_estimateGas) answer it, and a failed private transaction's receipt
// carries it, so one halt reads the same everywhere.
func HaltReason(err error) string {
	var (
		invalidOp *vm.ErrInvalidOpCode
		underflow *vm.ErrStackUnderflow
		overflow  *vm.ErrStackOverflow
	)
	switch {
	case errors.As(err, &invalidOp):
		return fmt.Sprintf("Invalid opcode: 0x%02x", invalidOpcode(invalidOp))
	case errors.As(err, &underflow):
		return "Stack underflow"
	case errors.As(err, &overflow):
		return "Out of stack"
	case errors.Is(err, vm.ErrOutOfGas), errors.Is(err, vm.ErrCodeStoreOutOfGas), errors.Is(err, vm.ErrGasUintOverflow):
		return "Out of gas"
	case errors.Is(err, vm.ErrInvalidJump):
		return "Bad jump destination"
	case errors.Is(err, vm.ErrWriteProtection), errors.Is(err, vm.ErrContractAddressCollision):
		return "Illegal state change"
	case errors.Is(err, vm.ErrReturnDataOutOfBounds):
		return "Out of bounds"
	case errors.Is(err, vm.ErrMaxCodeSizeExceeded):
		return "Code is too large"
	case errors.Is(err, vm.ErrInvalidCode):
		return "Code is invalid"
	}
	return err.Error()
}

// invalidOpcode recovers the opcode of go-ethereum's invalid-opcode error,
// which names it ("INVALID", "opcode 0xef not defined").
func invalidOpcode(e *vm.ErrInvalidOpCode) byte {
	msg := strings.TrimPrefix(e.Error(), "invalid opcode: ")
	if i := strings.Index(msg, " (operand"); i >= 0 {
		msg = msg[:i]
	}
	if rest, ok := strings.CutPrefix(msg, "opcode 0x"); ok {
		var op byte
		fmt.Sscanf(strings.TrimSuffix(rest, " not defined"), "%x", &op)
		return op
	}
	return byte(vm.StringToOp(msg))
}
