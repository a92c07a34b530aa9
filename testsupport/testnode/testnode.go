// Package testnode runs real basalt processes for end-to-end tests: it
// builds the binary once per test binary, starts nodes on loopback with
// free ports, and talks JSON-RPC to them.
package testnode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

// Binary builds ./cmd/basalt (once per test binary) and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	return proctest.Build(t, "./cmd/basalt")
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	return proctest.FreePort(t)
}

// Node is a running basalt process.
type Node struct {
	t     testing.TB
	proc  *proctest.Process
	URL   string // JSON-RPC HTTP endpoint
	WSURL string // JSON-RPC WebSocket endpoint, "" unless started by StartWS
	// GraphQLURL is the GraphQL endpoint (http://…/graphql), "" unless
	// started by StartGraphQL.
	GraphQLURL string
	DataDir    string
	// Token, when set, is sent by Call as "Authorization: Bearer <Token>"
	// (for nodes with --rpc-http-authentication-enabled).
	Token string
}

// Start runs `basalt --data-path=dataDir --rpc-http-enabled
// --rpc-http-port=<free> args...` and waits until JSON-RPC answers. The
// process is killed when the test ends.
func Start(t testing.TB, dataDir string, args ...string) *Node {
	t.Helper()
	return start(t, dataDir, services{}, args)
}

// StartWS is Start with the WebSocket service on as well
// (--rpc-ws-enabled on a free port); WSURL is its ws:// address.
func StartWS(t testing.TB, dataDir string, args ...string) *Node {
	t.Helper()
	return start(t, dataDir, services{ws: true}, args)
}

// StartGraphQL is Start with the GraphQL service on as well
// (--graphql-http-enabled on a free port); GraphQLURL is its endpoint.
func StartGraphQL(t testing.TB, dataDir string, args ...string) *Node {
	t.Helper()
	return start(t, dataDir, services{graphql: true}, args)
}

// services are the services a node starts with besides JSON-RPC over HTTP,
// and the binary it runs (bin; "" is the module's ./cmd/basalt).
type services struct {
	ws, graphql bool
	bin         string
}

func start(t testing.TB, dataDir string, with services, args []string) *Node {
	t.Helper()
	port := FreePort(t)
	used := map[int]bool{port: true}
	otherPort := func() int {
		p := FreePort(t)
		for used[p] {
			p = FreePort(t)
		}
		used[p] = true
		return p
	}
	full := []string{
		"--data-path=" + dataDir,
		"--rpc-http-enabled",
		"--rpc-http-host=127.0.0.1",
		"--rpc-http-port=" + strconv.Itoa(port),
		"--p2p-enabled=false", // a lone node needs no network; StartP2P turns it on
	}
	wsURL := ""
	if with.ws {
		wsPort := otherPort()
		full = append(full, "--rpc-ws-enabled", "--rpc-ws-host=127.0.0.1", "--rpc-ws-port="+strconv.Itoa(wsPort))
		wsURL = "ws://127.0.0.1:" + strconv.Itoa(wsPort)
	}
	graphQLURL := ""
	if with.graphql {
		gqlPort := otherPort()
		full = append(full, "--graphql-http-enabled", "--graphql-http-host=127.0.0.1", "--graphql-http-port="+strconv.Itoa(gqlPort))
		graphQLURL = "http://127.0.0.1:" + strconv.Itoa(gqlPort) + "/graphql"
	}
	full = append(full, args...)
	n := &Node{
		t:          t,
		URL:        "http://127.0.0.1:" + strconv.Itoa(port),
		WSURL:      wsURL,
		GraphQLURL: graphQLURL,
		DataDir:    dataDir,
	}
	bin := with.bin
	if bin == "" {
		bin = Binary(t)
	}
	n.launch(exec.Command(bin, full...))
	return n
}

