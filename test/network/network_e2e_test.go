package network

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/gorilla/websocket"

	"github.com/basaltchain/basalt/localnet"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// networkBin is a directory with basalt, basalt-privacy and basalt-signer
// built from this checkout, for PATH: `network up` finds the other two
// there (os.Executable resolves to basalt's own build directory).
func networkBin(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, pkg := range []string{"./cmd/basalt", "./cmd/basalt-privacy", "./cmd/basalt-signer"} {
		if err := os.Symlink(proctest.Build(t, pkg), filepath.Join(dir, filepath.Base(pkg))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// networkCmd is `basalt network ARGS` with bin first on PATH.
func networkCmd(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(bin, "basalt"), append([]string{"network"}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

// netRPC is a JSON-RPC call that returns the raw result or the error.
func netRPC(url, method string, params ...any) (json.RawMessage, error) {
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *testnode.RPCError
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, r.Error
	}
	return r.Result, nil
}

func mustRPC(t *testing.T, out any, url, method string, params ...any) {
	t.Helper()
	raw, err := netRPC(url, method, params...)
	if err != nil {
		t.Fatalf("%s %s: %v", url, method, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s %s: %s: %v", url, method, raw, err)
	}
}

// upNetwork runs `basalt network up ARGS` until it reports ready.
func upNetwork(t *testing.T, bin string, args ...string) *proctest.Process {
	t.Helper()
	logs := new(proctest.LogBuffer)
	p := proctest.Start(t, "network up", networkCmd(bin, append([]string{"up"}, args...)...), logs)
	t.Cleanup(func() {
		p.Stop(syscall.SIGTERM, 30*time.Second)
		if t.Failed() {
			t.Logf("network up output:\n%s", p.Logs())
		}
	})
	p.WaitUp(t, 90*time.Second, 50*time.Millisecond, "report ready", func() bool { return strings.Contains(p.Logs(), "\nready in ") })
	return p
}

// childPIDs lists the children of pid, from every one of its threads.
func childPIDs(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(data)) {
			n, _ := strconv.Atoi(s)
			pids = append(pids, n)
		}
	}
	return pids
}

// waitGone waits until none of pids is a live process.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	testnode.WaitFor(t, 30*time.Second, fmt.Sprintf("processes %v to exit", pids), func() bool {
		for _, p := range pids {
			if syscall.Kill(p, 0) == nil {
				if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p)); err == nil && !strings.Contains(string(st), ") Z ") {
					return false
				}
			}
		}
		return true
	})
}

// TestNetworkUpBadInput: out-of-range validators, a foreign directory,
// a taken port, another network's options: clear errors, nothing written.
func TestNetworkUpBadInput(t *testing.T) {
	bin := networkBin(t)
	base := proctest.FreePortRange(t, 40)
	fresh := filepath.Join(t.TempDir(), "net")
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(base+12))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--validators", "0", "--dir", fresh}, "--validators must be between 1 and 100, got 0"},
		{[]string{"--validators", "101", "--dir", fresh}, "--validators must be between 1 and 100, got 101"},
		{[]string{"--consensus", "pow", "--dir", fresh}, `--consensus must be one of [qbft ibft2 clique], got "pow"`},
		{[]string{"--dir", foreign}, "is not empty and holds no network.json: it is not a basalt network's directory"},
		{[]string{"--dir", fresh, "--base-port", strconv.Itoa(base)}, fmt.Sprintf("port %d already in use", base+12)},
		{[]string{"--dir", fresh, "--base-port", "65530"}, "must lie within 1024-65535"},
	} {
		out, err := networkCmd(bin, append([]string{"up"}, c.args...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("up %v: %v\n%s\nwant %q", c.args, err, out, c.want)
		}
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a refused up created %s: %v", fresh, err)
	}
	if entries, _ := os.ReadDir(foreign); len(entries) != 1 {
		t.Errorf("a refused up wrote into the foreign directory: %v", entries)
	}
	// Another network's directory: its manifest decides, a differing
	// option is refused before anything starts.
	other := t.TempDir()
	m := `{"kind":"basalt-network","settings":{"validators":2,"consensus":"clique","privacy":false,"signer":false,"basePort":` + strconv.Itoa(base) + `},"nodes":[]}`
	if err := os.WriteFile(filepath.Join(other, localnet.ManifestFile), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := networkCmd(bin, "up", "--dir", other, "--consensus", "qbft").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "holds another network (--consensus clique, not qbft)") {
		t.Errorf("up on another network's directory: %v\n%s", err, out)
	}
	out, err = networkCmd(bin, "down", "--dir", other).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is not running") {
		t.Errorf("down on a stopped network: %v\n%s", err, out)
	}
}

// storeContract is the walkthrough's private contract: called without
// data it returns slot 0, called with a word it stores it.
const storeContract = "0x602280600b6000396000f336600f5760005460005260206000f35b60003580600055600052602a60206000a100"

