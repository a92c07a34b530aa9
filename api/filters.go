package api

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
)

// Filters is the JSON-RPC face of the node's filter system (package
// filters): eth_getLogs, the polling filters and, over WebSocket,
// eth_subscribe / eth_unsubscribe.
type Filters struct {
	b    *backend.Backend
	sys  *filters.System
	subs *connSubs

	encodeHashes, encodeFull func(*filters.Event) []byte
}

// filterMethods are eth_getLogs, the filter methods and eth_subscribe /
// eth_unsubscribe, which join the ETH group. There are none without a filter
// system (b.Filters), so those methods then answer "Method not enabled".
func filterMethods(b *backend.Backend) []rpctypes.Method {
	if b.Filters == nil {
		return nil
	}
	f := &Filters{b: b, sys: b.Filters, subs: &connSubs{byConn: make(map[rpc.Notifier]map[string]struct{})}}
	f.encodeHashes = func(ev *filters.Event) []byte { return f.encodeEvent(ev, false) }
	f.encodeFull = func(ev *filters.Event) []byte { return f.encodeEvent(ev, true) }
	filter := []*rpctypes.Error{rpctypes.ErrInvalidFilterParams}
	sub := []*rpctypes.Error{rpctypes.ErrInvalidSubscriptionParams, rpctypes.ErrInvalidSubscriptionParams}
	return []rpctypes.Method{
		{Name: "eth_getLogs", Fn: f.GetLogs, ParamErrors: filter},
		{Name: "eth_newFilter", Fn: f.NewFilter, ParamErrors: filter},
		{Name: "eth_newBlockFilter", Fn: f.NewBlockFilter},
		{Name: "eth_newPendingTransactionFilter", Fn: f.NewPendingTransactionFilter},
		{Name: "eth_getFilterChanges", Fn: f.GetFilterChanges, ParamErrors: filter},
		{Name: "eth_getFilterLogs", Fn: f.GetFilterLogs, ParamErrors: filter},
		{Name: "eth_uninstallFilter", Fn: f.UninstallFilter, ParamErrors: filter},
		{Name: "eth_subscribe", Fn: f.Subscribe, ParamErrors: sub},
		{Name: "eth_unsubscribe", Fn: f.Unsubscribe, ParamErrors: sub},
	}
}

// FilterArgs is the filter options object of eth_getLogs and eth_newFilter
// (Besu's FilterParameter): fromBlock and toBlock (a tag or a number,
// default latest), or blockHash (also spelled blockhash); address (one or a
// list); topics (per position: null for any, a topic, or a list of
// alternatives, in which a null also means any).
type FilterArgs struct {
	FromBlock, ToBlock *rpctypes.BlockNumber
	BlockHash          *common.Hash
	Addresses          []common.Address
	Topics             [][]common.Hash
}

// UnmarshalJSON reads a filter object. A malformed one is -32602 "Invalid
// filter params", as are blockHash together with a range; a numeric
// fromBlock after a numeric toBlock is -32602 "Invalid params" (Besu).
func (f *FilterArgs) UnmarshalJSON(data []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return rpctypes.ErrInvalidFilterParams
	}
	var out FilterArgs
	var err error
	if out.FromBlock, err = filterBlock(obj["fromBlock"]); err != nil {
		return err
	}
	if out.ToBlock, err = filterBlock(obj["toBlock"]); err != nil {
		return err
	}
	for _, key := range []string{"blockHash", "blockhash"} {
		raw, ok := obj[key]
		if !ok || isNull(raw) {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return rpctypes.ErrInvalidFilterParams
		}
		h, err := parseLenientHash(s)
		if err != nil {
			return rpctypes.ErrInvalidFilterParams
		}
		out.BlockHash = &h
	}
	if out.Addresses, err = filterAddresses(obj["address"]); err != nil {
		return err
	}
	if out.Topics, err = filterTopics(obj["topics"]); err != nil {
		return err
	}
	if out.BlockHash != nil && (out.FromBlock != nil || out.ToBlock != nil) {
		return rpctypes.ErrInvalidFilterParams
	}
	if from, to := out.FromBlock, out.ToBlock; from != nil && to != nil && from.Tag == "" && to.Tag == "" && from.Number > to.Number {
		return rpctypes.ErrInvalidParams
	}
	*f = out
	return nil
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// filterBlock reads fromBlock or toBlock; nil means latest.
func filterBlock(raw json.RawMessage) (*rpctypes.BlockNumber, error) {
	if isNull(raw) {
		return nil, nil
	}
	var b rpctypes.BlockNumber
	if b.UnmarshalJSON(raw) != nil || (b.Tag == "" && b.Number < 0) {
		return nil, rpctypes.ErrInvalidFilterParams
	}
	return &b, nil
}

