package txpool

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/metrics"
)

// MaxTxSize is the largest encoded transaction the pool accepts (128 KiB,
// the size go-ethereum's pool uses; 4 slots of 32 KiB).
const MaxTxSize = 128 * 1024

// Config is the pool's configuration, one field per Besu flag.
type Config struct {
	// MaxSize is the most transactions the pool holds (--tx-pool-max-size,
	// default 4096). When full, a new transaction evicts the cheapest
	// evictable one or is refused with TX_POOL_FULL.
	MaxSize int

	// MinGasPrice is the least gas price (maxFeePerGas for EIP-1559 types)
	// the pool accepts, from local and remote senders alike (--min-gas-price,
	// default 1000 wei). Nil means 0.
	MinGasPrice *big.Int

	// MaxFutureNonceGap bounds how far ahead of the sender's account nonce a
	// transaction may be: nonce - accountNonce must be below it
	// (--tx-pool-max-future-by-sender, default 200 as in Besu's layered pool).
	MaxFutureNonceGap uint64

	// PriceBump is the percentage by which a replacement (same sender and
	// nonce) must raise the price (--tx-pool-price-bump, default 10).
	PriceBump uint64

	// Retention is how long a transaction may stay in the pool
	// (--tx-pool-retention-hours, default 13 h). Zero or less keeps
	// transactions until they are mined, replaced or evicted.
	Retention time.Duration

	// TxFeeCap is the most gas price (maxFeePerGas for EIP-1559 types) a
	// local transaction may offer (--rpc-tx-feecap, default 1 ether). As in
	// Besu it bounds the price per gas, not the total fee. Nil or zero
	// disables the check. Remote transactions are not checked.
	TxFeeCap *big.Int

	// StrictReplayProtection refuses local legacy transactions without an
	// EIP-155 chain ID once the chain has EIP-155
	// (--strict-tx-replay-protection-enabled, default false), as Besu's
	// TransactionPool does for the transactions it prioritises.
	StrictReplayProtection bool

	// NoLocalPriority stops preferring local transactions over remote ones
	// when evicting and when ordering for block building
	// (--tx-pool-no-local-priority, default false).
	NoLocalPriority bool

	// GoQuorumPrivate accepts GoQuorum private transactions (legacy, V
	// 37/38, signed without a chain ID; package quorumtx) with
	// GoQuorum's pool rules: no value and a non-empty data (the payload
	// key). Set on a GoQuorum network (genesis isQuorum), whose blocks the
	// executor then applies with WithGoQuorumPrivate.
	GoQuorumPrivate bool

	// Metrics receives the pool's metrics (transactions added and removed,
	// pool size); nil means none.
	Metrics *metrics.Registry
}

// DefaultConfig returns Besu's defaults.
func DefaultConfig() Config {
	return Config{
		MaxSize:           4096,
		MinGasPrice:       big.NewInt(1000),
		MaxFutureNonceGap: 200,
		PriceBump:         10,
		Retention:         13 * time.Hour,
		TxFeeCap:          big.NewInt(params.Ether),
	}
}

// Validate checks the configuration; its messages name the flags.
func (c Config) Validate() error {
	var errs []error
	if c.MaxSize < 1 {
		errs = append(errs, fmt.Errorf("--tx-pool-max-size must be at least 1, got %d", c.MaxSize))
	}
	if c.MinGasPrice != nil && c.MinGasPrice.Sign() < 0 {
		errs = append(errs, fmt.Errorf("--min-gas-price must not be negative, got %s", c.MinGasPrice))
	}
	if c.MinGasPrice != nil && c.MinGasPrice.BitLen() > 256 {
		errs = append(errs, errors.New("--min-gas-price does not fit in 256 bits"))
	}
	if c.MaxFutureNonceGap < 1 {
		errs = append(errs, errors.New("--tx-pool-max-future-by-sender must be at least 1"))
	}
	if c.PriceBump > 100 {
		errs = append(errs, fmt.Errorf("--tx-pool-price-bump must be between 0 and 100, got %d", c.PriceBump))
	}
	if c.TxFeeCap != nil && (c.TxFeeCap.Sign() < 0 || c.TxFeeCap.BitLen() > 256) {
		errs = append(errs, fmt.Errorf("--rpc-tx-feecap must be between 0 and 2^256-1, got %s", c.TxFeeCap))
	}
	return errors.Join(errs...)
}