// netPrivReceipt waits for a private transaction's receipt on a node.
func netPrivReceipt(t *testing.T, url, pmt string) map[string]any {
	t.Helper()
	var r map[string]any
	testnode.WaitFor(t, 60*time.Second, "private receipt of "+pmt+" at "+url, func() bool {
		r = nil
		raw, err := netRPC(url, "priv_getTransactionReceipt", pmt)
		return err == nil && json.Unmarshal(raw, &r) == nil && r != nil
	})
	if r["status"] != "0x1" {
		t.Fatalf("private receipt %v", r)
	}
	return r
}

// TestNetworkUp: `network up --validators 4 --privacy --signer` from the
// built binaries: every endpoint answers, blocks advance, a transfer and
// a private contract go through the signer, the contract is readable with
// priv_call on its two members and not on the third; Ctrl-C stops every
// process; a second up resumes the chain; a SIGKILLed supervisor takes
// its children with it.
func TestNetworkUp(t *testing.T) {
	bin := networkBin(t)
	base := proctest.FreePortRange(t, 40)
	dir := filepath.Join(t.TempDir(), "net")
	p := upNetwork(t, bin, "--validators", "4", "--privacy", "--signer", "--dir", dir, "--base-port", strconv.Itoa(base))
	m, err := localnet.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Nodes) != 4 || m.SignerURL == "" || !strings.Contains(p.Logs(), m.SignerURL) || !strings.Contains(p.Logs(), "curl -s") {
		t.Fatalf("manifest %+v\noutput:\n%s", m, p.Logs())
	}
	for _, nd := range m.Nodes {
		if !strings.Contains(p.Logs(), nd.HTTP) || !strings.Contains(p.Logs(), nd.WS) || !strings.Contains(p.Logs(), nd.PrivacyURL) {
			t.Fatalf("the table lacks %s's endpoints:\n%s", nd.Name, p.Logs())
		}
		devnode.Height(t, nd.HTTP)
		ws, _, err := websocket.DefaultDialer.Dial(nd.WS, nil)
		if err != nil {
			t.Fatalf("%s: %v", nd.WS, err)
		}
		ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []any{}})
		var answer struct{ Result string }
		if err := ws.ReadJSON(&answer); err != nil || answer.Result != "0x539" {
			t.Fatalf("%s eth_chainId: %+v %v", nd.WS, answer, err)
		}
		ws.Close()
		for url, want := range map[string]string{nd.Metrics: "# TYPE", nd.PrivacyURL + "/upcheck": ""} {
			resp, err := http.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
				t.Fatalf("GET %s: %d %.200s", url, resp.StatusCode, body)
			}
		}
		resp, err := http.Post(nd.GraphQL, "application/json", strings.NewReader(`{"query":"{block{number}}"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"number"`) {
			t.Fatalf("GraphQL %s: %d %s", nd.GraphQL, resp.StatusCode, body)
		}
	}
	var chainID hexutil.Uint64
	mustRPC(t, &chainID, m.SignerURL, "eth_chainId")
	if chainID != 1337 {
		t.Fatalf("chain ID through the signer %d", chainID)
	}
	h0 := devnode.Height(t, m.Nodes[0].HTTP)
	testnode.WaitFor(t, 30*time.Second, "blocks on every node", func() bool {
		for _, nd := range m.Nodes {
			if devnode.Height(t, nd.HTTP) <= h0 {
				return false
			}
		}
		return true
	})

	// A transfer through the signer, which holds the dev key.
	var txHash string
	mustRPC(t, &txHash, m.SignerURL, "eth_sendTransaction", map[string]any{"from": m.DevAddress, "to": m.Nodes[3].Address, "value": "0x2a"})
	// Mined on node3 and imported by node2, whose balance the test reads.
	testnode.WaitFor(t, 30*time.Second, "the transfer mined", func() bool {
		for _, nd := range m.Nodes[1:3] {
			raw, err := netRPC(nd.HTTP, "eth_getTransactionReceipt", txHash)
			if err != nil || string(raw) == "null" {
				return false
			}
		}
		return true
	})
	var bal hexutil.Big
	mustRPC(t, &bal, m.Nodes[1].HTTP, "eth_getBalance", m.Nodes[3].Address, "latest")
	if (*big.Int)(&bal).Int64() != 42 {
		t.Fatalf("recipient balance %v", &bal)
	}

	// A private contract for nodes 1 and 2, through the signer.
	a, b := m.Nodes[0].PrivacyPublicKey, m.Nodes[1].PrivacyPublicKey
	priv := func(extra map[string]any) string {
		tx := map[string]any{"from": m.DevAddress, "gas": "0x100000", "privateFrom": a, "privateFor": []string{b}, "restriction": "restricted"}
		for k, v := range extra {
			tx[k] = v
		}
		var pmt string
		mustRPC(t, &pmt, m.SignerURL, "eea_sendTransaction", tx)
		return pmt
	}
	pmt := priv(map[string]any{"data": storeContract})
	r := netPrivReceipt(t, m.Nodes[1].HTTP, pmt)
	contract, group := r["contractAddress"].(string), r["privacyGroupId"].(string)
	pmt = priv(map[string]any{"to": contract, "data": fmt.Sprintf("0x%064x", 42)})
	netPrivReceipt(t, m.Nodes[1].HTTP, pmt)
	netPrivReceipt(t, m.Nodes[0].HTTP, pmt)
	word := fmt.Sprintf("0x%064x", 42)
	for _, nd := range m.Nodes[:2] {
		var got string
		mustRPC(t, &got, nd.HTTP, "priv_call", group, map[string]any{"to": contract}, "latest")
		if got != word {
			t.Fatalf("%s priv_call %s, want %s", nd.Name, got, word)
		}
	}
	if raw, err := netRPC(m.Nodes[2].HTTP, "priv_call", group, map[string]any{"to": contract}, "latest"); err == nil && string(raw) != `"0x"` {
		t.Fatalf("node3, not a member, reads %s", raw)
	}
	if raw, err := netRPC(m.Nodes[2].HTTP, "priv_getTransactionReceipt", pmt); err == nil && string(raw) != "null" {
		t.Fatalf("node3 has the private receipt %s", raw)
	}

	out, err := networkCmd(bin, "status", "--dir", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "running") || !strings.Contains(string(out), "node4") {
		t.Fatalf("status: %v\n%s", err, out)
	}

	// Ctrl-C: every process stops.
	pids := childPIDs(t, p.Cmd.Process.Pid)
	if len(pids) != 9 {
		t.Fatalf("the supervisor has %d children %v, want 4 nodes, 4 managers and a signer", len(pids), pids)
	}
	hash1 := m.Nodes[0].HTTP
	var block1 struct{ Hash string }
	mustRPC(t, &block1, hash1, "eth_getBlockByNumber", "0x1", false)
	stopped := devnode.Height(t, m.Nodes[0].HTTP)
	if !p.Stop(os.Interrupt, 60*time.Second) {
		t.Fatal("network up did not stop on SIGINT")
	}
	waitGone(t, pids)
	if _, ok := localnet.Running(dir); ok {
		t.Fatal("the stopped network still shows as running")
	}

	// Up again: the same chain, resumed; then a SIGKILL of the supervisor
	// takes the children with it.
	p2 := upNetwork(t, bin, "--dir", dir)
	if got := devnode.Height(t, m.Nodes[0].HTTP); got <= stopped {
		t.Fatalf("resumed at %d, had stopped at %d", got, stopped)
	}
	var again struct{ Hash string }
	mustRPC(t, &again, m.Nodes[3].HTTP, "eth_getBlockByNumber", "0x1", false)
	if again.Hash != block1.Hash {
		t.Fatalf("block 1 is %s after resuming, was %s", again.Hash, block1.Hash)
	}
	var got string
	mustRPC(t, &got, m.Nodes[1].HTTP, "priv_call", group, map[string]any{"to": contract}, "latest")
	if got != word {
		t.Fatalf("after resuming, priv_call %s", got)
	}
	pids = childPIDs(t, p2.Cmd.Process.Pid)
	p2.Cmd.Process.Kill()
	<-p2.Exited()
	waitGone(t, pids)
}

