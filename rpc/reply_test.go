package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/basaltchain/basalt/rpctypes"
)

// TestDeferUntilReply: in a batch, work a handler defers runs once every
// element has been handled and before the answer is written, in request
// order; a failure replaces its element's answer with the error (mapped
// by the group); a single request gets false and does the work itself.
// Run sequentially and with concurrent batch workers.
func TestDeferUntilReply(t *testing.T) {
	errDisk := errors.New("disk on fire")
	var (
		mu      sync.Mutex
		handled []string // "h:<arg>" when the handler ran, "w:<arg>" when its work did
	)
	note := func(s string) {
		mu.Lock()
		handled = append(handled, s)
		mu.Unlock()
	}
	reg := NewRegistry()
	err := reg.RegisterGroups([]rpctypes.Group{{Name: rpctypes.GroupEth, Methods: []rpctypes.Method{
		{Name: "eth_put", Fn: func(ctx context.Context, arg string) (string, error) {
			note("h:" + arg)
			work := func() error {
				note("w:" + arg)
				if strings.HasPrefix(arg, "fail") {
					return errDisk
				}
				return nil
			}
			if !rpctypes.DeferUntilReply(ctx, work) {
				if err := work(); err != nil {
					return "", err
				}
				return "now:" + arg, nil
			}
			return "later:" + arg, nil
		}},
	}, Errors: func(err error) *rpctypes.Error {
		if errors.Is(err, errDisk) {
			return &rpctypes.Error{Code: -32000, Message: "journal: " + err.Error()}
		}
		return nil
	}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, conc := range []int{1, 4} {
		t.Run(fmt.Sprint("workers ", conc), func(t *testing.T) {
			srv, err := NewServer(reg, Config{Logger: quietLogger, BatchConcurrency: conc})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()

			handled = nil
			resp, _ := srv.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_put","params":["a"]}`))
			if want := `{"jsonrpc":"2.0","id":1,"result":"now:a"}`; string(resp) != want {
				t.Errorf("single: %s, want %s", resp, want)
			}

			handled = nil
			resp, _ = srv.HandleMessage(ctx, []byte(`[
				{"jsonrpc":"2.0","id":1,"method":"eth_put","params":["a"]},
				{"jsonrpc":"2.0","method":"eth_put","params":["notified"]},
				{"jsonrpc":"2.0","id":2,"method":"eth_put","params":["fail-b"]},
				{"jsonrpc":"2.0","id":"x","method":"eth_nope"},
				{"jsonrpc":"2.0","id":3,"method":"eth_put","params":["c"]}]`))
			want := `[{"jsonrpc":"2.0","id":1,"result":"later:a"},` +
				`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"journal: disk on fire"}},` +
				`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found"}},` +
				`{"jsonrpc":"2.0","id":3,"result":"later:c"}]`
			if string(resp) != want {
				t.Errorf("batch:\n got %s\nwant %s", resp, want)
			}
			// Every handler ran before any work, and the work in request
			// order.
			var works []string
			for i, h := range handled {
				if strings.HasPrefix(h, "w:") {
					works = append(works, h)
					continue
				}
				if len(works) > 0 {
					t.Errorf("handler %s ran after deferred work (%v)", h, handled[:i])
				}
			}
			if got := strings.Join(works, " "); got != "w:a w:fail-b w:c" {
				t.Errorf("deferred work ran as %q, want in request order", got)
			}
		})
	}
}
