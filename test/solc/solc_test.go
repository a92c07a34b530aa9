// Package solc tests that a contract compiled by today's npm solc with its
// default settings (the newest EVM version solc knows: PUSH0, MCOPY, ...)
// deploys and runs, publicly and privately, on a network made by
// `basalt network up` with its default rules, for every consensus engine
// (whose running nodes also serve every metric the Grafana dashboard's
// node row and engine row read); and that `--milestone` really selects
// older rules.
//
// Greeter.sol is compiled by compile.mjs (`npm run compile`) with the solc
// version pinned in package-lock.json; `npm ci` in this folder installs it
// (.ci/run does), and the tests skip without it.
package solc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/basaltchain/basalt/localnet"
	"github.com/basaltchain/basalt/metrics/grafana"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// compiled is Greeter.sol as compile.mjs prints it.
type compiled struct {
	Version    string          `json:"version"`
	EVMVersion string          `json:"evmVersion"`
	ABI        json.RawMessage `json:"abi"`
	Bytecode   hexutil.Bytes   `json:"bytecode"`
	Runtime    hexutil.Bytes   `json:"runtime"`
	abi        abi.ABI
}

// compile runs `npm run compile` (with evmVersion, when not "", as solc's
// EVM version), skipping the test when solc is not installed.
func compile(t *testing.T, evmVersion string) *compiled {
	t.Helper()
	if _, err := os.Stat("node_modules/solc"); err != nil {
		t.Skip("test/solc/node_modules is absent: run `npm ci` in test/solc to compile the contract with npm solc")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("solc is installed but npm (Node.js) is not on PATH")
	}
	args := []string{"run", "--silent", "compile"}
	if evmVersion != "" {
		args = append(args, "--", evmVersion)
	}
	cmd := exec.Command(npm, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm run compile: %v\n%s", err, stderr.Bytes())
	}
	var c compiled
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("compile.mjs output %.300s: %v", out, err)
	}
	if c.abi, err = abi.JSON(bytes.NewReader(c.ABI)); err != nil {
		t.Fatal(err)
	}
	return &c
}

// opcodes counts the opcodes of code, PUSH data skipped and solc's CBOR
// metadata (its length in the last two bytes) cut off, so that only
// instructions are counted.
func opcodes(code []byte) map[vm.OpCode]int {
	if n := len(code); n >= 2 {
		if meta := int(code[n-2])<<8 | int(code[n-1]); meta+2 <= n {
			code = code[:n-2-meta]
		}
	}
	counts := map[vm.OpCode]int{}
	for pc := 0; pc < len(code); pc++ {
		op := vm.OpCode(code[pc])
		counts[op]++
		if op >= vm.PUSH1 && op <= vm.PUSH32 {
			pc += int(op - vm.PUSH0)
		}
	}
	return counts
}

// TestOpcodes: the opcode walk skips PUSH data and the metadata.
func TestOpcodes(t *testing.T) {
	// PUSH2 0x5e5f, PUSH0, MCOPY, then metadata 0x5e5e (length 2).
	got := opcodes([]byte{0x61, 0x5e, 0x5f, 0x5f, 0x5e, 0x5e, 0x5e, 0x00, 0x02})
	if got[vm.PUSH0] != 1 || got[vm.MCOPY] != 1 || got[vm.PUSH2] != 1 || len(got) != 3 {
		t.Fatalf("opcodes %v", got)
	}
}

// network is a detached `basalt network up` of the built binaries.
type network struct {
	m *localnet.Manifest
}

// up starts `basalt network up --detach ARGS` in a new directory and stops
// it when the test ends.
func up(t *testing.T, args ...string) *network {
	t.Helper()
	bin := t.TempDir()
	for _, pkg := range []string{"./cmd/basalt", "./cmd/basalt-privacy", "./cmd/basalt-signer"} {
		if err := os.Symlink(proctest.Build(t, pkg), filepath.Join(bin, filepath.Base(pkg))); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "net")
	basalt := func(args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, "basalt"), append([]string{"network"}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		return cmd
	}
	base := proctest.FreePortRange(t, 40)
	args = append([]string{"up", "--detach", "--dir", dir, "--base-port", strconv.Itoa(base)}, args...)
	out, err := basalt(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("network %v: %v\n%s", args, err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, log := range []string{"node1.log", "node2.log", "signer.log"} {
				data, _ := os.ReadFile(filepath.Join(dir, "logs", log))
				t.Logf("%s (tail):\n%s", log, tail(string(data), 40))
			}
		}
		if out, err := basalt("down", "--dir", dir).CombinedOutput(); err != nil {
			t.Errorf("network down: %v\n%s", err, out)
		}
	})
	m, err := localnet.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &network{m: m}
}

func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}

