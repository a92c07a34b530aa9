package bftengine

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/consensus"
)

// getValidatorsSelector is the ABI selector of getValidators() (the
// validator contract interface Besu and GoQuorum call:
// keccak256("getValidators()")[:4]).
var getValidatorsSelector = []byte{0xb7, 0xab, 0x4d, 0xb5}

// contractCallGas bounds the getValidators() call.
const contractCallGas = 50_000_000

// maxContractValidators bounds the list a contract may return.
const maxContractValidators = 1024

// ErrNoState is returned when a validator contract must be read through a
// chain reader that has no state (contract selection needs the node's
// chain).
var ErrNoState = errors.New("validator contract selection needs the chain state")

// stateReader is what contract selection needs of the chain reader the
// engine is handed: the node's chain, with its state and executor, so the
// contract runs on the same EVM as every block.
type stateReader interface {
	StateAt(root common.Hash) (*state.StateDB, error)
	Executor() *chain.Executor
}

// contractValidators calls getValidators() on contract at the state after
// parent: the validators of the block after parent.
func contractValidators(cr consensus.ChainReader, parent *types.Header, contract common.Address) ([]common.Address, error) {
	sr, ok := cr.(stateReader)
	if !ok {
		return nil, ErrNoState
	}
	st, err := sr.StateAt(parent.Root)
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", parent.Number.Uint64(), err)
	}
	zero := new(uint256.Int)
	msg := &core.Message{To: &contract, Value: zero, GasLimit: contractCallGas, GasPrice: zero, GasFeeCap: zero,
		GasTipCap: zero, Data: getValidatorsSelector}
	msg.SkipNonceCheck().SkipEOACheck().SkipGasLimitCapCheck()
	res, err := sr.Executor().ApplyMessage(context.Background(), parent, st, msg, contractCallGas,
		chain.CallOptions{ZeroBaseFee: true, ZeroBlobBaseFee: true, NoBaseFee: true})
	if err != nil {
		return nil, fmt.Errorf("getValidators() at block %d: %w", parent.Number.Uint64(), err)
	}
	if res.Err != nil {
		return nil, fmt.Errorf("getValidators() at block %d: %w", parent.Number.Uint64(), res.Err)
	}
	vals, err := decodeAddressArray(res.ReturnData)
	if err != nil {
		return nil, fmt.Errorf("getValidators() at block %d: %w", parent.Number.Uint64(), err)
	}
	return vals, nil
}

// decodeAddressArray decodes an ABI-encoded address[] return value.
func decodeAddressArray(b []byte) ([]common.Address, error) {
	word := func(i uint64) (*big.Int, bool) {
		if i > uint64(len(b)) || uint64(len(b))-i < 32 {
			return nil, false
		}
		return new(big.Int).SetBytes(b[i : i+32]), true
	}
	off, ok := word(0)
	if !ok || !off.IsUint64() {
		return nil, errors.New("return value is not an address[]")
	}
	n, ok := word(off.Uint64())
	if !ok || !n.IsUint64() || n.Uint64() > maxContractValidators {
		return nil, errors.New("return value is not an address[] of a sane length")
	}
	out := make([]common.Address, 0, n.Uint64())
	for i := range n.Uint64() {
		pos := off.Uint64() + 32 + 32*i
		w, ok := word(pos)
		if !ok || w.BitLen() > 160 {
			return nil, errors.New("return value is not an address[]")
		}
		out = append(out, common.BytesToAddress(b[pos+12:pos+32]))
	}
	return out, nil
}