func filterAddresses(raw json.RawMessage) ([]common.Address, error) {
	if isNull(raw) {
		return nil, nil
	}
	var list []json.RawMessage
	if raw[0] != '[' {
		list = []json.RawMessage{raw}
	} else if json.Unmarshal(raw, &list) != nil {
		return nil, rpctypes.ErrInvalidFilterParams
	}
	out := make([]common.Address, 0, len(list))
	for _, item := range list {
		var s string
		if json.Unmarshal(item, &s) != nil {
			return nil, rpctypes.ErrInvalidFilterParams
		}
		b, err := rpctypes.LenientHex(s, common.AddressLength)
		if err != nil || s == "" {
			return nil, rpctypes.ErrInvalidFilterParams
		}
		out = append(out, common.BytesToAddress(b))
	}
	return out, nil
}

// filterTopics reads topics; a position given as null, or as a list that
// contains null, matches any topic (an empty list).
func filterTopics(raw json.RawMessage) ([][]common.Hash, error) {
	if isNull(raw) {
		return nil, nil
	}
	topic := func(item json.RawMessage) (common.Hash, error) {
		var s string
		if json.Unmarshal(item, &s) != nil {
			return common.Hash{}, rpctypes.ErrInvalidFilterParams
		}
		h, err := parseLenientHash(s)
		if err != nil || s == "" {
			return common.Hash{}, rpctypes.ErrInvalidFilterParams
		}
		return h, nil
	}
	if raw[0] != '[' {
		t, err := topic(raw)
		if err != nil {
			return nil, err
		}
		return [][]common.Hash{{t}}, nil
	}
	var positions []json.RawMessage
	if json.Unmarshal(raw, &positions) != nil {
		return nil, rpctypes.ErrInvalidFilterParams
	}
	out := make([][]common.Hash, len(positions))
	for i, pos := range positions {
		switch {
		case isNull(pos):
		case pos[0] == '[':
			var alts []json.RawMessage
			if json.Unmarshal(pos, &alts) != nil {
				return nil, rpctypes.ErrInvalidFilterParams
			}
			var list []common.Hash
			wildcard := false
			for _, a := range alts {
				if isNull(a) {
					wildcard = true
					continue
				}
				t, err := topic(a)
				if err != nil {
					return nil, err
				}
				list = append(list, t)
			}
			if !wildcard {
				out[i] = list
			}
		default:
			t, err := topic(pos)
			if err != nil {
				return nil, err
			}
			out[i] = []common.Hash{t}
		}
	}
	return out, nil
}

// bound converts a fromBlock/toBlock parameter.
func bound(b *rpctypes.BlockNumber) filters.Bound {
	switch {
	case b == nil:
		return filters.Head
	case b.Tag == rpctypes.TagEarliest:
		return filters.Bound{}
	case b.Tag != "":
		return filters.Head // latest, pending, safe and finalized
	}
	return filters.Bound{Number: uint64(b.Number)}
}

func (f *FilterArgs) criteria() (*filters.Criteria, error) {
	c, err := filters.NewCriteria(f.Addresses, f.Topics)
	if err != nil {
		return nil, rpctypes.ErrInvalidFilterParams.WithReason(err.Error())
	}
	return c, nil
}

