package clique

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/rpctypes"
)

// signerMetricsRange is how many blocks clique_getSignerMetrics covers
// without a start block (Besu's DEFAULT_RANGE_BLOCK).
const signerMetricsRange = 100

// Errors the CLIQUE methods answer, in the engine's terms; rpcError maps
// them to Besu's JSON-RPC errors, once, for the whole group.
var (
	// ErrUnknownBlock is a block the chain does not hold (or whose signer
	// state cannot be rebuilt).
	ErrUnknownBlock = errors.New("clique: unknown block")
	// ErrNoVoteSubject is a proposal about the zero address, which in a
	// header means "no vote".
	ErrNoVoteSubject = errors.New("clique: the zero address cannot be voted on")
	// ErrEmptyRange is a signer-metrics range whose start is not before its
	// end.
	ErrEmptyRange = errors.New("clique: empty block range")
	// ErrBlockTag is a block tag that names no block of a Clique chain
	// ("safe", "finalized") where a number is needed.
	ErrBlockTag = errors.New("clique: block tag without a block number")
)

// rpcError is the CLIQUE group's mapping of its errors to Besu's: an
// unknown block (or tag) is -32603 "Internal error", as Besu's methods
// answer when they find no header; a vote on the zero address -32600
// "Invalid Request"; an empty metrics range -32602 "Invalid block number
// params".
func rpcError(err error) *rpctypes.Error {
	switch {
	case errors.Is(err, ErrUnknownBlock), errors.Is(err, ErrBlockTag):
		return rpctypes.ErrInternal
	case errors.Is(err, ErrNoVoteSubject):
		return rpctypes.ErrInvalidRequest
	case errors.Is(err, ErrEmptyRange):
		return rpctypes.ErrInvalidBlockNumberParams
	}
	return nil
}

// APIs returns the CLIQUE JSON-RPC group (the node's apiProvider), with
// Besu's parameter readers and errors: a bad address is -32602 "Invalid
// address params", an unknown block -32603 "Internal error" (rpcError).
func (e *Engine) APIs(chain consensus.ChainHeadReader) []rpctypes.Group {
	a := &cliqueAPI{e: e, chain: chain}
	return []rpctypes.Group{{Name: rpctypes.GroupClique, Errors: rpcError, Methods: []rpctypes.Method{
		{Name: "clique_getSigners", Fn: a.GetSigners, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidBlockParams}},
		{Name: "clique_getSignersAtHash", Fn: a.GetSignersAtHash, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidBlockHashParams}},
		{Name: "clique_propose", Fn: a.Propose, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidAddressParams, rpctypes.ErrInvalidProposalParams}},
		{Name: "clique_discard", Fn: a.Discard, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidAddressParams}},
		{Name: "clique_proposals", Fn: a.Proposals},
		{Name: "clique_getSignerMetrics", Fn: a.GetSignerMetrics,
			ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidBlockNumberParams, rpctypes.ErrInvalidBlockNumberParams}},
	}}}
}

// cliqueAPI serves the CLIQUE group.
type cliqueAPI struct {
	e     *Engine
	chain consensus.ChainHeadReader
}

// signersAfter returns the signers after the block header.
func (a *cliqueAPI) signersAfter(header *types.Header) ([]common.Address, error) {
	snap, err := a.e.snapshot(a.chain, header.Number.Uint64(), header.Hash())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnknownBlock, err)
	}
	return slices.Clone(snap.Signers), nil
}

// GetSigners is clique_getSigners: the signers after the block (latest
// when omitted; "earliest" is block 0, every other tag the head).
func (a *cliqueAPI) GetSigners(block *rpctypes.BlockNumber) ([]common.Address, error) {
	head := a.chain.CurrentHeader().Number.Uint64()
	number := int64(head)
	if block != nil {
		switch {
		case block.Tag == "earliest":
			number = 0
		case block.Tag == "":
			number = block.Number
		}
	}
	if number < 0 {
		return nil, ErrUnknownBlock
	}
	header := a.chain.GetHeaderByNumber(uint64(number))
	if header == nil {
		return nil, ErrUnknownBlock
	}
	return a.signersAfter(header)
}

