// Package api holds the JSON-RPC method groups, one file per group, on the
// node's services (package backend): each method decodes its parameters
// into plain Go values, calls the services and encodes the answer in
// Besu's shapes. The services' domain errors are mapped once, in
// jsonrpcerrors.go. No method reaches storage except through the node's
// services (chain, pool, miner).
package api

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// headerFor resolves a block-or-hash parameter the way Besu's
// AbstractBlockParameterOrBlockHashMethod does: a negative number is an
// invalid block number, a block that does not exist (a number past the
// head, an unknown hash) is a nil header (the method answers null), and a
// hash that must be canonical but is not is ErrNotCanonical.
func headerFor(b *backend.Backend, p BlockParam) (*types.Header, common.Hash, error) {
	c := b.Chain
	switch {
	case p.Hash != nil:
		h := c.GetHeaderByHash(*p.Hash)
		if h == nil {
			return nil, common.Hash{}, nil
		}
		if p.RequireCanonical && c.GetCanonicalHash(h.Number.Uint64()) != *p.Hash {
			return nil, common.Hash{}, backend.ErrNotCanonical
		}
		return h, *p.Hash, nil
	case p.Tag == rpctypes.TagEarliest:
		return c.Genesis(), c.GenesisHash(), nil
	case p.Tag != "":
		// latest, pending, safe and finalized are the head on these chains.
		return c.CurrentHeader(), c.CurrentHash(), nil
	case p.Number < 0:
		return nil, common.Hash{}, backend.InvalidParams(backend.ParamBlockNumber, "")
	}
	h, hash := b.Canonical(uint64(p.Number))
	return h, hash, nil
}

// headerForNumber resolves a plain block parameter (Besu's
// AbstractBlockParameterMethod); nil when there is no such block.
func headerForNumber(b *backend.Backend, p rpctypes.BlockNumber) (*types.Header, common.Hash) {
	c := b.Chain
	switch {
	case p.Tag == rpctypes.TagEarliest:
		return c.Genesis(), c.GenesisHash()
	case p.Tag != "":
		return c.CurrentHeader(), c.CurrentHash()
	case p.Number < 0:
		return nil, common.Hash{}
	}
	return b.Canonical(uint64(p.Number))
}
