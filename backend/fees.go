package backend

import (
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// GasPriceOracle is how the gas price and priority fee suggestions sample
// recent blocks (--api-gas-price-blocks, --api-gas-price-percentile,
// --api-gas-price-max).
type GasPriceOracle struct {
	// Blocks is how many blocks back from the head are sampled; the head
	// itself always is (Besu's BlockchainQueries.gasPrice), so 0 and 1 both
	// sample the head only.
	Blocks int
	// Percentile of the sampled prices answered, 0 to 100.
	Percentile float64
	// Max caps eth_gasPrice, in wei.
	Max *big.Int
}

// DefaultGasPriceOracle returns Besu's defaults (ApiConfiguration): 100
// blocks, the 50th percentile, at most 500 gwei.
func DefaultGasPriceOracle() GasPriceOracle {
	return GasPriceOracle{Blocks: 100, Percentile: 50, Max: big.NewInt(500_000_000_000)}
}

// oracle returns the backend's gas price oracle settings.
func (b *Backend) oracle() GasPriceOracle {
	if b.Config.GasPriceOracle == nil {
		return DefaultGasPriceOracle()
	}
	return *b.Config.GasPriceOracle
}

// NextBaseFee is the base fee of the block after the head (nil before
// London).
func (b *Backend) NextBaseFee() *big.Int {
	cfg := b.Chain.Config()
	head := b.Chain.CurrentHeader()
	if !cfg.IsLondon(new(big.Int).Add(head.Number, big.NewInt(1))) {
		return nil
	}
	return feemarket.CalcBaseFee(cfg, head)
}

// gasPriceLowerBound is what the next block accepts: the node's minimum gas
// price, or the next base fee when that is higher.
func (b *Backend) gasPriceLowerBound() *big.Int {
	lower := b.minGasPrice()
	if next := b.NextBaseFee(); next != nil && next.Cmp(lower) > 0 {
		lower.Set(next)
	}
	return lower
}

// minGasPrice is a copy of the node's --min-gas-price (0 when unset).
func (b *Backend) minGasPrice() *big.Int {
	if b.Config.MinGasPrice == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(b.Config.MinGasPrice)
}

// recentPrices collects a per-transaction price from the oracle's blocks
// up to the head.
func (b *Backend) recentPrices(pick func(tx *types.Transaction) *big.Int) []*big.Int {
	c := b.Chain
	head := c.CurrentHeader().Number.Uint64()
	blocks := uint64(max(1, b.oracle().Blocks))
	first := uint64(0)
	if head+1 > blocks {
		first = head + 1 - blocks
	}
	var out []*big.Int
	for n := first; n <= head; n++ {
		hash := c.GetCanonicalHash(n)
		body := c.GetBody(hash, n)
		if body == nil {
			continue
		}
		for _, tx := range body.Transactions {
			if p := pick(tx); p != nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// percentile is Besu's selection: the k-th smallest, k = len × fraction.
func (b *Backend) percentile(prices []*big.Int) *big.Int {
	sort.Slice(prices, func(i, j int) bool { return prices[i].Cmp(prices[j]) < 0 })
	k := min(len(prices)-1, int(float64(len(prices))*b.oracle().Percentile/100))
	return prices[k]
}

// GasPrice is Besu's gas price suggestion: the median (by default; see
// GasPriceOracle) gas price of the legacy and access-list transactions of
// the last 100 blocks, capped at 500 gwei and at least what the next block
// accepts (minimum gas price, next base fee).
func (b *Backend) GasPrice() *big.Int {
	lower := b.gasPriceLowerBound()
	prices := b.recentPrices(func(tx *types.Transaction) *big.Int {
		if tx.Type() == types.LegacyTxType || tx.Type() == types.AccessListTxType {
			return tx.GasPrice()
		}
		return nil
	})
	if len(prices) == 0 {
		return lower
	}
	p := new(big.Int).Set(b.percentile(prices))
	if ceiling := b.oracle().Max; ceiling != nil && p.Cmp(ceiling) > 0 {
		p.Set(ceiling)
	}
	if p.Cmp(lower) < 0 {
		p.Set(lower)
	}
	return p
}

// MaxPriorityFeePerGas is Besu's priority fee suggestion: the median
// priority fee of the fee-market transactions of the last 100 blocks. Its
// floor differs from Besu's (--min-priority-fee, 0): it is what a
// transaction needs on top of the next base fee to reach the pool's
// minimum gas price, so that clients pricing by it are accepted.
func (b *Backend) MaxPriorityFeePerGas() *big.Int {
	floor := b.minGasPrice()
	if next := b.NextBaseFee(); next != nil {
		floor.Sub(floor, next)
	}
	if floor.Sign() < 0 {
		floor.SetInt64(0)
	}
	prices := b.recentPrices(func(tx *types.Transaction) *big.Int {
		if tx.Type() >= types.DynamicFeeTxType {
			return tx.GasTipCap()
		}
		return nil
	})
	if len(prices) == 0 {
		return floor
	}
	p := new(big.Int).Set(b.percentile(prices))
	if p.Cmp(floor) < 0 {
		p.Set(floor)
	}
	return p
}

// NextBlobFee is the blob base fee of a block following parent at time t.
func (b *Backend) NextBlobFee(parent *types.Header, t uint64) *big.Int {
	cfg := b.Chain.Config()
	next := &types.Header{Number: new(big.Int).Add(parent.Number, big.NewInt(1)), Time: t}
	if !cfg.IsCancun(next.Number, next.Time) {
		return new(big.Int)
	}
	excess := eip4844.CalcExcessBlobGas(cfg, parent, t)
	next.ExcessBlobGas = &excess
	return eip4844.CalcBlobFee(cfg, next)
}

// BlobFee is the blob base fee of a stored block (0 before Cancun).
func (b *Backend) BlobFee(h *types.Header) *big.Int {
	if h.ExcessBlobGas == nil || !b.Chain.Config().IsCancun(h.Number, h.Time) {
		return new(big.Int)
	}
	return eip4844.CalcBlobFee(b.Chain.Config(), h)
}
