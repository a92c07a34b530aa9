package api

import (
	"encoding/json"
	"math/big"
	"slices"
	"sort"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/rpctypes"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// GasPriceOracle is how eth_gasPrice and eth_maxPriorityFeePerGas sample
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
	if b.GasPriceOracle == nil {
		return DefaultGasPriceOracle()
	}
	return *b.GasPriceOracle
}

// nextBaseFee is the base fee of the block after the head (nil before
// London).
func (b *Backend) nextBaseFee() *big.Int {
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
	if next := b.nextBaseFee(); next != nil && next.Cmp(lower) > 0 {
		lower.Set(next)
	}
	return lower
}

// minGasPrice is a copy of the node's --min-gas-price (0 when unset).
func (b *Backend) minGasPrice() *big.Int {
	if b.MinGasPrice == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(b.MinGasPrice)
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

// GasPrice is eth_gasPrice (Backend.GasPrice).
func (e *Eth) GasPrice() *hexutil.Big { return (*hexutil.Big)(e.b.GasPrice()) }

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

// MaxPriorityFeePerGas is eth_maxPriorityFeePerGas
// (Backend.MaxPriorityFeePerGas).
func (e *Eth) MaxPriorityFeePerGas() *hexutil.Big {
	return (*hexutil.Big)(e.b.MaxPriorityFeePerGas())
}

// MaxPriorityFeePerGas is Besu's priority fee suggestion: the median
// priority fee of the fee-market transactions of the last 100 blocks. Its
// floor differs from Besu's (--min-priority-fee, 0): it is what a
// transaction needs on top of the next base fee to reach the pool's
// minimum gas price, so that clients pricing by it are accepted.
func (b *Backend) MaxPriorityFeePerGas() *big.Int {
	floor := b.minGasPrice()
	if next := b.nextBaseFee(); next != nil {
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

// BlobBaseFee is eth_blobBaseFee: the blob base fee of the next block (0
// before Cancun).
func (e *Eth) BlobBaseFee() *hexutil.Big {
	head := e.b.Chain.CurrentHeader()
	return (*hexutil.Big)(e.b.nextBlobFee(head, head.Time))
}

// nextBlobFee is the blob base fee of a block following parent at time t.
func (b *Backend) nextBlobFee(parent *types.Header, t uint64) *big.Int {
	cfg := b.Chain.Config()
	next := &types.Header{Number: new(big.Int).Add(parent.Number, big.NewInt(1)), Time: t}
	if !cfg.IsCancun(next.Number, next.Time) {
		return new(big.Int)
	}
	excess := eip4844.CalcExcessBlobGas(cfg, parent, t)
	next.ExcessBlobGas = &excess
	return eip4844.CalcBlobFee(cfg, next)
}

// blobFee is the blob base fee of a stored block (0 before Cancun).
func (b *Backend) blobFee(h *types.Header) *big.Int {
	if h.ExcessBlobGas == nil || !b.Chain.Config().IsCancun(h.Number, h.Time) {
		return new(big.Int)
	}
	return eip4844.CalcBlobFee(b.Chain.Config(), h)
}

// Percentiles is eth_feeHistory's reward percentiles: numbers.
type Percentiles []float64

// UnmarshalJSON implements json.Unmarshaler.
func (p *Percentiles) UnmarshalJSON(data []byte) error {
	var out []float64
	if err := json.Unmarshal(data, &out); err != nil {
		return errBadParam
	}
	*p = out
	return nil
}

// FeeHistoryResult is eth_feeHistory's answer.
type FeeHistoryResult struct {
	OldestBlock       hexutil.Uint64   `json:"oldestBlock"`
	BaseFeePerGas     []*hexutil.Big   `json:"baseFeePerGas"`
	BaseFeePerBlobGas []*hexutil.Big   `json:"baseFeePerBlobGas"`
	GasUsedRatio      []float64        `json:"gasUsedRatio"`
	BlobGasUsedRatio  []float64        `json:"blobGasUsedRatio"`
	Reward            [][]*hexutil.Big `json:"reward,omitempty"`
}

// maxFeeHistoryPercentiles is Besu's limit; with more, no rewards.
const maxFeeHistoryPercentiles = 100

// FeeHistory is eth_feeHistory as Besu computes it: base fees (with the
// next block's), blob base fees, gas and blob gas used ratios, and the
// priority fees at the requested percentiles of gas used.
func (e *Eth) FeeHistory(count UintIndex, newest rpctypes.BlockNumber, percentiles *Percentiles) (*FeeHistoryResult, error) {
	if count < 1 || count > 1024 {
		return nil, invalidParams(ParamBlockCount, "")
	}
	c := e.b.Chain
	cfg := c.Config()
	head := c.CurrentHeader()
	headNum := int64(head.Number.Uint64())
	highest := headNum
	switch {
	case newest.Tag == rpctypes.TagEarliest:
		highest = 0
	case newest.Tag == "":
		highest = newest.Number
	}
	if highest > headNum {
		return nil, invalidParams(ParamBlockNumber, "")
	}
	first := max(0, highest-int64(count)+1)
	last := first + int64(count)
	if int64(count) > highest {
		last = highest + 1
	}
	var headers []*types.Header
	for n := first; n < last; n++ {
		if h, _ := e.b.canonical(uint64(n)); h != nil {
			headers = append(headers, h)
		}
	}
	out := &FeeHistoryResult{
		OldestBlock:       hexutil.Uint64(first),
		BaseFeePerGas:     []*hexutil.Big{},
		BaseFeePerBlobGas: []*hexutil.Big{},
		GasUsedRatio:      []float64{},
		BlobGasUsedRatio:  []float64{},
	}
	for _, h := range headers {
		bf := new(big.Int)
		if h.BaseFee != nil {
			bf = h.BaseFee
		}
		out.BaseFeePerGas = append(out.BaseFeePerGas, (*hexutil.Big)(bf))
		out.BaseFeePerBlobGas = append(out.BaseFeePerBlobGas, (*hexutil.Big)(e.b.blobFee(h)))
		out.GasUsedRatio = append(out.GasUsedRatio, float64(h.GasUsed)/float64(h.GasLimit))
		ratio := 0.0
		if cfg.IsCancun(h.Number, h.Time) && h.BlobGasUsed != nil {
			if limit := eip4844.MaxBlobGasPerBlock(cfg, h.Time); limit > 0 {
				ratio = float64(*h.BlobGasUsed) / float64(limit)
			}
		}
		out.BlobGasUsedRatio = append(out.BlobGasUsedRatio, ratio)
	}
	// The next block's base fee: stored if that block exists, else computed.
	next := new(big.Int)
	if nh, _ := e.b.canonical(uint64(highest + 1)); nh != nil {
		if nh.BaseFee != nil {
			next = nh.BaseFee
		}
	} else if len(headers) > 0 {
		lastHeader := headers[len(headers)-1]
		if cfg.IsLondon(new(big.Int).Add(lastHeader.Number, big.NewInt(1))) {
			next = feemarket.CalcBaseFee(cfg, lastHeader)
		}
	}
	out.BaseFeePerGas = append(out.BaseFeePerGas, (*hexutil.Big)(next))
	if len(headers) > 0 {
		lastHeader := headers[len(headers)-1]
		var nextBlob *big.Int
		if nh, _ := e.b.canonical(lastHeader.Number.Uint64() + 1); nh != nil {
			nextBlob = e.b.blobFee(nh)
		} else {
			nextBlob = e.b.nextBlobFee(lastHeader, max(lastHeader.Time, head.Time)+1)
		}
		out.BaseFeePerBlobGas = append(out.BaseFeePerBlobGas, (*hexutil.Big)(nextBlob))
	}
	if percentiles != nil && len(*percentiles) <= maxFeeHistoryPercentiles {
		sorted := slices.Clone(*percentiles)
		slices.Sort(sorted)
		out.Reward = [][]*hexutil.Big{}
		for _, h := range headers {
			out.Reward = append(out.Reward, e.rewards(h, sorted))
		}
	}
	return out, nil
}

// rewards is Besu's computeRewards: transactions sorted by effective
// priority fee, and for each percentile the fee of the transaction at
// which the cumulative gas used reaches that share of the block's.
func (e *Eth) rewards(h *types.Header, percentiles []float64) []*hexutil.Big {
	c := e.b.Chain
	out := make([]*hexutil.Big, len(percentiles))
	hash := c.GetCanonicalHash(h.Number.Uint64())
	body := c.GetBody(hash, h.Number.Uint64())
	receipts := c.GetReceipts(hash, h.Number.Uint64())
	if body == nil || len(body.Transactions) == 0 || len(receipts) != len(body.Transactions) {
		for i := range out {
			out[i] = new(hexutil.Big)
		}
		return out
	}
	type txInfo struct {
		gasUsed uint64
		fee     *big.Int
	}
	infos := make([]txInfo, len(body.Transactions))
	var cumulative uint64
	for i, tx := range body.Transactions {
		infos[i] = txInfo{gasUsed: receipts[i].CumulativeGasUsed - cumulative, fee: effectiveTip(tx, h.BaseFee)}
		cumulative = receipts[i].CumulativeGasUsed
	}
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].fee.Cmp(infos[j].fee) < 0 })
	idx := 0
	gasSum := float64(infos[0].gasUsed)
	for i, p := range percentiles {
		threshold := p * float64(h.GasUsed) / 100
		for gasSum < threshold && idx < len(infos)-1 {
			idx++
			gasSum += float64(infos[idx].gasUsed)
		}
		out[i] = (*hexutil.Big)(infos[idx].fee)
	}
	return out
}

// effectiveTip is what a transaction paid the block producer per gas.
func effectiveTip(tx *types.Transaction, baseFee *big.Int) *big.Int {
	if baseFee == nil {
		return tx.GasTipCap()
	}
	tip := new(big.Int).Sub(tx.GasFeeCap(), baseFee)
	if tip.Cmp(tx.GasTipCap()) > 0 {
		tip.Set(tx.GasTipCap())
	}
	if tip.Sign() < 0 {
		tip.SetInt64(0)
	}
	return tip
}