// StartCommand runs cmd, a basalt command line the caller prepared in
// full (arguments, environment, working directory: a node configured by a
// config file), and waits until JSON-RPC answers at url (http://host:port).
// The process is killed when the test ends.
func StartCommand(t testing.TB, cmd *exec.Cmd, url string) *Node {
	t.Helper()
	n := &Node{t: t, URL: url}
	n.launch(cmd)
	return n
}

// launch starts cmd as n's process, killed (its logs shown on failure) when
// the test ends, and waits until JSON-RPC answers at n.URL.
func (n *Node) launch(cmd *exec.Cmd) {
	t := n.t
	t.Helper()
	n.proc = proctest.Start(t, "node", cmd, new(proctest.LogBuffer))
	t.Cleanup(func() {
		n.proc.Kill()
		if t.Failed() {
			t.Logf("node logs:\n%s", n.proc.Logs())
		}
	})
	n.proc.WaitUp(t, 30*time.Second, 50*time.Millisecond, "answer JSON-RPC", func() bool {
		// With authentication on, -40100 also means JSON-RPC is up.
		_, err := n.Call("eth_blockNumber")
		return err == nil || isUnauthorized(err)
	})
}

// Logs returns what the process printed so far.
func (n *Node) Logs() string { return n.proc.Logs() }

// CPUTime returns the CPU time the process has used so far (see
// proctest.Process.CPUTime).
func (n *Node) CPUTime() (time.Duration, error) { return n.proc.CPUTime() }

// Stop sends sig and waits for the process to exit.
func (n *Node) Stop(sig syscall.Signal) {
	n.t.Helper()
	n.proc.MustStop(n.t, sig)
}

// RPCError is a JSON-RPC error response.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error renders the code and the message.
func (e *RPCError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// client bounds each call, so a node that stops answering fails the test
// that called it with an error naming the method instead of hanging until
// go test's own timeout. The bound is generous: tests on a loaded 2-core
// machine make slow calls (traces, large blocks).
var client = &http.Client{Timeout: 3 * time.Minute}

// Call invokes method and returns the raw result; a JSON-RPC error is
// returned as *RPCError.
func (n *Node) Call(method string, params ...any) (json.RawMessage, error) {
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequest(http.MethodPost, n.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if n.Token != "" {
		req.Header.Set("Authorization", "Bearer "+n.Token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: bad response %q: %w", method, data, err)
	}
	if out.Error != nil {
		return nil, out.Error
	}
	return out.Result, nil
}

// GraphQL posts a GraphQL document to the node's GraphQL endpoint (see
// StartGraphQL) and returns the answer's "data"; an answer with "errors"
// is an error carrying them.
func (n *Node) GraphQL(query string) (json.RawMessage, error) {
	if n.GraphQLURL == "" {
		return nil, errors.New("GraphQL is not enabled on this node")
	}
	resp, err := client.Post(n.GraphQLURL, "application/graphql", strings.NewReader(query))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var out struct {
		Data   json.RawMessage `json:"data"`
		Errors json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("bad GraphQL answer %q: %w", body, err)
	}
	if len(out.Errors) > 0 {
		return out.Data, fmt.Errorf("GraphQL errors (HTTP %d): %s", resp.StatusCode, out.Errors)
	}
	return out.Data, nil
}

// isUnauthorized reports whether err is the JSON-RPC error -40100.
func isUnauthorized(err error) bool {
	e, ok := err.(*RPCError)
	return ok && e.Code == -40100
}

// MustCall is Call that fails the test on error and decodes into v.
func (n *Node) MustCall(v any, method string, params ...any) {
	n.t.Helper()
	res, err := n.Call(method, params...)
	if err != nil {
		n.t.Fatalf("%s: %v", method, err)
	}
	if v != nil {
		if err := json.Unmarshal(res, v); err != nil {
			n.t.Fatalf("%s: decode %s: %v", method, res, err)
		}
	}
}

// WaitFor polls cond every 100ms until it holds or timeout passes.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	proctest.WaitFor(t, timeout, 100*time.Millisecond, what, cond)
}
