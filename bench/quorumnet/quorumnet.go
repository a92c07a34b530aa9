// Package quorumnet starts a GoQuorum 24.4.1 QBFT network of validators on
// this machine, for the benchmarks that run Basalt beside it (bench
// network --goquorum, bench/caliper --goquorum): forks to Berlin,
// isQuorum (free gas), no privacy manager, as test/goquorum/README.md
// describes.
package quorumnet

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/consensus/qbft"
)

// Chain ID, block gas limit and funded key of `basalt network up`, which
// the GoQuorum network shares so that one load runs on both.
const (
	ChainID  = 1337
	GasLimit = 0x2FAF0800
	DevKey   = "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
)

// Options configure Start.
type Options struct {
	Geth       string // GoQuorum's geth binary
	Dir        string // where the nodes' data go
	Validators int    // default 4
	// BasePort is node i's HTTP port minus 10*i (WS +1, p2p +4), as
	// `basalt network up`.
	BasePort int
	// BlockPeriodSeconds is QBFT's blockperiodseconds (default 1).
	BlockPeriodSeconds int
	// ExtraArgs are added to every node's command line (pool sizes).
	ExtraArgs []string
	Log       func(format string, args ...any)
}

// Network is a running GoQuorum network.
type Network struct {
	HTTP, WS []string // each node's endpoints
	procs    []*exec.Cmd
	logs     []*os.File
}

// PIDs are the nodes' process IDs.
func (n *Network) PIDs() []int {
	var out []int
	for _, p := range n.procs {
		out = append(out, p.Process.Pid)
	}
	return out
}

// Kill kills node i (a node past a memory bound).
func (n *Network) Kill(i int) { _ = n.procs[i].Process.Kill() }