func logsJSON(logs []*types.Log) []*LogJSON {
	out := make([]*LogJSON, len(logs))
	for i, l := range logs {
		out[i] = logJSON(l)
	}
	return out
}

// GetLogs is eth_getLogs.
func (f *Filters) GetLogs(ctx context.Context, args FilterArgs) ([]*LogJSON, error) {
	crit, err := args.criteria()
	if err != nil {
		return nil, err
	}
	q := filters.Query{BlockHash: args.BlockHash, From: bound(args.FromBlock), To: bound(args.ToBlock), Criteria: crit}
	logs, err := f.b.Logs(ctx, q)
	if err != nil {
		return nil, err
	}
	return logsJSON(logs), nil
}

// NewFilter is eth_newFilter.
func (f *Filters) NewFilter(args FilterArgs) (string, error) {
	crit, err := args.criteria()
	if err != nil {
		return "", err
	}
	return f.sys.NewLogFilter(bound(args.FromBlock), bound(args.ToBlock), crit)
}

// NewBlockFilter is eth_newBlockFilter.
func (f *Filters) NewBlockFilter() (string, error) { return f.sys.NewBlockFilter() }

// NewPendingTransactionFilter is eth_newPendingTransactionFilter.
func (f *Filters) NewPendingTransactionFilter() (string, error) {
	return f.sys.NewPendingTxFilter()
}

// FilterID is a filter id parameter. Like Besu (which reads it as a
// string), any string or number is accepted; one that names no filter is
// "Filter not found".
type FilterID string

// UnmarshalJSON implements json.Unmarshaler.
func (id *FilterID) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*id = FilterID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(data, &n); err != nil {
		return rpctypes.ErrInvalidFilterParams
	}
	*id = FilterID(n)
	return nil
}

// UninstallFilter is eth_uninstallFilter.
func (f *Filters) UninstallFilter(id FilterID) bool { return f.sys.Uninstall(string(id)) }

// GetFilterChanges is eth_getFilterChanges: block hashes, transaction hashes
// or log objects by the filter's kind.
func (f *Filters) GetFilterChanges(ctx context.Context, id FilterID) (any, error) {
	ch, err := f.sys.Changes(ctx, string(id))
	switch {
	case err != nil:
		return nil, err
	case ch.Kind == filters.KindLogs:
		return logsJSON(ch.Logs), nil
	}
	if ch.Hashes == nil {
		ch.Hashes = []common.Hash{}
	}
	return ch.Hashes, nil
}

// GetFilterLogs is eth_getFilterLogs (log filters only).
func (f *Filters) GetFilterLogs(ctx context.Context, id FilterID) ([]*LogJSON, error) {
	logs, err := f.sys.FilterLogs(ctx, string(id))
	if err != nil {
		return nil, err
	}
	return logsJSON(logs), nil
}

// MaxSubscriptionsPerConnection caps the subscriptions of one WebSocket
// connection (-32005 past it).
const MaxSubscriptionsPerConnection = 1000

// connSubs tracks the subscriptions of each connection, so a connection
// can only end its own and its subscriptions end with it.
type connSubs struct {
	mu     sync.Mutex
	byConn map[rpc.Notifier]map[string]struct{}
}

