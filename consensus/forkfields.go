package consensus

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// VerifyForkFields checks that the header fields added by Shanghai, Cancun
// and Prague are present exactly when those forks are active at the header.
// Engines call it for every header, proof of work included, since timestamp
// forks run on PoW and PoA chains too (DESIGN.md, "Fork rules"). Their
// values are checked elsewhere: the withdrawals and requests against the body
// and execution by the chain store, the blob gas fields here.
func VerifyForkFields(config *params.ChainConfig, header, parent *types.Header) error {
	number, time := header.Number, header.Time

	if config.IsShanghai(number, time) {
		if header.WithdrawalsHash == nil {
			return errors.New("header is missing withdrawalsRoot")
		}
	} else if header.WithdrawalsHash != nil {
		return fmt.Errorf("invalid withdrawalsRoot before Shanghai: have %x, want none", *header.WithdrawalsHash)
	}

	if config.IsCancun(number, time) {
		if header.ParentBeaconRoot == nil {
			return errors.New("header is missing parentBeaconBlockRoot")
		}
		if err := verifyBlobFields(config, parent, header); err != nil {
			return err
		}
	} else {
		switch {
		case header.BlobGasUsed != nil:
			return fmt.Errorf("invalid blobGasUsed before Cancun: have %d, want none", *header.BlobGasUsed)
		case header.ExcessBlobGas != nil:
			return fmt.Errorf("invalid excessBlobGas before Cancun: have %d, want none", *header.ExcessBlobGas)
		case header.ParentBeaconRoot != nil:
			return fmt.Errorf("invalid parentBeaconBlockRoot before Cancun: have %x, want none", *header.ParentBeaconRoot)
		}
	}

	if config.IsPrague(number, time) {
		if header.RequestsHash == nil {
			return errors.New("header is missing requestsHash")
		}
	} else if header.RequestsHash != nil {
		return fmt.Errorf("invalid requestsHash before Prague: have %x, want none", *header.RequestsHash)
	}
	return nil
}

// verifyBlobFields checks blobGasUsed and excessBlobGas with go-ethereum's
// EIP-4844 rules. Those panic when the chain config has no blob schedule for
// the active fork; that becomes an error, so a misconfigured genesis fails
// the block instead of the process.
func verifyBlobFields(config *params.ChainConfig, parent, header *types.Header) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot verify blob gas fields (is blobSchedule configured for this fork?): %v", r)
		}
	}()
	return eip4844.VerifyEIP4844Header(config, parent, header)
}
