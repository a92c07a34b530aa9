package feemarket

import (
	"fmt"

	"github.com/ethereum/go-ethereum/consensus/misc"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// VerifyGas checks a header's gas fields against its parent's, the same
// for every engine: the gas limit within the protocol maximum, gas used
// within the gas limit, and before London the limit within 1/1024 of the
// parent's (at least 5000) with no base fee, from London on EIP-1559's
// elastic limit and base fee (0 on a zero-base-fee chain).
func VerifyGas(config *params.ChainConfig, header, parent *types.Header) error {
	if header.GasLimit > params.MaxGasLimit {
		return fmt.Errorf("invalid gas limit: have %d, max %d", header.GasLimit, params.MaxGasLimit)
	}
	if header.GasUsed > header.GasLimit {
		return fmt.Errorf("invalid gas used: have %d, gas limit %d", header.GasUsed, header.GasLimit)
	}
	if !config.IsLondon(header.Number) {
		if header.BaseFee != nil {
			return fmt.Errorf("invalid base fee before London: have %v, want none", header.BaseFee)
		}
		return misc.VerifyGaslimit(parent.GasLimit, header.GasLimit)
	}
	return VerifyLondonGas(config, header, parent)
}

// VerifyGasAnyLimit is VerifyGas without the 1/1024 bound (and the
// 5000 minimum) on the gas limit before London: GoQuorum's QBFT, whose
// proposers may set any limit (besu#10723). From London on it is
// VerifyGas, whose elastic limit GoQuorum never reached.
func VerifyGasAnyLimit(config *params.ChainConfig, header, parent *types.Header) error {
	if config.IsLondon(header.Number) {
		return VerifyGas(config, header, parent)
	}
	if header.GasLimit > params.MaxGasLimit {
		return fmt.Errorf("invalid gas limit: have %d, max %d", header.GasLimit, params.MaxGasLimit)
	}
	if header.GasUsed > header.GasLimit {
		return fmt.Errorf("invalid gas used: have %d, gas limit %d", header.GasUsed, header.GasLimit)
	}
	if header.BaseFee != nil {
		return fmt.Errorf("invalid base fee before London: have %v, want none", header.BaseFee)
	}
	return nil
}