// TestNetworkDetach: a one-validator Clique network in the background;
// status shows it, down stops it and every process.
func TestNetworkDetach(t *testing.T) {
	bin := networkBin(t)
	base := proctest.FreePortRange(t, 10)
	dir := filepath.Join(t.TempDir(), "net")
	out, err := networkCmd(bin, "up", "--detach", "--validators", "1", "--consensus", "clique", "--dir", dir, "--base-port", strconv.Itoa(base)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "running in the background") {
		t.Fatalf("up --detach: %v\n%s", err, out)
	}
	pid, ok := localnet.Running(dir)
	if !ok {
		t.Fatalf("no supervisor after up --detach:\n%s", out)
	}
	pids := append(childPIDs(t, pid), pid)
	t.Cleanup(func() {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	m, err := localnet.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	testnode.WaitFor(t, 30*time.Second, "blocks", func() bool { return devnode.Height(t, m.Nodes[0].HTTP) >= 2 })
	out, err = networkCmd(bin, "status", "--dir", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("running (supervisor PID %d, 1 clique validators)", pid)) {
		t.Fatalf("status: %v\n%s", err, out)
	}
	out, err = networkCmd(bin, "up", "--dir", dir).CombinedOutput()
	if err == nil || !strings.Contains(string(out), fmt.Sprintf("is already running (supervisor PID %d)", pid)) {
		t.Fatalf("up on a running network: %v\n%s", err, out)
	}
	out, err = networkCmd(bin, "down", "--dir", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "stopped") {
		t.Fatalf("down: %v\n%s", err, out)
	}
	waitGone(t, pids)
	out, err = networkCmd(bin, "status", "--dir", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "stopped") {
		t.Fatalf("status after down: %v\n%s", err, out)
	}
}
