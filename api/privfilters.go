package api

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
)

// privFilters are the polling private log filters (priv_newFilter and
// friends): each remembers its group, criteria and the last block it
// reported, and a poll reads the private logs of the blocks since.
type privFilters struct {
	mu   sync.Mutex
	byID map[string]*privFilter
	// subs holds the priv_subscribe subscriptions (*privSub) by id.
	subs sync.Map
}

type privFilter struct {
	group common.Hash
	args  FilterArgs
	last  uint64
	// lastHash is block last's hash when it was reported: a reorg since
	// makes the poll report the logs of the blocks that left as removed.
	lastHash common.Hash
}

func newPrivFilters() *privFilters { return &privFilters{byID: make(map[string]*privFilter)} }

func newFilterID() string {
	var b [16]byte
	rand.Read(b[:])
	return hexutil.Encode(b[:])
}

// NewFilter is priv_newFilter: a log filter on the group's private logs
// from the next block on.
func (p *Priv) NewFilter(group string, args FilterArgs) (string, error) {
	g, err := groupID(group)
	if err != nil {
		return "", err
	}
	id := newFilterID()
	p.fil.mu.Lock()
	last, lastHash := p.s.HeadHash()
	p.fil.byID[id] = &privFilter{group: g, args: args, last: last, lastHash: lastHash}
	p.fil.mu.Unlock()
	return id, nil
}

// UninstallFilter is priv_uninstallFilter.
func (p *Priv) UninstallFilter(group string, id string) (bool, error) {
	if _, err := groupID(group); err != nil {
		return false, err
	}
	p.fil.mu.Lock()
	defer p.fil.mu.Unlock()
	_, ok := p.fil.byID[id]
	delete(p.fil.byID, id)
	return ok, nil
}

func (p *Priv) filter(group, id string) (*privFilter, error) {
	g, err := groupID(group)
	if err != nil {
		return nil, err
	}
	p.fil.mu.Lock()
	f := p.fil.byID[id]
	p.fil.mu.Unlock()
	if f == nil || f.group != g {
		return nil, rpctypes.ErrFilterNotFound
	}
	return f, nil
}

// GetFilterChanges is priv_getFilterChanges: the filter's logs in the
// blocks added since the last poll, after those of the blocks a reorg
// took back since (removed: true, newest block first), as eth filters do.
func (p *Priv) GetFilterChanges(ctx context.Context, group, id string) ([]*LogJSON, error) {
	f, err := p.filter(group, id)
	if err != nil {
		return nil, err
	}
	p.fil.mu.Lock()
	last, lastHash := f.last, f.lastHash
	head, headHash := p.s.HeadHash()
	f.last, f.lastHash = head, headHash
	p.fil.mu.Unlock()
	fromBound, fromFixed := fixedBlock(f.args.FromBlock)
	toBound, toFixed := fixedBlock(f.args.ToBlock)
	removed, ancestor, err := p.s.RemovedSince(ctx, f.group, privacy.LogQuery{Addresses: f.args.Addresses, Topics: f.args.Topics},
		last, lastHash, func(n uint64) bool { return (!fromFixed || n >= fromBound) && (!toFixed || n <= toBound) })
	if err != nil {
		return nil, err
	}
	added, err := p.addedLogs(ctx, f, ancestor+1, head)
	if err != nil {
		return nil, err
	}
	return logsJSON(append(removed, added...)), nil
}

// fixedBlock is a filter bound given as a number.
func fixedBlock(b *rpctypes.BlockNumber) (uint64, bool) {
	if b == nil || b.Tag != "" {
		return 0, false
	}
	return uint64(max(b.Number, 0)), true
}

// addedLogs are f's logs in the canonical blocks from..head.
func (p *Priv) addedLogs(ctx context.Context, f *privFilter, from, head uint64) ([]*types.Log, error) {
	if from > head {
		return nil, nil
	}
	q := p.logQuery(f.args)
	q.BlockHash = nil
	q.From, q.To = max(q.From, from), min(q.To, head)
	if f.args.FromBlock == nil || f.args.FromBlock.Tag != "" {
		q.From = from
	}
	if f.args.ToBlock == nil || f.args.ToBlock.Tag != "" {
		q.To = head
	}
	if q.From > q.To {
		return nil, nil
	}
	return p.s.Logs(ctx, f.group, q)
}

// GetFilterLogs is priv_getFilterLogs: every log the filter's criteria
// select.
func (p *Priv) GetFilterLogs(ctx context.Context, group, id string) ([]*LogJSON, error) {
	f, err := p.filter(group, id)
	if err != nil {
		return nil, err
	}
	logs, err := p.s.Logs(ctx, f.group, p.logQuery(f.args))
	if err != nil {
		return nil, err
	}
	return logsJSON(logs), nil
}

// Subscribe is priv_subscribe (WebSocket only): [privacyGroupId, "logs",
// filter?]; every private log of the group the filter selects in each new
// canonical block comes as a priv_subscription notification.
func (p *Priv) Subscribe(ctx context.Context, group string, kind string, opts *json.RawMessage) (string, error) {
	n := rpc.NotifierFrom(ctx)
	if n == nil {
		return "", ErrNotificationsUnavailable
	}
	g, err := groupID(group)
	if err != nil {
		return "", err
	}
	if kind != "logs" {
		return "", rpctypes.ErrInvalidSubscriptionParams
	}
	var args FilterArgs
	if opts != nil && !isNull(*opts) {
		if err := args.UnmarshalJSON(*opts); err != nil {
			return "", rpctypes.ErrInvalidSubscriptionParams
		}
	}
	id := newFilterID()
	sub := new(privSub)
	p.fil.subs.Store(id, sub)
	n.OnClose(func() { p.dropSub(id) })
	// Notifications start once the answer with the id is queued, so that
	// none can overtake it.
	rpc.AfterResponse(ctx, func() {
		sub.mu.Lock()
		defer sub.mu.Unlock()
		if !sub.dropped {
			sub.cancel = p.s.SubscribeLogs(g, privacy.LogQuery{Addresses: args.Addresses, Topics: args.Topics}, func(l *types.Log) bool {
				return n.Notify(privSubscription(id, logJSON(l)))
			})
		}
	})
	return id, nil
}

// privSub is a priv_subscribe subscription: cancel ends its feed once it
// has started.
type privSub struct {
	mu      sync.Mutex
	cancel  func()
	dropped bool
}

// Unsubscribe is priv_unsubscribe: [privacyGroupId, subscriptionId].
func (p *Priv) Unsubscribe(ctx context.Context, group, id string) (bool, error) {
	if rpc.NotifierFrom(ctx) == nil {
		return false, ErrNotificationsUnavailable
	}
	if _, err := groupID(group); err != nil {
		return false, err
	}
	if !p.dropSub(id) {
		return false, ErrSubscriptionNotFound
	}
	return true, nil
}

func (p *Priv) dropSub(id string) bool {
	v, ok := p.fil.subs.LoadAndDelete(id)
	if ok {
		sub := v.(*privSub)
		sub.mu.Lock()
		sub.dropped = true
		if sub.cancel != nil {
			sub.cancel()
		}
		sub.mu.Unlock()
	}
	return ok
}