// Subscribe is eth_subscribe (WebSocket only): "newHeads" (option
// includeTransactions), "logs" (option: address and topics as in a filter
// object), "newPendingTransactions" (option includeTransactions) or
// "syncing". Notifications are {"jsonrpc":"2.0","method":"eth_subscription",
// "params":{"subscription":id,"result":…}}; the result is the block object
// (as eth_getBlockByHash), the log object, or the transaction hash (the
// transaction object with includeTransactions).
func (f *Filters) Subscribe(ctx context.Context, kind string, opts *json.RawMessage) (string, error) {
	n := rpc.NotifierFrom(ctx)
	if n == nil {
		return "", ErrNotificationsUnavailable // over HTTP
	}
	var (
		k    filters.Kind
		crit *filters.Criteria
		full bool
	)
	switch kind {
	case "newHeads", "newPendingTransactions":
		k = filters.KindBlocks
		if kind == "newPendingTransactions" {
			k = filters.KindPendingTxs
		}
		if opts != nil && !isNull(*opts) {
			var o struct {
				IncludeTransactions *bool `json:"includeTransactions"`
			}
			if err := json.Unmarshal(*opts, &o); err != nil {
				return "", rpctypes.ErrInvalidSubscriptionParams
			}
			full = o.IncludeTransactions != nil && *o.IncludeTransactions
		}
	case "logs":
		k = filters.KindLogs
		var args FilterArgs
		if opts != nil && !isNull(*opts) {
			if err := args.UnmarshalJSON(*opts); err != nil {
				return "", rpctypes.ErrInvalidSubscriptionParams
			}
		}
		var err error
		if crit, err = filters.NewCriteria(args.Addresses, args.Topics); err != nil {
			return "", rpctypes.ErrInvalidSubscriptionParams.WithReason(err.Error())
		}
	case "syncing":
		k = filters.KindSyncing
	default:
		return "", rpctypes.ErrInvalidSubscriptionParams
	}

	f.subs.mu.Lock()
	own, known := f.subs.byConn[n]
	if len(own) >= MaxSubscriptionsPerConnection {
		f.subs.mu.Unlock()
		return "", ErrTooManySubscriptions
	}
	if !known {
		own = make(map[string]struct{})
		f.subs.byConn[n] = own
	}
	variant, encode := 0, f.encodeHashes
	if full {
		variant, encode = 1, f.encodeFull
	}
	var sub *filters.Subscription
	sub = f.sys.Subscribe(k, crit, func(ev *filters.Event) bool {
		payload := ev.Encoded(variant, encode)
		if payload == nil {
			return true // nothing to say (the block vanished)
		}
		// The payload is the event's one encoding, shared by every
		// subscription (web3 1.x opens a newHeads subscription per
		// pending transaction); a newer head may replace a waiting one
		// for a client that reads slowly.
		return n.NotifySubscription(rpc.Notification{Method: "eth_subscription", ID: sub.ID(), Result: payload, Latest: k == filters.KindBlocks})
	})
	own[sub.ID()] = struct{}{}
	f.subs.mu.Unlock()

	if !known {
		n.OnClose(func() { f.dropConn(n) })
	}
	rpc.AfterResponse(ctx, sub.Activate)
	return sub.ID(), nil
}

// Unsubscribe is eth_unsubscribe: true, or ErrSubscriptionNotFound for an
// id that is not one of this connection's subscriptions.
func (f *Filters) Unsubscribe(ctx context.Context, id string) (bool, error) {
	n := rpc.NotifierFrom(ctx)
	if n == nil {
		return false, ErrNotificationsUnavailable
	}
	f.subs.mu.Lock()
	_, ok := f.subs.byConn[n][id]
	delete(f.subs.byConn[n], id)
	f.subs.mu.Unlock()
	if !ok || !f.sys.Unsubscribe(id) {
		return false, ErrSubscriptionNotFound
	}
	return true, nil
}

// dropConn ends the subscriptions of a closed connection.
func (f *Filters) dropConn(n rpc.Notifier) {
	f.subs.mu.Lock()
	own := f.subs.byConn[n]
	delete(f.subs.byConn, n)
	f.subs.mu.Unlock()
	for id := range own {
		f.sys.Unsubscribe(id)
	}
}

// encodeEvent renders a subscription event's result, with full
// transaction objects or hashes; nil when there is nothing to send.
func (f *Filters) encodeEvent(ev *filters.Event, full bool) []byte {
	var v any
	switch ev.Kind {
	case filters.KindBlocks:
		b := (&Eth{f.b}).blockJSON(ev.Header, ev.Hash, full)
		if b == nil {
			return nil
		}
		v = b
	case filters.KindLogs:
		v = logJSON(ev.Log)
	case filters.KindPendingTxs:
		if !full {
			v = ev.Hash
		} else {
			v = txJSON(f.b.Chain.Config(), ev.Tx, nil)
		}
	default:
		return nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return out
}
