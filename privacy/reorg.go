package privacy

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/privacy/privstate"
)

// HeadHash returns the canonical head's number and engine hash, read
// together.
func (s *Service) HeadHash() (uint64, common.Hash) {
	h := s.chain.CurrentHeader()
	return h.Number.Uint64(), s.chain.Hash(h)
}

// RemovedSince is what a reorg took back from a poller whose last seen
// block was (number, hash): the private logs of group that q's addresses
// and topics select in the blocks of that branch that are no longer
// canonical, newest block first, marked removed, keep deciding by block
// number which blocks count; and the number of the branch's newest block
// that is still canonical, from which the poller goes on. Nothing is
// removed while hash is canonical.
func (s *Service) RemovedSince(ctx context.Context, group common.Hash, q LogQuery, number uint64, hash common.Hash,
	keep func(uint64) bool) ([]*types.Log, uint64, error) {
	out := []*types.Log{}
	for s.chain.GetCanonicalHash(number) != hash {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		h := s.chain.GetHeaderByHash(hash)
		if h == nil || number == 0 {
			break // not stored: nothing to take back
		}
		if keep(number) {
			rec, err := s.store.Record(hash)
			if err != nil {
				return nil, 0, err
			}
			for _, l := range s.blockLogs(rec, hash, number, func(r *privstate.Receipt) bool { return r.Group == group }) {
				if matches(l, q) {
					l.Removed = true
					out = append(out, l)
				}
			}
		}
		hash, number = h.ParentHash, number-1
	}
	return out, number, nil
}
