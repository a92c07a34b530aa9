package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/basaltchain/basalt/rpctypes"
)

// TestWSSlowReaderManyHeadSubscriptions is web3 1.x's load: one connection
// with a newHeads subscription per pending transaction, blocks arriving
// faster than the client reads them. The client reads slowly but steadily:
// it is never dropped, every notification is accepted, the queue stays
// within its bounds (at most one spare entry per subscription, sharing the
// newest results), and every subscription ends up told of the last block.
func TestWSSlowReaderManyHeadSubscriptions(t *testing.T) {
	const (
		subs       = 300
		blocks     = 150
		resultSize = 16 << 10
		maxBytes   = 1 << 20
	)
	reg := testRegistry(t)
	notifiers := make(chan Notifier, 1)
	if err := reg.RegisterGroup(rpctypes.GroupEth, []rpctypes.Method{{Name: "eth_heads", Fn: func(ctx context.Context) string {
		notifiers <- NotifierFrom(ctx)
		return "ok"
	}}}); err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(reg, Config{Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	h := NewWSHandler(srv, WSConfig{SendQueueBytes: maxBytes, Logger: quietLogger})
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	c := dialWS(t, "ws"+strings.TrimPrefix(ts.URL, "http"))
	if got := roundTrip(t, c, `{"id":1,"method":"eth_heads"}`); got != `{"jsonrpc":"2.0","id":1,"result":"ok"}` {
		t.Fatal(got)
	}
	nt := <-notifiers
	conn := nt.(*wsConn)

	// The node: each block's result encoded once (a fresh buffer, of one
	// size), handed to every subscription.
	type check struct {
		refused   bool
		violation string
	}
	produced := make(chan check, 1)
	go func() {
		var res check
		defer func() { produced <- res }()
		for b := 1; b <= blocks; b++ {
			result := fmt.Appendf(nil, `{"number":"0x%08x","pad":"%s"}`, b, strings.Repeat("x", resultSize-32))
			for s := 1; s <= subs; s++ {
				if !nt.NotifySubscription(Notification{Method: "eth_subscription", ID: fmt.Sprintf("0x%x", s), Result: result, Latest: true}) {
					res.refused = true
					return
				}
			}
			if v := queueViolation(&conn.notes, subs, maxBytes, len(result)); v != "" && res.violation == "" {
				res.violation = fmt.Sprintf("after block %d: %s", b, v)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()

	// The client: a millisecond per message, far below what is offered.
	newest := make(map[string]uint64)
	done := 0
	for done < subs {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, msg, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("the reading client lost its connection: %v", err)
		}
		var n struct {
			Params struct {
				Subscription string
				Result       struct{ Number string }
			}
		}
		if err := json.Unmarshal(msg, &n); err != nil {
			t.Fatalf("notification %.100s: %v", msg, err)
		}
		var num uint64
		fmt.Sscanf(n.Params.Result.Number, "0x%x", &num)
		id := n.Params.Subscription
		if num <= newest[id] {
			t.Fatalf("subscription %s: block %d after %d", id, num, newest[id])
		}
		newest[id] = num
		if num == blocks {
			done++
		}
		time.Sleep(time.Millisecond)
	}
	res := <-produced
	if res.refused {
		t.Fatal("a notification was refused: the reading client was dropped")
	}
	if res.violation != "" {
		t.Fatal(res.violation)
	}
	if conn.notes.coalesced == 0 {
		t.Fatal("no notification was coalesced: the client was not slow")
	}
	if got := roundTrip(t, c, `{"id":2,"method":"eth_blockNumber"}`); got != `{"jsonrpc":"2.0","id":2,"result":"0x2a"}` {
		t.Fatalf("after the blocks: %s", got)
	}
	if h.Connections() != 1 {
		t.Fatalf("%d connections", h.Connections())
	}
}

// queueViolation checks the queue's bounds: entries within the bounds hold
// at most maxBytes, there is at most one spare per subscription, and the
// distinct results held (what the queue really costs) take at most
// maxBytes plus two results.
func queueViolation(q *noteQueue, subs, maxBytes, resultSize int) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.bytes > maxBytes {
		return fmt.Sprintf("%d bytes within the bounds, over %d", q.bytes, maxBytes)
	}
	if q.spares > subs {
		return fmt.Sprintf("%d spares for %d subscriptions", q.spares, subs)
	}
	results := make(map[*byte]bool)
	for _, e := range q.buf[q.head:] {
		results[unsafe.SliceData(e.n.Result)] = true
	}
	if held := len(results) * resultSize; held > maxBytes+2*resultSize {
		return fmt.Sprintf("%d distinct results held (%d bytes)", len(results), held)
	}
	return ""
}
