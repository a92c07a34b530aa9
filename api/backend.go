// Package api holds the JSON-RPC methods, one file per API group, written
// against the node's services (chain, pool, miner). Front ends register
// them; no method reaches storage except through those services.
package api

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/miner"
	"github.com/basaltchain/basalt/rpc"
)

// TxPool is what the methods need from the transaction pool.
type TxPool interface {
	AddLocal(tx *types.Transaction) error
	PendingNonce(addr common.Address) uint64
	Get(hash common.Hash) *types.Transaction
}

// Backend gives the methods access to the node's services.
type Backend struct {
	Chain         *chain.Chain
	Pool          TxPool
	Miner         *miner.Miner
	NetworkID     uint64
	ClientVersion string
	MinGasPrice   *big.Int
	// Hashrate reports the local hash rate (nil when the engine has none).
	Hashrate       func() uint64
	SubmitHashrate func(id common.Hash, rate uint64)
}

// resolve returns the header a block parameter names, or nil when there is
// no such block (methods answer null then).
func (b *Backend) resolve(p BlockParam) (*types.Header, common.Hash) {
	c := b.Chain
	switch {
	case p.Negative:
		return nil, common.Hash{}
	case p.Hash != nil:
		h := c.GetHeaderByHash(*p.Hash)
		if h == nil {
			return nil, common.Hash{}
		}
		if p.RequireCanonical && c.GetCanonicalHash(h.Number.Uint64()) != *p.Hash {
			return nil, common.Hash{}
		}
		return h, *p.Hash
	case p.Tag == tagEarliest:
		return c.Genesis(), c.GenesisHash()
	case p.Tag != "":
		// latest, pending, safe and finalized are the head on these chains.
		return c.CurrentHeader(), c.CurrentHash()
	}
	hash := c.GetCanonicalHash(p.Number)
	if hash == (common.Hash{}) {
		return nil, hash
	}
	return c.GetHeader(hash, p.Number), hash
}

// stateAt opens the state after the block p names; nil state when there is
// no such block.
func (b *Backend) stateAt(p BlockParam) (*state.StateDB, *types.Header, error) {
	h, _ := b.resolve(p)
	if h == nil {
		return nil, nil, nil
	}
	st, err := b.Chain.StateAt(h.Root)
	if err != nil {
		return nil, nil, errWorldStateUnavail
	}
	return st, h, nil
}

// account reads an account of the state after the block p names; found is
// false when there is no such block. A missing account reads as empty.
func (b *Backend) account(p BlockParam, addr common.Address) (acct *types.StateAccount, root common.Hash, found bool, err error) {
	h, _ := b.resolve(p)
	if h == nil {
		return nil, common.Hash{}, false, nil
	}
	acct, err = b.Chain.Account(h.Root, addr)
	if err != nil {
		return nil, common.Hash{}, false, errWorldStateUnavail
	}
	return acct, h.Root, true, nil
}

// blockParamOrLatest defaults an absent block parameter to latest.
func blockParamOrLatest(p *BlockParam) BlockParam {
	if p == nil {
		return Latest
	}
	return *p
}

var _ = rpc.ErrInternal
