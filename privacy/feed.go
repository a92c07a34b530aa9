package privacy

import (
	"context"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy/privstate"
)

// logSub is one private log subscription.
type logSub struct {
	group common.Hash
	q     LogQuery
	fn    func(*types.Log) bool
}

// feed delivers the private logs of new canonical blocks to subscribers.
type feed struct {
	mu   sync.Mutex
	next int
	subs map[int]*logSub
}

// SubscribeLogs calls fn with every private log of group that q's
// addresses and topics select, in each block that becomes canonical from
// now on, until fn returns false or the returned cancel is called. Start
// must be running.
func (s *Service) SubscribeLogs(group common.Hash, q LogQuery, fn func(*types.Log) bool) (cancel func()) {
	s.feed.mu.Lock()
	defer s.feed.mu.Unlock()
	if s.feed.subs == nil {
		s.feed.subs = make(map[int]*logSub)
	}
	id := s.feed.next
	s.feed.next++
	s.feed.subs[id] = &logSub{group: group, q: q, fn: fn}
	return func() {
		s.feed.mu.Lock()
		delete(s.feed.subs, id)
		s.feed.mu.Unlock()
	}
}

// Run follows the chain's head and feeds the subscriptions until ctx ends.
func (s *Service) Run(ctx context.Context) {
	heads := make(chan chain.HeadEvent, 64)
	sub := s.chain.SubscribeHead(heads)
	defer sub.Unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sub.Err():
			return
		case ev := <-heads:
			for _, b := range ev.Added {
				s.deliver(b)
			}
		}
	}
}

func (s *Service) deliver(b *types.Block) {
	s.feed.mu.Lock()
	subs := make(map[int]*logSub, len(s.feed.subs))
	for id, x := range s.feed.subs {
		subs[id] = x
	}
	s.feed.mu.Unlock()
	if len(subs) == 0 {
		return
	}
	hash := s.chain.Hash(b.Header())
	rec, err := s.store.Record(hash)
	if err != nil || len(rec.Receipts) == 0 {
		return
	}
	for id, x := range subs {
		for _, l := range s.blockLogs(rec, hash, b.NumberU64(), func(r *privstate.Receipt) bool { return r.Group == x.group }) {
			if matches(l, x.q) && !x.fn(l) {
				s.feed.mu.Lock()
				delete(s.feed.subs, id)
				s.feed.mu.Unlock()
				break
			}
		}
	}
}
