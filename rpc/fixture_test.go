package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/rpctypes"
)

// blockNum is a parameter type that reports its own error, like the
// block-parameter types of the api package will.
type blockNum uint64

func (b *blockNum) UnmarshalJSON(in []byte) error {
	var s string
	if err := json.Unmarshal(in, &s); err != nil {
		return rpctypes.ErrInvalidBlockNumberParams
	}
	if s == "latest" {
		*b = 42
		return nil
	}
	n, err := hexutil.DecodeUint64(s)
	if err != nil {
		return rpctypes.ErrInvalidBlockNumberParams
	}
	*b = blockNum(n)
	return nil
}

type panicMarshaler struct{}

func (panicMarshaler) MarshalJSON() ([]byte, error) { panic("marshal boom") }

type testBlock struct {
	Number hexutil.Uint64 `json:"number"`
	Hash   common.Hash    `json:"hash"`
}

// testRegistry registers the methods the tests call.
func testRegistry(t testing.TB) *Registry {
	t.Helper()
	reg := NewRegistry()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(reg.RegisterGroup(rpctypes.GroupEth, []rpctypes.Method{
		{Name: "eth_blockNumber", Fn: func() (hexutil.Uint64, error) { return 0x2a, nil }},
		{Name: "eth_getBalance", Fn: func(ctx context.Context, addr common.Address, block string) (*hexutil.Big, error) {
			return (*hexutil.Big)(addr.Big()), nil
		}},
		{Name: "eth_echo", Fn: func(s string, n *int) (map[string]any, error) {
			return map[string]any{"s": s, "n": n}, nil
		}},
		{Name: "eth_block", Fn: func(n blockNum) (*testBlock, error) {
			if n == 0 {
				return nil, nil
			}
			return &testBlock{Number: hexutil.Uint64(n)}, nil
		}},
		{Name: "eth_paramErrs", Fn: func(a common.Address, b hexutil.Uint64) bool { return true },
			ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidAddressParams, rpctypes.ErrInvalidBlockIndexParams}},
		{Name: "eth_extra", Fn: func(a string) string { return a }, AllowExtraParams: true},
		{Name: "eth_ordered", Fn: func(a common.Address, b blockNum) string { return a.Hex() },
			ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidAddressParams, rpctypes.ErrInvalidBlockParams}, ParamOrder: []int{1}},
		{Name: "eth_defaulted", Fn: func(a common.Address, b blockNum, c *int) string { return fmt.Sprint(a.Hex(), " ", b, " ", c != nil) },
			ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidAddressParams, rpctypes.ErrInvalidBlockParams}, ParamOrder: []int{1},
			ParamDefaults: []json.RawMessage{1: json.RawMessage(`"latest"`)}},
		{Name: "eth_defaultedInOrder", Fn: func(a common.Address, b blockNum) string { return fmt.Sprint(a.Hex(), " ", b) },
			ParamErrors:   []*rpctypes.Error{rpctypes.ErrInvalidAddressParams, rpctypes.ErrInvalidBlockParams},
			ParamDefaults: []json.RawMessage{1: json.RawMessage(`"latest"`)}},
		{Name: "eth_exact", Fn: func(a string, b *string) string { return a },
			ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidTransactionHashParams}, ExactParamCount: true},
		{Name: "eth_panic", Fn: func() (string, error) { panic("boom") }},
		{Name: "eth_fail", Fn: func() (string, error) { return "", errors.New("disk on fire") }},
		{Name: "eth_rpcErr", Fn: func() (string, error) { return "", fmt.Errorf("lookup: %w", rpctypes.ErrFilterNotFound) }},
		{Name: "eth_revert", Fn: func() (string, error) {
			data := hexutil.MustDecode("0x08c379a0" +
				"0000000000000000000000000000000000000000000000000000000000000020" +
				"0000000000000000000000000000000000000000000000000000000000000004" +
				"6e6f706500000000000000000000000000000000000000000000000000000000")
			return "", rpctypes.Revert(data)
		}},
		{Name: "eth_invalidRequest", Fn: func() error { return rpctypes.ErrInvalidRequest }},
		{Name: "eth_success", Fn: func() error { return nil }},
		{Name: "eth_nothing", Fn: func() {}},
		{Name: "eth_text", Fn: func() string { return "a\"b<c>&\u2028\x01é" }},
		{Name: "eth_unencodable", Fn: func() (any, error) { return map[string]any{"f": func() {}}, nil }},
		{Name: "eth_marshalPanic", Fn: func() (any, error) { return panicMarshaler{}, nil }},
		{Name: "eth_slow", Fn: func(ctx context.Context) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}},
		{Name: "eth_stubborn", Fn: func() string { time.Sleep(150 * time.Millisecond); return "late" }},
		{Name: "eth_sleep", Fn: func(ctx context.Context, ms int) (int, error) {
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return ms, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}},
		{Name: "eth_whoami", Fn: func(ctx context.Context) string {
			if c := CallerFrom(ctx); c != nil {
				return c.User
			}
			return ""
		}},
	}))
	must(reg.Register(rpctypes.GroupAdmin, "admin_peers", func() []string { return []string{} }))
	must(reg.Register("", "net_version", func() string { return "1337" }))
	must(reg.Register("web3", "web3_clientVersion", func() string { return "basalt/test" }))
	return reg
}

// quietLogger discards the logs of deliberate failures.
var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// startServer serves the test registry over a real loopback listener.
func startServer(t testing.TB, cfg Config, hcfg HTTPConfig) (*httptest.Server, *Server) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger
	}
	srv, err := NewServer(testRegistry(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(NewHTTPHandler(srv, hcfg))
	t.Cleanup(ts.Close)
	return ts, srv
}

type httpResult struct {
	status int
	body   string
	header http.Header
}

// do sends a request and returns the answer.
func do(t testing.TB, method, url, body string, header map[string]string) httpResult {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return httpResult{status: resp.StatusCode, body: string(b), header: resp.Header}
}

func post(t testing.TB, url, body string) httpResult {
	t.Helper()
	return do(t, http.MethodPost, url, body, nil)
}

func check(t *testing.T, name string, got httpResult, status int, body string) {
	t.Helper()
	if got.status != status || got.body != body {
		t.Errorf("%s:\n got  %d %s\n want %d %s", name, got.status, got.body, status, body)
	}
}
