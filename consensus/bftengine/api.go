package bftengine

import (
	"encoding/json"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/rpctypes"
)

// signerMetricsDefaultRange is how many blocks back getSignerMetrics
// looks without a fromBlock (Besu: the last 100).
const signerMetricsDefaultRange = 100

// APIs returns a group per protocol of the schedule (Besu's
// IbftJsonRpcMethods and QbftJsonRpcMethods): IBFT with ibft_* methods,
// QBFT with qbft_* ones. During a migration both answer, each for every
// block, reading a block's extraData in its own protocol's layout.
func (e *Engine) APIs(chain consensus.ChainHeadReader) []rpctypes.Group {
	var groups []rpctypes.Group
	seen := map[string]bool{}
	for _, s := range e.segs {
		f := s.Format
		if seen[f.Spec().RPCGroup] {
			continue
		}
		seen[f.Spec().RPCGroup] = true
		a := &bftAPI{e: e, chain: chain, qbft: f.Spec().RPCPrefix == "qbft"}
		p := f.Spec().RPCPrefix + "_"
		methods := []rpctypes.Method{
			{Name: p + "proposeValidatorVote", Fn: a.proposeValidatorVote},
			{Name: p + "discardValidatorVote", Fn: a.discardValidatorVote},
			{Name: p + "getPendingVotes", Fn: a.getPendingVotes},
			{Name: p + "getValidatorsByBlockNumber", Fn: a.getValidatorsByBlockNumber},
			{Name: p + "getValidatorsByBlockHash", Fn: a.getValidatorsByBlockHash},
			{Name: p + "getSignerMetrics", Fn: a.getSignerMetrics},
		}
		if f.Spec().RPCPrefix == "qbft" {
			methods = append(methods, rpctypes.Method{Name: p + "getRequestTimeoutSeconds", Fn: a.getRequestTimeoutSeconds})
		}
		groups = append(groups, rpctypes.Group{Name: f.Spec().RPCGroup, Methods: methods})
	}
	return groups
}

type bftAPI struct {
	e     *Engine
	chain consensus.ChainHeadReader
	// qbft: the qbft_* methods, which answer validators as Besu's QBFT
	// validator provider does (ValidatorsForBlock); ibft_* read the
	// block's own list (Besu's validatorsInBlock).
	qbft bool
}

// address is a validator address parameter; a sample in Besu's
// documentation gives it without 0x, so the prefix is optional.
type address common.Address

func (a *address) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return rpctypes.ErrInvalidAddressParams
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	b, err := hexutil.Decode("0x" + s)
	if err != nil || len(b) != common.AddressLength {
		return rpctypes.ErrInvalidAddressParams
	}
	*a = address(common.BytesToAddress(b))
	return nil
}

func (a *bftAPI) proposeValidatorVote(addr address, add bool) bool {
	a.e.proposals.Propose(common.Address(addr), add)
	return true
}

func (a *bftAPI) discardValidatorVote(addr address) bool {
	a.e.proposals.Discard(common.Address(addr))
	return true
}

func (a *bftAPI) getPendingVotes() map[string]bool {
	out := map[string]bool{}
	for k, v := range a.e.proposals.Pending() {
		out[strings.ToLower(k.Hex())] = v
	}
	return out
}

// header resolves a block parameter to a canonical header.
func (a *bftAPI) header(b rpctypes.BlockNumber) *types.Header {
	switch b.Tag {
	case "latest", "pending", "safe", "finalized":
		return a.chain.CurrentHeader()
	case "earliest":
		return a.chain.GetHeaderByNumber(0)
	}
	if b.Number < 0 {
		return nil
	}
	return a.chain.GetHeaderByNumber(uint64(b.Number))
}

func (a *bftAPI) getValidatorsByBlockNumber(b rpctypes.BlockNumber) ([]common.Address, error) {
	if a.qbft && b.Tag == "pending" {
		// Besu: the validators after the head, those of the pending block.
		v, err := a.e.ValidatorsAfter(a.chain, a.chain.CurrentHeader())
		return nonNil(v), internal(err)
	}
	h := a.header(b)
	if h == nil {
		return nil, rpctypes.ErrInvalidBlockParams
	}
	return a.validatorList(h)
}

func (a *bftAPI) getValidatorsByBlockHash(hash common.Hash) ([]common.Address, error) {
	h := a.chain.GetHeaderByHash(hash)
	if h == nil {
		return nil, rpctypes.ErrInvalidBlockHashParams
	}
	return a.validatorList(h)
}

// validatorList is the validators the methods answer for h's block,
// never null: for qbft_* ValidatorsForBlock (under contract selection the
// next block's, as Besu), for ibft_* the block's own.
func (a *bftAPI) validatorList(h *types.Header) ([]common.Address, error) {
	var (
		v   []common.Address
		err error
	)
	if a.qbft {
		v, err = a.e.ValidatorsForBlock(a.chain, h)
	} else {
		v, err = a.e.ValidatorsOf(a.chain, h)
	}
	return nonNil(v), internal(err)
}

func nonNil(v []common.Address) []common.Address {
	if v == nil {
		return []common.Address{}
	}
	return v
}

// internal hides an engine error behind the JSON-RPC internal error.
func internal(err error) error {
	if err != nil {
		return rpctypes.ErrInternal
	}
	return nil
}

// signerMetric is one validator's entry of getSignerMetrics.
type signerMetric struct {
	Address                 common.Address `json:"address"`
	ProposedBlockCount      hexutil.Uint64 `json:"proposedBlockCount"`
	LastProposedBlockNumber hexutil.Uint64 `json:"lastProposedBlockNumber"`
}

// getSignerMetrics counts the blocks each validator proposed between
// fromBlock (default: 100 blocks before toBlock) and toBlock (default:
// latest), listing the validators of toBlock first.
func (a *bftAPI) getSignerMetrics(from, to *rpctypes.BlockNumber) ([]signerMetric, error) {
	toH := a.chain.CurrentHeader()
	if to != nil {
		if toH = a.header(*to); toH == nil {
			return nil, rpctypes.ErrInvalidBlockParams
		}
	}
	last := toH.Number.Uint64()
	first := uint64(0)
	if last > signerMetricsDefaultRange {
		first = last - signerMetricsDefaultRange
	}
	if from != nil {
		fh := a.header(*from)
		if fh == nil || fh.Number.Uint64() > last {
			return nil, rpctypes.ErrInvalidBlockParams
		}
		first = fh.Number.Uint64()
	}
	index := map[common.Address]int{}
	var out []signerMetric
	if vals, err := a.e.ValidatorsOf(a.chain, toH); err == nil {
		for _, v := range vals {
			index[v] = len(out)
			out = append(out, signerMetric{Address: v})
		}
	}
	for n := max(first, 1); n <= last; n++ {
		h := a.chain.GetHeaderByNumber(n)
		if h == nil {
			break
		}
		i, ok := index[h.Coinbase]
		if !ok {
			i = len(out)
			index[h.Coinbase] = i
			out = append(out, signerMetric{Address: h.Coinbase})
		}
		out[i].ProposedBlockCount++
		out[i].LastProposedBlockNumber = hexutil.Uint64(n)
	}
	if out == nil {
		out = []signerMetric{}
	}
	return out, nil
}

// getRequestTimeoutSeconds is the round-0 timeout of the next block, in
// seconds (qbft_getRequestTimeoutSeconds).
func (a *bftAPI) getRequestTimeoutSeconds() uint64 {
	next := a.chain.CurrentHeader().Number.Uint64() + 1
	return a.e.cfg(next).RequestTimeoutSeconds
}
