package filters

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Bound is one end of a block range: a block number, or the head at the
// time of the query (latest, pending, safe and finalized on these chains).
type Bound struct {
	Head   bool
	Number uint64
}

// Head is the Bound "the current head".
var Head = Bound{Head: true}

func (b Bound) resolve(head uint64) uint64 {
	if b.Head {
		return head
	}
	return b.Number
}

// Query is a log query: the logs of one block (BlockHash) or of the
// canonical blocks From..To, that match Criteria.
type Query struct {
	BlockHash *common.Hash
	From, To  Bound
	Criteria  *Criteria
}

// ctxCheckInterval is how many blocks a scan goes between looks at its
// context.
const ctxCheckInterval = 256

// Logs runs a log query. Like Besu, the range is checked against
// MaxLogsRange before it is clamped to the head, the head is read once (so
// latest..latest is one block), a range past the head ends at the head and
// a range that ends before it starts is empty. Only blocks whose header
// bloom may match have their receipts read. The scan stops with ctx's error
// when ctx ends, and with ErrTooManyResults past MaxLogResults.
func (s *System) Logs(ctx context.Context, q Query) ([]*types.Log, error) {
	crit := q.Criteria
	if crit == nil {
		crit = &Criteria{}
	}
	out := []*types.Log{}
	if q.BlockHash != nil {
		h := s.chain.GetHeaderByHash(*q.BlockHash)
		if h == nil {
			return nil, ErrBlockNotFound
		}
		if s.mayMatch(crit, &h.Bloom) {
			out = append(out, s.logsAt(*q.BlockHash, &h.Bloom, h.Number.Uint64(), crit, false)...)
		}
		return out, s.checkResults(out)
	}

	head := s.chain.CurrentHeader().Number.Uint64()
	from, to := q.From.resolve(head), q.To.resolve(head)
	if max := s.cfg.MaxLogsRange; max > 0 && to > from && to-from > uint64(max) {
		return nil, ErrRangeTooLarge
	}
	to = min(to, head)
	if from > to {
		return out, nil
	}
	var (
		err  error
		seen int
	)
	scanErr := s.chain.CanonicalBlooms(from, to, func(number uint64, hash common.Hash, bloom *types.Bloom) bool {
		if seen++; seen%ctxCheckInterval == 0 {
			if err = ctx.Err(); err != nil {
				return false
			}
		}
		if !s.mayMatch(crit, bloom) {
			return true
		}
		out = append(out, s.logsAt(hash, bloom, number, crit, false)...)
		if err = s.checkResults(out); err != nil {
			return false
		}
		err = ctx.Err()
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if scanErr != nil {
		return nil, scanErr
	}
	return out, nil
}

func (s *System) checkResults(logs []*types.Log) error {
	if max := s.cfg.MaxLogResults; max > 0 && len(logs) > max {
		return s.tooManyResults()
	}
	return nil
}
