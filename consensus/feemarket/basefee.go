package feemarket

import (
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/consensus/misc"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// zeroBaseFee holds the chain configurations whose genesis sets
// config.zeroBaseFee. go-ethereum's ChainConfig has no field for it and
// every fee rule (engines' header checks, block building, the pool, the
// APIs) is handed only the *params.ChainConfig, so the flag travels with
// the configuration's identity.
var zeroBaseFee sync.Map // *params.ChainConfig → struct{}

// SetZeroBaseFee marks config as a zero-base-fee chain (Besu's
// ZeroBaseFeeMarket): from London on every block built has base fee 0,
// whatever the parent's gas use. The genesis loader calls it; a copy of config is a
// different chain configuration and must be marked itself.
func SetZeroBaseFee(config *params.ChainConfig) { zeroBaseFee.Store(config, struct{}{}) }

// IsZeroBaseFee reports whether config was marked by SetZeroBaseFee.
func IsZeroBaseFee(config *params.ChainConfig) bool {
	if config == nil {
		return false
	}
	_, ok := zeroBaseFee.Load(config)
	return ok
}

// CalcBaseFee is the base fee of a London block on parent: 0 on a
// zero-base-fee chain, else EIP-1559's. Block building, validation, the
// pool and the fee APIs all use it so they agree.
func CalcBaseFee(config *params.ChainConfig, parent *types.Header) *big.Int {
	if IsZeroBaseFee(config) {
		return new(big.Int)
	}
	return eip1559.CalcBaseFee(config, parent)
}

// VerifyLondonGas checks a London header's gas limit and base fee against
// its parent's: EIP-1559's rules, except that on a zero-base-fee chain the
// base fee's value is not checked, only its presence (Besu's
// ZeroBaseFeeMarket validates no base fee, so that a chain converted to
// zeroBaseFee, whose earlier blocks carry EIP-1559 base fees, still syncs).
func VerifyLondonGas(config *params.ChainConfig, header, parent *types.Header) error {
	if !IsZeroBaseFee(config) {
		return eip1559.VerifyEIP1559Header(config, parent, header)
	}
	parentGasLimit := parent.GasLimit
	if !config.IsLondon(parent.Number) {
		parentGasLimit = parent.GasLimit * config.ElasticityMultiplier()
	}
	if err := misc.VerifyGaslimit(parentGasLimit, header.GasLimit); err != nil {
		return err
	}
	if header.BaseFee == nil {
		return fmt.Errorf("header is missing baseFee")
	}
	return nil
}
