package api

import (
	"encoding/json"
	"math/big"
	"slices"
	"sort"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// GasPrice is eth_gasPrice (Backend.GasPrice).
func (e *Eth) GasPrice() *hexutil.Big { return (*hexutil.Big)(e.b.GasPrice()) }

// MaxPriorityFeePerGas is eth_maxPriorityFeePerGas
// (Backend.MaxPriorityFeePerGas).
func (e *Eth) MaxPriorityFeePerGas() *hexutil.Big {
	return (*hexutil.Big)(e.b.MaxPriorityFeePerGas())
}

// BlobBaseFee is eth_blobBaseFee: the blob base fee of the next block (0
// before Cancun).
func (e *Eth) BlobBaseFee() *hexutil.Big {
	head := e.b.Chain.CurrentHeader()
	return (*hexutil.Big)(e.b.NextBlobFee(head, head.Time))
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
		return nil, backend.InvalidParams(backend.ParamBlockCount, "")
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
		return nil, backend.InvalidParams(backend.ParamBlockNumber, "")
	}
	first := max(0, highest-int64(count)+1)
	last := first + int64(count)
	if int64(count) > highest {
		last = highest + 1
	}
	var headers []*types.Header
	for n := first; n < last; n++ {
		if h, _ := e.b.Canonical(uint64(n)); h != nil {
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
		out.BaseFeePerBlobGas = append(out.BaseFeePerBlobGas, (*hexutil.Big)(e.b.BlobFee(h)))
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
	if nh, _ := e.b.Canonical(uint64(highest + 1)); nh != nil {
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
		if nh, _ := e.b.Canonical(lastHeader.Number.Uint64() + 1); nh != nil {
			nextBlob = e.b.BlobFee(nh)
		} else {
			nextBlob = e.b.NextBlobFee(lastHeader, max(lastHeader.Time, head.Time)+1)
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

// effectiveTip is what a transaction paid the block producer per gas: what
// the sender paid (effectiveGasPrice) less the burnt base fee, never below 0.
func effectiveTip(tx *types.Transaction, baseFee *big.Int) *big.Int {
	if baseFee == nil {
		return tx.GasTipCap()
	}
	tip := new(big.Int).Sub(effectiveGasPrice(tx, baseFee), baseFee)
	if tip.Sign() < 0 {
		tip.SetInt64(0)
	}
	return tip
}