// GetSignersAtHash is clique_getSignersAtHash: the signers after the block
// with that hash.
func (a *cliqueAPI) GetSignersAtHash(hash rpctypes.Hash) ([]common.Address, error) {
	header := a.chain.GetHeaderByHash(common.Hash(hash))
	if header == nil {
		return nil, ErrUnknownBlock
	}
	return a.signersAfter(header)
}

// Propose is clique_propose: the node votes to add (true) or drop (false)
// the address in the blocks it seals. The zero address, which means "no
// vote" in a header, is refused (Besu: -32600 "Invalid Request").
func (a *cliqueAPI) Propose(addr rpctypes.Address, authorize bool) (bool, error) {
	if common.Address(addr) == (common.Address{}) {
		return false, ErrNoVoteSubject
	}
	a.e.Propose(common.Address(addr), authorize)
	return true, nil
}

// Discard is clique_discard: forget the node's proposal about the address
// (true whether or not there was one, as Besu).
func (a *cliqueAPI) Discard(addr rpctypes.Address) bool {
	a.e.Discard(common.Address(addr))
	return true
}

// Proposals is clique_proposals: the node's proposals, address to true
// (add) or false (drop).
func (a *cliqueAPI) Proposals() map[common.Address]bool {
	return a.e.Proposals()
}

// SignerMetric is one entry of clique_getSignerMetrics.
type SignerMetric struct {
	Address                 common.Address `json:"address"`
	ProposedBlockCount      hexutil.Uint64 `json:"proposedBlockCount"`
	LastProposedBlockNumber hexutil.Uint64 `json:"lastProposedBlockNumber"`
}

// GetSignerMetrics is clique_getSignerMetrics, as current Besu answers it:
// for the blocks from the start block (default: 100 before the head)
// inclusive to the end block (default and at most: the head) exclusive,
// how many each signer sealed and the last one it sealed, plus an entry
// with zero counts for every signer after the last block of the range.
// The genesis block counts as sealed by the zero address, as in Besu.
// Entries are ordered by address.
func (a *cliqueAPI) GetSignerMetrics(from, to *rpctypes.BlockNumber) ([]SignerMetric, error) {
	head := int64(a.chain.CurrentHeader().Number.Uint64())
	start := max(0, head-signerMetricsRange)
	if from != nil {
		n, err := resolveMetricsBlock(*from, head)
		if err != nil {
			return nil, err
		}
		start = n
	}
	end := head
	if to != nil {
		n, err := resolveMetricsBlock(*to, head)
		if err != nil {
			return nil, err
		}
		if n <= head {
			end = n
		}
	}
	if start >= end {
		return nil, ErrEmptyRange
	}
	metrics := map[common.Address]*SignerMetric{}
	entry := func(a common.Address) *SignerMetric {
		m := metrics[a]
		if m == nil {
			m = &SignerMetric{Address: a}
			metrics[a] = m
		}
		return m
	}
	for n := max(start, 0); n < end; n++ {
		header := a.chain.GetHeaderByNumber(uint64(n))
		if header == nil {
			continue
		}
		var signer common.Address // the genesis block's
		if n > 0 {
			s, err := a.e.signerOf(header)
			if err != nil {
				return nil, fmt.Errorf("%w: block %d: %v", ErrUnknownBlock, n, err)
			}
			signer = s
		}
		m := entry(signer)
		m.ProposedBlockCount++
		m.LastProposedBlockNumber = hexutil.Uint64(n)
		if n == end-1 {
			signers, err := a.signersAfter(header)
			if err != nil {
				return nil, err
			}
			for _, s := range signers {
				entry(s)
			}
		}
	}
	out := make([]SignerMetric, 0, len(metrics))
	for _, m := range metrics {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(x, y SignerMetric) int { return bytes.Compare(x.Address[:], y.Address[:]) })
	return out, nil
}

// resolveMetricsBlock is Besu's resolveBlockNumber: a number as given,
// "earliest" 0, "latest" and "pending" the head; "safe" and "finalized"
// name no number on a Clique chain (ErrBlockTag; Besu fails internally).
func resolveMetricsBlock(b rpctypes.BlockNumber, head int64) (int64, error) {
	switch b.Tag {
	case "":
		return b.Number, nil
	case "earliest":
		return 0, nil
	case "latest", "pending":
		return head, nil
	}
	return 0, ErrBlockTag
}