// Stop stops every node (SIGTERM, then SIGKILL after 30 s).
func (n *Network) Stop() {
	for _, p := range n.procs {
		_ = p.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range n.procs {
		// A node buried under its queued notifications may not stop on
		// SIGTERM.
		t := time.AfterFunc(30*time.Second, func() { _ = p.Process.Kill() })
		_ = p.Wait()
		t.Stop()
	}
	for _, f := range n.logs {
		f.Close()
	}
}

// Start initialises and starts the validators and waits for block 2;
// on an error nothing runs.
func Start(ctx context.Context, o Options) (n *Network, err error) {
	if o.Validators == 0 {
		o.Validators = 4
	}
	if o.BlockPeriodSeconds == 0 {
		o.BlockPeriodSeconds = 1
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	keys, err := validatorKeys(o.Validators)
	if err != nil {
		return nil, err
	}
	genesis, err := writeGenesis(o.Dir, keys, o.BlockPeriodSeconds)
	if err != nil {
		return nil, err
	}
	type node struct {
		dir           string
		p2p, http, ws int
	}
	nodes := make([]node, len(keys))
	var enodes []string
	for i, k := range keys {
		base := o.BasePort + 10*i
		nd := node{dir: filepath.Join(o.Dir, fmt.Sprintf("node%d", i+1)), http: base, ws: base + 1, p2p: base + 4}
		nodes[i] = nd
		if err := os.MkdirAll(nd.dir, 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(nd.dir, "nodekey"), []byte(fmt.Sprintf("%x", crypto.FromECDSA(k))), 0o600); err != nil {
			return nil, err
		}
		toml := fmt.Sprintf("[Node.P2P]\nListenAddr = \"127.0.0.1:%d\"\n", nd.p2p)
		if err := os.WriteFile(filepath.Join(nd.dir, "config.toml"), []byte(toml), 0o644); err != nil {
			return nil, err
		}
		if out, err := exec.Command(o.Geth, "--datadir", nd.dir, "init", genesis).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("geth init: %v\n%s", err, out)
		}
		enodes = append(enodes, fmt.Sprintf("enode://%x@127.0.0.1:%d?discport=0", crypto.FromECDSAPub(&k.PublicKey)[1:], nd.p2p))
	}
	list, _ := json.Marshal(enodes)
	n = &Network{}
	defer func() {
		if err != nil {
			n.Stop()
			n = nil
		}
	}()
	for _, nd := range nodes {
		for _, f := range []string{"static-nodes.json", "permissioned-nodes.json"} {
			if err := os.WriteFile(filepath.Join(nd.dir, f), list, 0o644); err != nil {
				return n, err
			}
		}
		logFile, err := os.Create(filepath.Join(nd.dir, "geth.log"))
		if err != nil {
			return n, err
		}
		n.logs = append(n.logs, logFile)
		args := []string{
			"--config", filepath.Join(nd.dir, "config.toml"), "--datadir", nd.dir,
			"--nodekey", filepath.Join(nd.dir, "nodekey"), "--networkid", strconv.Itoa(ChainID),
			"--syncmode", "full", "--nodiscover", "--nat", "none", "--maxpeers", "32",
			"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(nd.http),
			"--http.api", "admin,eth,net,web3,istanbul,txpool", "--http.vhosts", "localhost,127.0.0.1",
			"--ws", "--ws.addr", "127.0.0.1", "--ws.port", strconv.Itoa(nd.ws), "--ws.api", "eth,net,web3", "--ws.origins", "*",
			"--ipcdisable", "--mine", "--miner.threads", "1", "--miner.gasprice", "0",
			"--miner.gastarget", strconv.Itoa(GasLimit), "--miner.gaslimit", strconv.Itoa(GasLimit),
			"--verbosity", "2",
		}
		cmd := exec.Command(o.Geth, append(args, o.ExtraArgs...)...)
		cmd.Env = append(os.Environ(), "PRIVATE_CONFIG=ignore")
		cmd.Stdout, cmd.Stderr = logFile, logFile
		if err := cmd.Start(); err != nil {
			return n, err
		}
		n.procs = append(n.procs, cmd)
		n.HTTP = append(n.HTTP, fmt.Sprintf("http://127.0.0.1:%d", nd.http))
		n.WS = append(n.WS, fmt.Sprintf("ws://127.0.0.1:%d", nd.ws))
	}
	o.Log("GoQuorum validators started in %s; waiting for block 2", o.Dir)
	return n, WaitBlock(ctx, n.HTTP[0], 2, 2*time.Minute)
}

// ResidentBytes is a process's resident memory (Linux), 0 if unknown.
func ResidentBytes(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// WaitBlock waits until the node at url has block n.
func WaitBlock(ctx context.Context, url string, n uint64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
		if err == nil {
			var r struct{ Result hexutil.Uint64 }
			_ = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if uint64(r.Result) >= n {
				return nil
			}
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("%s did not reach block %d within %v", url, n, timeout)
}

// validatorKeys returns deterministic keys whose address byte order and
// EIP-55 string order agree (test/goquorum/README.md says why).
func validatorKeys(count int) ([]*ecdsa.PrivateKey, error) {
	var keys []*ecdsa.PrivateKey
	var addrs []common.Address
	for i := range count {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("basalt-caliper-bench-%d", i))))
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
		addrs = append(addrs, crypto.PubkeyToAddress(k.PublicKey))
	}
	byBytes := slices.SortedFunc(slices.Values(addrs), func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	byString := slices.SortedFunc(slices.Values(addrs), func(a, b common.Address) int { return strings.Compare(a.Hex(), b.Hex()) })
	if !slices.Equal(byBytes, byString) {
		return nil, fmt.Errorf("validator keys: byte order %v differs from checksum order %v", byBytes, byString)
	}
	return keys, nil
}

// writeGenesis writes a GoQuorum QBFT genesis: forks to Berlin, isQuorum
// (gas is free, as on `network up`), the validators in the QBFT
// extraData, the dev account funded.
func writeGenesis(dir string, keys []*ecdsa.PrivateKey, period int) (string, error) {
	var validators []common.Address
	for _, k := range keys {
		validators = append(validators, crypto.PubkeyToAddress(k.PublicKey))
	}
	slices.SortFunc(validators, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	dev, err := crypto.HexToECDSA(DevKey)
	if err != nil {
		return "", err
	}
	g := map[string]any{
		"config": map[string]any{
			"chainId":        ChainID,
			"homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
			"byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
			"berlinBlock": 0,
			"isQuorum":    true,
			"qbft": map[string]any{
				"blockperiodseconds": period, "epochlength": 30000, "requesttimeoutseconds": 4, "ceil2Nby3Block": 0,
			},
		},
		"nonce": "0x0", "timestamp": "0x0",
		"extraData":  hexutil.Encode(qbft.EncodeValidators(validators)),
		"gasLimit":   hexutil.EncodeUint64(GasLimit),
		"difficulty": "0x1",
		"mixHash":    qbft.MixDigest.Hex(),
		"coinbase":   common.Address{}.Hex(),
		"alloc": map[string]any{
			crypto.PubkeyToAddress(dev.PublicKey).Hex(): map[string]string{"balance": "0xad78ebc5ac6200000000"},
		},
		"number": "0x0", "gasUsed": "0x0", "parentHash": common.Hash{}.Hex(),
	}
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "genesis.json")
	return path, os.WriteFile(path, data, 0o644)
}