// rpc is a JSON-RPC call: the raw result or the error.
func rpc(url, method string, params ...any) (json.RawMessage, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": append([]any{}, params...)})
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
	raw, err := rpc(url, method, params...)
	if err != nil {
		t.Fatalf("%s %s: %v", url, method, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s %s: %s: %v", url, method, raw, err)
	}
}

// receipt waits for the (private, with method priv_getTransactionReceipt)
// receipt of hash at url.
func receipt(t *testing.T, url, method, hash string) map[string]any {
	t.Helper()
	var r map[string]any
	testnode.WaitFor(t, 60*time.Second, method+" "+hash+" at "+url, func() bool {
		r = nil
		raw, err := rpc(url, method, hash)
		return err == nil && json.Unmarshal(raw, &r) == nil && r != nil
	})
	return r
}

// deployData is Greeter's creation code with its constructor argument.
func (c *compiled) deployData(t *testing.T, greeting string) string {
	args, err := c.abi.Pack("", greeting)
	if err != nil {
		t.Fatal(err)
	}
	return hexutil.Encode(append(bytes.Clone(c.Bytecode), args...))
}

func (c *compiled) greetData(t *testing.T, name string) string {
	data, err := c.abi.Pack("greet", name)
	if err != nil {
		t.Fatal(err)
	}
	return hexutil.Encode(data)
}

// greeting decodes greet's return value.
func (c *compiled) greeting(t *testing.T, ret string) string {
	data, err := hexutil.Decode(ret)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.abi.Unpack("greet", data)
	if err != nil || len(out) != 1 {
		t.Fatalf("greet returned %s: %v", ret, err)
	}
	return out[0].(string)
}

// TestSolcDefaultsOnNetworkUp: Greeter, compiled by npm solc with its
// defaults, holds PUSH0 and MCOPY; on a default `network up --privacy
// --signer` of each consensus engine it deploys publicly (gas estimated by
// the node, signed by the signer) and privately (for nodes 1 and 2) with status 1, and
// greet answers on both.
func TestSolcDefaultsOnNetworkUp(t *testing.T) {
	c := compile(t, "")
	for name, code := range map[string][]byte{"creation": c.Bytecode, "runtime": c.Runtime} {
		ops := opcodes(code)
		if ops[vm.PUSH0] == 0 || ops[vm.MCOPY] == 0 {
			t.Fatalf("solc %s (evmVersion %s): the %s code holds %d PUSH0 and %d MCOPY; the test needs both, so that it cannot pass on London rules",
				c.Version, c.EVMVersion, name, ops[vm.PUSH0], ops[vm.MCOPY])
		}
	}
	t.Logf("solc %s, default evmVersion %s", c.Version, c.EVMVersion)
	for _, consensus := range localnet.Consensus {
		t.Run(consensus, func(t *testing.T) {
			n := up(t, "--consensus", consensus, "--privacy", "--signer")
			m := n.m
			if m.Milestone != localnet.DefaultMilestone {
				t.Fatalf("manifest milestone %q", m.Milestone)
			}
			node1, node2, node3 := m.Nodes[0].HTTP, m.Nodes[1].HTTP, m.Nodes[2].HTTP

			// The head carries the fields of the forks through Prague: no
			// withdrawals, no blob gas (there is no consensus layer).
			var head map[string]any
			mustRPC(t, &head, node2, "eth_getBlockByNumber", "latest", false)
			if head["withdrawalsRoot"] != types.EmptyWithdrawalsHash.Hex() || head["blobGasUsed"] != "0x0" ||
				head["excessBlobGas"] != "0x0" || head["parentBeaconBlockRoot"] == nil || head["requestsHash"] == nil {
				t.Fatalf("head block %v", head)
			}

			// Public: gas estimated by the node (as ethers does before it
			// sends), signed by the signer.
			deploy := map[string]any{"from": m.DevAddress, "data": c.deployData(t, "Hello")}
			var gas hexutil.Uint64
			mustRPC(t, &gas, node1, "eth_estimateGas", deploy)
			deploy["gas"] = gas
			var hash string
			mustRPC(t, &hash, m.SignerURL, "eth_sendTransaction", deploy)
			r := receipt(t, node2, "eth_getTransactionReceipt", hash)
			if r["status"] != "0x1" {
				t.Fatalf("public deploy receipt %v", r)
			}
			addr := r["contractAddress"].(string)
			// node1 and node3 may be a block behind node2: wait until they
			// have the deploy too before reading their state at "latest".
			receipt(t, node1, "eth_getTransactionReceipt", hash)
			receipt(t, node3, "eth_getTransactionReceipt", hash)
			var code hexutil.Bytes
			mustRPC(t, &code, node3, "eth_getCode", addr, "latest")
			if !bytes.Equal(code, c.Runtime) {
				t.Fatalf("eth_getCode %x, want solc's runtime code", code)
			}
			var ret string
			mustRPC(t, &ret, node1, "eth_call", map[string]any{"to": addr, "data": c.greetData(t, "Basalt")}, "latest")
			if got := c.greeting(t, ret); got != "Hello, Basalt" {
				t.Fatalf("public greet %q", got)
			}

			// Private, for nodes 1 and 2.
			var pmt string
			mustRPC(t, &pmt, m.SignerURL, "eea_sendTransaction", map[string]any{
				"from": m.DevAddress, "gas": "0x200000", "data": c.deployData(t, "Hallo"),
				"privateFrom": m.Nodes[0].PrivacyPublicKey, "privateFor": []string{m.Nodes[1].PrivacyPublicKey}, "restriction": "restricted"})
			pr := receipt(t, node2, "priv_getTransactionReceipt", pmt)
			if pr["status"] != "0x1" {
				t.Fatalf("private deploy receipt %v", pr)
			}
			paddr, group := pr["contractAddress"].(string), pr["privacyGroupId"].(string)
			for _, url := range []string{node1, node2} {
				receipt(t, url, "priv_getTransactionReceipt", pmt)
				mustRPC(t, &code, url, "priv_getCode", group, paddr, "latest")
				if !bytes.Equal(code, c.Runtime) {
					t.Fatalf("%s priv_getCode %x, want solc's runtime code", url, code)
				}
				mustRPC(t, &ret, url, "priv_call", group, map[string]any{"to": paddr, "data": c.greetData(t, "Basalt")}, "latest")
				if got := c.greeting(t, ret); got != "Hallo, Basalt" {
					t.Fatalf("%s private greet %q", url, got)
				}
			}

			// The Grafana dashboard's node row and this engine's row read
			// metrics this running node exports.
			dashboardOnNode(t, m.Nodes[0].Metrics, consensus)
		})
	}
}

// dashboardOnNode checks that every metric the Grafana dashboard's node
// row and the row of engine read is in the node's /metrics at url.
// Labelled series appear once used (a pool removal, a p2p message), so it
// asks again until all are there or a minute has passed.
func dashboardOnNode(t *testing.T, url, engine string) {
	t.Helper()
	qs, err := grafana.Queries()
	if err != nil {
		t.Fatal(err)
	}
	row := grafana.ConsensusRows[engine]
	missing := func() (out []string, checked int) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
		}
		families := map[string]bool{}
		for _, line := range strings.Split(string(body), "\n") {
			if f := strings.Fields(line); len(f) >= 3 && f[0] == "#" && f[1] == "TYPE" {
				families[f[2]] = true
			}
		}
		for _, q := range qs {
			if q.Row != "Node (basalt)" && q.Row != row {
				continue
			}
			for _, name := range grafana.MetricNames(q.Expr) {
				checked++
				if _, ok := grafana.Family(name, func(f string) bool { return families[f] }); !ok {
					out = append(out, fmt.Sprintf("row %q, panel %q reads %s", q.Row, q.Panel, name))
				}
			}
		}
		return out, checked
	}
	deadline := time.Now().Add(time.Minute)
	for {
		gone, checked := missing()
		if checked == 0 {
			t.Fatalf("no dashboard query for the node or %s", engine)
		}
		if len(gone) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node1 (%s) does not export what the Grafana dashboard reads:\n%s", engine, strings.Join(gone, "\n"))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestMilestoneBerlin: `--milestone berlin` runs Berlin rules, as GoQuorum
// 24.4.1 does: the contract compiled for Berlin deploys and answers, the one
// compiled with solc's defaults is refused ("invalid opcode: PUSH0").
func TestMilestoneBerlin(t *testing.T) {
	modern, berlin := compile(t, ""), compile(t, "berlin")
	if ops := opcodes(berlin.Runtime); ops[vm.PUSH0] != 0 || ops[vm.MCOPY] != 0 {
		t.Fatalf("the Berlin build holds PUSH0 or MCOPY: %v", ops)
	}
	n := up(t, "--consensus", "clique", "--validators", "1", "--signer", "--milestone", "berlin")
	m := n.m
	node := m.Nodes[0].HTTP
	var block map[string]any
	mustRPC(t, &block, node, "eth_getBlockByNumber", "latest", false)
	if _, ok := block["baseFeePerGas"]; ok {
		t.Fatalf("a Berlin block has a base fee: %v", block)
	}

	_, err := rpc(node, "eth_estimateGas", map[string]any{"from": m.DevAddress, "data": modern.deployData(t, "Hello")})
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "invalid opcode") {
		t.Fatalf("estimating the default build's deployment on Berlin rules: %v, want an invalid opcode", err)
	}

	deploy := map[string]any{"from": m.DevAddress, "data": berlin.deployData(t, "Hello")}
	var gas hexutil.Uint64
	mustRPC(t, &gas, node, "eth_estimateGas", deploy)
	deploy["gas"] = gas
	var hash string
	mustRPC(t, &hash, m.SignerURL, "eth_sendTransaction", deploy)
	r := receipt(t, node, "eth_getTransactionReceipt", hash)
	if r["status"] != "0x1" {
		t.Fatalf("Berlin deploy receipt %v", r)
	}
	var ret string
	mustRPC(t, &ret, node, "eth_call", map[string]any{"to": r["contractAddress"], "data": berlin.greetData(t, "Berlin")}, "latest")
	if got := berlin.greeting(t, ret); got != "Hello, Berlin" {
		t.Fatalf("greet %q", got)
	}
}
