package node

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/miner"
	"github.com/basaltchain/basalt/testsupport/chaingen"
)

// The debug test chain: contracts in the genesis, transactions calling
// them in blocks built by the chain's own builder and inserted into a
// running node; the tests talk to the node over HTTP only.
var (
	// nestedAddr adds its calldata word to slot 0, calls calleeAddr with
	// the sum, keeps the callee's answer in slot 1 and its success in slot
	// 2, logs and returns 64 bytes of memory.
	nestedAddr = common.HexToAddress("0x000000000000000000000000000000000000c010")
	// calleeAddr stores its calldata word + 1 in slot 0 and its caller in
	// slot 1, and returns the sum.
	calleeAddr = common.HexToAddress("0x000000000000000000000000000000000000c011")
	// reverterAddr writes slot 0, calls calleeAddr, then reverts with
	// Error("nope").
	reverterAddr = common.HexToAddress("0x000000000000000000000000000000000000c012")
	// slotsAddr holds 1,000 slots (slot i = i+1); a call clears slot 0,
	// sets slot 3 to 9 and slot 5000 to 7.
	slotsAddr = common.HexToAddress("0x000000000000000000000000000000000000c013")
	// loopAddr spins on arithmetic and memory writes (8 words) until less
	// than 30,000 gas is left, then stores its counter: a transaction of
	// 1,000,000 gas uses it all.
	loopAddr = common.HexToAddress("0x000000000000000000000000000000000000c014")
)

// Bytecode, assembled by hand (comments give the program).
var (
	// calldataload(0)+1 → slot 0; caller → slot 1; return the sum.
	calleeCode = common.FromHex("600035600101" + "80600055" + "33600155" + "600052" + "60206000f3")
	// v := calldataload(0)+sload(0); sstore(0,v); mstore(0,v);
	// ok := call(gas, callee, 0, 0, 32, 32, 32); sstore(2, ok);
	// sstore(1, mload(32)); log1(0, 64, 0xaa); return(0, 64)
	nestedCode = common.FromHex("600035" + "600054" + "01" + "80600055" + "600052" +
		"6020" + "6020" + "6020" + "6000" + "6000" + "73" + calleeAddr.Hex()[2:] + "5a" + "f1" +
		"600255" + "602051600155" + "60aa60406000a1" + "60406000f3")
	// sstore(0,5); call(gas, callee, 0, 0, 0, 0, 0); revert(Error("nope"))
	reverterCode = common.FromHex("6005600055" +
		"6000600060006000600073" + calleeAddr.Hex()[2:] + "5af150" +
		"7f08c379a000000000000000000000000000000000000000000000000000000000600052" +
		"6020600452" + "6004602452" +
		"7f6e6f706500000000000000000000000000000000000000000000000000000000604452" +
		"60646000fd")
	// sstore(0,0); sstore(5000,7); sstore(3,9)
	slotsCode = common.FromHex("6000600055" + "600761138855" + "6009600355" + "00")
	// i := 0; loop { mstore((i&7)<<5, i); i++; if gas < 30000 break }; sstore(0, i)
	loopCode = common.FromHex("6000" + "5b" + "8080" + "600716" + "60051b" + "52" + "600101" +
		"617530" + "5a" + "10" + "15" + "600257" + "600055" + "00")
)

// debugGenesis is the fast-sealing dev genesis with the test contracts.
func debugGenesis() *config.Genesis {
	g := chaingen.Genesis(1)
	alloc := make(types.GenesisAlloc, len(g.Core.Alloc)+5)
	for a, acc := range g.Core.Alloc {
		alloc[a] = acc
	}
	slots := make(map[common.Hash]common.Hash, 1000)
	for i := range 1000 {
		slots[common.BigToHash(big.NewInt(int64(i)))] = common.BigToHash(big.NewInt(int64(i + 1)))
	}
	alloc[nestedAddr] = types.Account{Code: nestedCode, Balance: new(big.Int)}
	alloc[calleeAddr] = types.Account{Code: calleeCode, Balance: new(big.Int)}
	alloc[reverterAddr] = types.Account{Code: reverterCode, Balance: new(big.Int)}
	alloc[slotsAddr] = types.Account{Code: slotsCode, Balance: new(big.Int), Storage: slots}
	alloc[loopAddr] = types.Account{Code: loopCode, Balance: new(big.Int)}
	g.Core.Alloc = alloc
	return g
}

// debugEnv is a running node on the debug test chain.
type debugEnv struct {
	n      *Node
	g      *config.Genesis
	key    *ecdsa.PrivateKey
	nonce  uint64
	blocks []*types.Block // blocks 1.. as inserted
	logs   *lockedBuffer  // the node's log
	// bulk inserts blocks as a bulk import does, keeping only some states.
	bulk bool
}

// lockedBuffer is a log sink safe for the node's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startDebugNode starts a node on the debug genesis with ETH and DEBUG
// over HTTP and the given trace size limit (--rpc-max-trace-size).
func startDebugNode(tb testing.TB, traceLimit int) *debugEnv {
	tb.Helper()
	return startDebugNodeWith(tb, traceLimit, nil)
}

// startDebugNodeWith is startDebugNode with the configuration adjusted by
// opts (when not nil) before the node starts.
func startDebugNodeWith(tb testing.TB, traceLimit int, opts func(*config.Config)) *debugEnv {
	tb.Helper()
	dir := tb.TempDir()
	g := debugGenesis()
	cfg := &config.Config{
		DataPath:           dir,
		NodePrivateKeyFile: filepath.Join(dir, "key"),
		NetworkID:          config.DevChainID,
		Genesis:            g,
		MinGasPrice:        bigOne(),
		HostAllowlist:      []string{"localhost", "127.0.0.1"},
	}
	cfg.TxPool.MaxSize = 4096
	cfg.RPC.HTTPEnabled, cfg.RPC.HTTPHost = true, "127.0.0.1"
	cfg.RPC.HTTPAPIs = []string{"ETH", "DEBUG"}
	cfg.RPC.MaxTraceSize = traceLimit
	if opts != nil {
		opts(cfg)
	}
	logs := new(lockedBuffer)
	n, err := newNode(cfg, slog.New(slog.NewTextHandler(logs, nil)), func(g *config.Genesis, _ EngineEnv) (consensus.Engine, error) {
		return chaingen.UnsealedEngine(g), nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := n.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { n.Close() })
	return &debugEnv{n: n, g: g, key: crypto.ToECDSAUnsafe(common.FromHex(config.DevAccounts[1].PrivateKey)), logs: logs}
}

// tx signs a call of to with data and gas, at the sender's next nonce.
func (e *debugEnv) tx(tb testing.TB, to common.Address, data []byte, gas uint64) *types.Transaction {
	tb.Helper()
	id := big.NewInt(config.DevChainID)
	tx, err := types.SignNewTx(e.key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{
		ChainID: id, Nonce: e.nonce, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: gas, To: &to, Data: data,
	})
	if err != nil {
		tb.Fatal(err)
	}
	e.nonce++
	return tx
}

// fixedTxs offers the block builder a fixed list of transactions.
type fixedTxs []*types.Transaction

func (f fixedTxs) PendingIterator(*big.Int) miner.TxIterator { return &fixedIter{txs: f} }

type fixedIter struct {
	txs []*types.Transaction
	i   int
}

func (it *fixedIter) Peek() *types.Transaction {
	if it.i < len(it.txs) {
		return it.txs[it.i]
	}
	return nil
}
func (it *fixedIter) Shift() { it.i++ }
func (it *fixedIter) Pop()   { it.i++ }

// block builds a block of txs on the head with the chain's builder and
// inserts it into the node.
func (e *debugEnv) block(tb testing.TB, txs ...*types.Transaction) *types.Block {
	tb.Helper()
	c, ctx := e.n.Chain(), context.Background()
	parent := c.CurrentHeader()
	coinbase := common.HexToAddress("0x00000000000000000000000000000000000c0b01")
	block, exec, err := miner.Build(ctx, c, parent, c.CurrentHash(), parent.Time+1, fixedTxs(txs), coinbase, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if len(block.Transactions()) != len(txs) {
		tb.Fatalf("block %d holds %d of %d transactions", block.Number(), len(block.Transactions()), len(txs))
	}
	sealed, err := c.Engine().Seal(ctx, block.Header())
	if err != nil {
		tb.Fatal(err)
	}
	block = block.WithSeal(sealed)
	if _, err := c.InsertBlock(ctx, block, chain.InsertOptions{Executed: exec, NoSync: e.bulk}); err != nil {
		tb.Fatal(err)
	}
	e.blocks = append(e.blocks, block)
	return block
}

// rpcAnswer is a JSON-RPC answer.
type rpcAnswer struct {
	Result json.RawMessage
	Error  *struct {
		Code    int
		Message string
	}
}

// post sends one request over HTTP.
func (e *debugEnv) post(tb testing.TB, method string, params ...any) rpcAnswer {
	tb.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	return e.postRaw(tb, body)
}

func (e *debugEnv) postRaw(tb testing.TB, body []byte) rpcAnswer {
	tb.Helper()
	out, err := e.tryPost(body)
	if err != nil {
		tb.Fatalf("%s: %v", body, err)
	}
	return out
}

// tryPost sends one request body; safe outside the test's goroutine.
func (e *debugEnv) tryPost(body []byte) (rpcAnswer, error) {
	var out rpcAnswer
	resp, err := http.Post("http://"+e.n.HTTPAddr(), "application/json", bytes.NewReader(body))
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return out, fmt.Errorf("undecodable answer: %w", err)
	}
	return out, nil
}

// call posts and fails on an error answer.
func (e *debugEnv) call(tb testing.TB, method string, params ...any) json.RawMessage {
	tb.Helper()
	a := e.post(tb, method, params...)
	if a.Error != nil {
		tb.Fatalf("%s %v: %d %s", method, params, a.Error.Code, a.Error.Message)
	}
	return a.Result
}

// gethReplay re-executes blocks on the genesis state with go-ethereum's
// own state processing functions (core.ApplyTransaction), independently
// of Basalt's executor, handing transaction (block index, tx index) to the
// hooks trace returns (nil: untraced). Pre-block system calls run as in
// every client; block rewards and the post-block system calls are left
// out: they touch only the coinbase and the system contracts, none of
// which the traced transactions read. PoW blocks run the timestamp forks
// with PREVRANDAO reading the difficulty (DESIGN.md, "Fork rules").
func gethReplay(tb testing.TB, g *config.Genesis, blocks []*types.Block, trace func(b, i int) *tracing.Hooks) {
	tb.Helper()
	db := rawdb.NewMemoryDatabase()
	tdb := triedb.NewDatabase(db, triedb.HashDefaults)
	genesis := g.Core.MustCommit(db, tdb)
	st, err := state.New(genesis.Root(), state.NewDatabase(tdb, nil))
	if err != nil {
		tb.Fatal(err)
	}
	cfg := g.Core.Config
	for bi, block := range blocks {
		header := block.Header()
		random := common.BigToHash(header.Difficulty)
		bctx := vm.BlockContext{
			CanTransfer: core.CanTransfer, Transfer: core.Transfer,
			GetHash:  func(uint64) common.Hash { return common.Hash{} },
			Coinbase: header.Coinbase, BlockNumber: new(big.Int).Set(header.Number), Time: header.Time,
			Difficulty: new(big.Int).Set(header.Difficulty), BaseFee: header.BaseFee, GasLimit: header.GasLimit,
			Random: &random, CostPerStateByte: params.CostPerStateByte,
		}
		if header.ExcessBlobGas != nil {
			bctx.BlobBaseFee = eip4844.CalcBlobFee(cfg, header)
		}
		plain := vm.NewEVM(bctx, st, cfg, vm.Config{})
		if header.ParentBeaconRoot != nil {
			core.ProcessBeaconBlockRoot(*header.ParentBeaconRoot, plain, nil)
		}
		if cfg.IsPrague(header.Number, header.Time) {
			core.ProcessParentBlockHash(header.ParentHash, plain, nil)
		}
		gp := core.NewGasPool(header.GasLimit)
		for i, tx := range block.Transactions() {
			evm := plain
			if hooks := trace(bi, i); hooks != nil {
				evm = vm.NewEVM(bctx, state.NewHookedState(st, hooks), cfg, vm.Config{Tracer: hooks})
			}
			st.SetTxContext(tx.Hash(), i, uint32(i+1))
			if _, _, err := core.ApplyTransaction(context.Background(), evm, gp, st, header, tx); err != nil {
				tb.Fatalf("go-ethereum replay of block %d tx %d: %v", header.Number, i, err)
			}
		}
	}
}

// structLogTrace is the Trace object, its steps left as JSON.
type structLogTrace struct {
	Gas         uint64            `json:"gas"`
	Failed      bool              `json:"failed"`
	ReturnValue string            `json:"returnValue"`
	StructLogs  []json.RawMessage `json:"structLogs"`
}

// lastOp is the op of a trace's last step.
func (t structLogTrace) lastOp() string {
	if len(t.StructLogs) == 0 {
		return ""
	}
	var s struct{ Op string }
	_ = json.Unmarshal(t.StructLogs[len(t.StructLogs)-1], &s)
	return s.Op
}

// compareTraces reports the first difference between two struct log
// traces, step by step.
func compareTraces(tb testing.TB, what string, gotRaw, wantRaw json.RawMessage) {
	tb.Helper()
	var got, want structLogTrace
	if err := json.Unmarshal(gotRaw, &got); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(wantRaw, &want); err != nil {
		tb.Fatal(err)
	}
	if got.Gas != want.Gas || got.Failed != want.Failed || got.ReturnValue != want.ReturnValue {
		tb.Errorf("%s: gas/failed/returnValue %d/%v/%q, go-ethereum %d/%v/%q", what,
			got.Gas, got.Failed, got.ReturnValue, want.Gas, want.Failed, want.ReturnValue)
	}
	if len(got.StructLogs) != len(want.StructLogs) {
		tb.Errorf("%s: %d steps, go-ethereum %d", what, len(got.StructLogs), len(want.StructLogs))
	}
	for i := range min(len(got.StructLogs), len(want.StructLogs)) {
		if !jsonEqual(tb, got.StructLogs[i], want.StructLogs[i]) {
			tb.Fatalf("%s: step %d differs:\n got %s\nwant %s", what, i, got.StructLogs[i], want.StructLogs[i])
		}
	}
}

// debugChain is the chain every debug test reads: block 1 calls the
// nested contract, the reverter and the slots contract and makes a
// transfer; block 2 calls the nested contract again (on block 1's state).
func debugChain(tb testing.TB, traceLimit int) (*debugEnv, map[string]*types.Transaction) {
	return buildDebugChain(tb, startDebugNode(tb, traceLimit))
}

func buildDebugChain(tb testing.TB, e *debugEnv) (*debugEnv, map[string]*types.Transaction) {
	word := common.BigToHash(big.NewInt(0x2a))
	txs := map[string]*types.Transaction{
		"nested":   e.tx(tb, nestedAddr, word[:], 200_000),
		"reverter": e.tx(tb, reverterAddr, nil, 200_000),
		"slots":    e.tx(tb, slotsAddr, nil, 200_000),
		"transfer": e.tx(tb, common.Address{0xbe, 0xef}, nil, 21_000),
	}
	e.block(tb, txs["nested"], txs["reverter"], txs["slots"], txs["transfer"])
	one := common.BigToHash(big.NewInt(1))
	txs["nested2"] = e.tx(tb, nestedAddr, one[:], 200_000)
	e.block(tb, txs["nested2"])
	return e, txs
}

// TestDebugTraceTransactionMatchesGeth is the acceptance test of
// debug_traceTransaction: the node's trace of a contract call with a
// nested call, of a reverting transaction and of a call on the state a
// previous block left equals, step by step, go-ethereum's struct logger
// on go-ethereum's own replay of the same blocks (fetched from the node
// with debug_getRawBlock).
func TestDebugTraceTransactionMatchesGeth(t *testing.T) {
	e, txs := debugChain(t, 0)
	var blocks []*types.Block
	for n := 1; n <= 2; n++ {
		var raw hexutil.Bytes
		if err := json.Unmarshal(e.call(t, "debug_getRawBlock", hexutil.EncodeUint64(uint64(n))), &raw); err != nil {
			t.Fatal(err)
		}
		b := new(types.Block)
		if err := rlp.DecodeBytes(raw, b); err != nil {
			t.Fatalf("debug_getRawBlock %d: %v", n, err)
		}
		blocks = append(blocks, b)
	}
	loggers := map[[2]int]*logger.StructLogger{}
	calls := map[[2]int]*tracers.Tracer{}
	gethReplay(t, e.g, blocks, func(b, i int) *tracing.Hooks {
		l := logger.NewStructLogger(&logger.Config{EnableMemory: true})
		loggers[[2]int{b, i}] = l
		return l.Hooks()
	})
	gethReplay(t, e.g, blocks, func(b, i int) *tracing.Hooks {
		ct, err := tracers.DefaultDirectory.New("callTracer", &tracers.Context{}, nil, e.g.Core.Config)
		if err != nil {
			t.Fatal(err)
		}
		calls[[2]int{b, i}] = ct
		return ct.Hooks
	})
	// And go-ethereum's defaults (no memory) with return data on.
	plain := map[[2]int]*logger.StructLogger{}
	gethReplay(t, e.g, blocks, func(b, i int) *tracing.Hooks {
		l := logger.NewStructLogger(&logger.Config{EnableReturnData: true})
		plain[[2]int{b, i}] = l
		return l.Hooks()
	})
	at := map[string][2]int{"nested": {0, 0}, "reverter": {0, 1}, "slots": {0, 2}, "transfer": {0, 3}, "nested2": {1, 0}}
	for name, pos := range at {
		want, err := plain[pos].GetResult()
		if err != nil {
			t.Fatal(err)
		}
		got := e.call(t, "debug_traceTransaction", txs[name].Hash(), map[string]any{"enableMemory": false, "enableReturnData": true})
		compareTraces(t, name+" (enableMemory false, enableReturnData)", got, want)
	}
	for name, pos := range at {
		want, err := loggers[pos].GetResult()
		if err != nil {
			t.Fatal(err)
		}
		// The node captures memory by default (the API documents'
		// disableMemory); go-ethereum's logger was given enableMemory.
		got := e.call(t, "debug_traceTransaction", txs[name].Hash())
		compareTraces(t, name, got, want)
	}

	// The reverting transaction failed, with Error("nope") as its return
	// value, and its nested call succeeded inside it.
	var rev structLogTrace
	_ = json.Unmarshal(e.call(t, "debug_traceTransaction", txs["reverter"].Hash()), &rev)
	if !rev.Failed || !strings.HasPrefix(rev.ReturnValue, "0x08c379a0") || rev.lastOp() != "REVERT" {
		t.Errorf("reverter trace: failed %v, returnValue %q", rev.Failed, rev.ReturnValue)
	}

	// callTracer: the nested call's frames equal go-ethereum's.
	for _, name := range []string{"nested", "reverter"} {
		want, err := calls[at[name]].GetResult()
		if err != nil {
			t.Fatal(err)
		}
		got := e.call(t, "debug_traceTransaction", txs[name].Hash(), map[string]any{"tracer": "callTracer"})
		if !jsonEqual(t, got, want) {
			t.Errorf("callTracer of %s:\n got %s\nwant %s", name, got, want)
		}
	}
	var frame struct {
		Calls []struct{ To common.Address }
	}
	_ = json.Unmarshal(e.call(t, "debug_traceTransaction", txs["nested"].Hash(), map[string]any{"tracer": "callTracer"}), &frame)
	if len(frame.Calls) != 1 || frame.Calls[0].To != calleeAddr {
		t.Errorf("callTracer of the nested call: inner calls %+v", frame.Calls)
	}
}

func jsonEqual(tb testing.TB, a, b json.RawMessage) bool {
	tb.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		tb.Fatal(err)
	}
	xj, _ := json.Marshal(x)
	yj, _ := json.Marshal(y)
	return bytes.Equal(xj, yj)
}

// TestDebugTraceOptions: each disable option removes exactly its field
// from every step and changes nothing else; traceBlockByNumber/Hash give
// each transaction's trace with its hash; traceCall runs the call object
// on the block's state; the genesis block cannot be traced.
func TestDebugTraceOptions(t *testing.T) {
	e, txs := debugChain(t, 0)
	hash := txs["nested"].Hash()
	steps := func(raw json.RawMessage) []map[string]json.RawMessage {
		var tr struct{ StructLogs []map[string]json.RawMessage }
		if err := json.Unmarshal(raw, &tr); err != nil {
			t.Fatal(err)
		}
		return tr.StructLogs
	}
	full := steps(e.call(t, "debug_traceTransaction", hash))
	withStorage, withMemory := 0, 0
	for _, s := range full {
		if _, ok := s["storage"]; ok {
			withStorage++
		}
		if _, ok := s["memory"]; ok {
			withMemory++
		}
		for _, f := range []string{"pc", "op", "gas", "gasCost", "depth", "stack"} {
			if _, ok := s[f]; !ok {
				t.Fatalf("step without %s: %v", f, s)
			}
		}
	}
	if withStorage == 0 || withMemory == 0 {
		t.Fatalf("steps of the nested call with storage %d, with memory %d", withStorage, withMemory)
	}
	for opt, field := range map[string]string{"disableStack": "stack", "disableMemory": "memory", "disableStorage": "storage"} {
		got := steps(e.call(t, "debug_traceTransaction", hash, map[string]any{opt: true}))
		if len(got) != len(full) {
			t.Fatalf("%s: %d steps, %d without it", opt, len(got), len(full))
		}
		for i := range got {
			want := make(map[string]json.RawMessage, len(full[i]))
			for k, v := range full[i] {
				if k != field {
					want[k] = v
				}
			}
			gj, _ := json.Marshal(got[i])
			wj, _ := json.Marshal(want)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("%s, step %d:\n got %s\nwant %s", opt, i, gj, wj)
			}
		}
	}
	// The execution-apis enableMemory: false also leaves memory out.
	for i, s := range steps(e.call(t, "debug_traceTransaction", hash, map[string]any{"enableMemory": false})) {
		if s["memory"] != nil {
			t.Fatalf("enableMemory false kept memory at step %d", i)
		}
	}
	// limit: the first steps only.
	if s := steps(e.call(t, "debug_traceTransaction", hash, map[string]any{"limit": 5})); len(s) != 5 || !jsonEqual(t, mustJSON(t, s), mustJSON(t, full[:5])) {
		t.Errorf("limit 5: %d steps", len(s))
	}

	// Block traces: one entry per transaction, in order, each what
	// debug_traceTransaction answers.
	block := e.blocks[0]
	byNumber := e.call(t, "debug_traceBlockByNumber", "0x1")
	byHash := e.call(t, "debug_traceBlockByHash", e.n.Chain().Hash(block.Header()))
	if !jsonEqual(t, byNumber, byHash) {
		t.Error("debug_traceBlockByNumber and debug_traceBlockByHash differ")
	}
	var entries []struct {
		TxHash common.Hash
		Result json.RawMessage
	}
	if err := json.Unmarshal(byNumber, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(block.Transactions()) {
		t.Fatalf("block trace of %d entries for %d transactions", len(entries), len(block.Transactions()))
	}
	for i, tx := range block.Transactions() {
		if entries[i].TxHash != tx.Hash() {
			t.Errorf("entry %d is of %v, want %v", i, entries[i].TxHash, tx.Hash())
		}
		if !jsonEqual(t, entries[i].Result, e.call(t, "debug_traceTransaction", tx.Hash())) {
			t.Errorf("entry %d differs from debug_traceTransaction", i)
		}
	}
	var calls []struct{ Result struct{ Type string } }
	_ = json.Unmarshal(e.call(t, "debug_traceBlockByNumber", "0x2", map[string]any{"tracer": "callTracer"}), &calls)
	if len(calls) != 1 || calls[0].Result.Type != "CALL" {
		t.Errorf("callTracer block trace: %+v", calls)
	}

	// traceCall: the callee on block 1's state answers calldata + 1.
	word := common.BigToHash(big.NewInt(41))
	var tc structLogTrace
	_ = json.Unmarshal(e.call(t, "debug_traceCall", map[string]any{"to": calleeAddr, "data": hexutil.Bytes(word[:])}, "0x1"), &tc)
	if tc.Failed || tc.ReturnValue != fmt.Sprintf("0x%064x", 42) || tc.lastOp() != "RETURN" {
		t.Errorf("debug_traceCall: failed %v returnValue %q, %d steps", tc.Failed, tc.ReturnValue, len(tc.StructLogs))
	}
	var frame struct {
		Type, Output string
		Calls        []json.RawMessage
	}
	_ = json.Unmarshal(e.call(t, "debug_traceCall", map[string]any{"to": nestedAddr, "data": hexutil.Bytes(word[:])}, "latest",
		map[string]any{"tracer": "callTracer"}), &frame)
	if frame.Type != "CALL" || len(frame.Calls) != 1 {
		t.Errorf("debug_traceCall with callTracer: %+v", frame)
	}
	// With a state override, the prestate tracer sees the overridden code.
	var pre map[common.Address]struct{ Code hexutil.Bytes }
	_ = json.Unmarshal(e.call(t, "debug_traceCall", map[string]any{"to": common.Address{0x77}}, "latest",
		map[string]any{"tracer": "prestateTracer", "stateOverrides": map[string]any{common.Address{0x77}.Hex(): map[string]any{"code": "0x600160005500"}}}), &pre)
	if got := pre[common.Address{0x77}].Code; !bytes.Equal(got, common.FromHex("0x600160005500")) {
		t.Errorf("prestateTracer with an override: code %x", got)
	}

	// Errors.
	for _, c := range []struct {
		method string
		params []any
		code   int
		msg    string
	}{
		{"debug_traceBlockByNumber", []any{"0x0"}, -32000, "genesis is not traceable"},
		{"debug_traceBlockByNumber", []any{"0x99"}, -32000, "Block not found"},
		{"debug_traceBlockByHash", []any{common.Hash{1}}, -32000, "Block not found"},
		{"debug_traceTransaction", []any{hash, map[string]any{"tracer": "myTracer"}}, -32602, "Invalid transaction trace params"},
		{"debug_traceTransaction", []any{hash, map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"onlyTopCall": "x"}}}, -32602, "Invalid transaction trace params"},
		{"debug_traceTransaction", []any{"0x12"}, -32602, "Invalid transaction hash params"},
		{"debug_traceTransaction", []any{hash, "x"}, -32602, "Invalid transaction trace params"},
	} {
		a := e.post(t, c.method, c.params...)
		if a.Error == nil || a.Error.Code != c.code || !strings.HasPrefix(a.Error.Message, c.msg) {
			t.Errorf("%s %v: %+v %s, want %d %s", c.method, c.params, a.Error, a.Result, c.code, c.msg)
		}
	}
	if r := e.call(t, "debug_traceTransaction", common.Hash{2}); string(r) != "null" {
		t.Errorf("trace of an unknown transaction: %s", r)
	}
}

// TestDebugTraceLimit: a trace larger than --rpc-max-trace-size fails with
// an error naming the option; smaller ones are served.
func TestDebugTraceLimit(t *testing.T) {
	e := startDebugNode(t, 64<<10)
	small := e.tx(t, calleeAddr, nil, 100_000)
	large := e.tx(t, loopAddr, nil, 1_000_000)
	e.block(t, small, large)
	e.call(t, "debug_traceTransaction", small.Hash())
	for _, params := range [][]any{
		{large.Hash()},
		{large.Hash(), map[string]any{"disableMemory": true, "disableStack": true, "disableStorage": true}},
	} {
		a := e.post(t, "debug_traceTransaction", params...)
		if a.Error == nil || a.Error.Code != -32000 || !strings.Contains(a.Error.Message, "--rpc-max-trace-size") {
			t.Errorf("trace past the limit %v: %+v", params[1:], a.Error)
		}
	}
	if a := e.post(t, "debug_traceBlockByNumber", "0x1"); a.Error == nil || !strings.Contains(a.Error.Message, "--rpc-max-trace-size") {
		t.Errorf("block trace past the limit: %+v", a.Error)
	}
	// The call tracer's output is small.
	e.call(t, "debug_traceTransaction", large.Hash(), map[string]any{"tracer": "callTracer"})
}

// TestDebugStorageRangeAt pages through the 1,000-slot contract with
// nextKey: no gaps, no repeats, the values of the state after the
// transaction named, in hashed-key order, each with its slot as key —
// also the slots written in blocks before the one named, which the answer
// names from the preimages the chain recorded (as Besu does).
func TestDebugStorageRangeAt(t *testing.T) {
	e, _ := debugChain(t, 0)
	blockHash := e.n.Chain().Hash(e.blocks[0].Header())
	block2Hash := e.n.Chain().Hash(e.blocks[1].Header())
	genesisSlots := make(map[common.Hash]common.Hash, 1000)
	for i := range 1000 {
		genesisSlots[common.BigToHash(big.NewInt(int64(i)))] = common.BigToHash(big.NewInt(int64(i + 1)))
	}
	after := make(map[common.Hash]common.Hash, len(genesisSlots))
	for k, v := range genesisSlots {
		after[k] = v
	}
	delete(after, common.Hash{})
	after[common.BigToHash(big.NewInt(3))] = common.BigToHash(big.NewInt(9))
	after[common.BigToHash(big.NewInt(5000))] = common.BigToHash(big.NewInt(7))

	type entry struct {
		Key   *common.Hash
		Value common.Hash
	}
	page := func(blockHash common.Hash, txIndex, limit int, want map[common.Hash]common.Hash) {
		t.Helper()
		byHash := make(map[common.Hash]common.Hash, len(want))
		for k, v := range want {
			byHash[crypto.Keccak256Hash(k[:])] = v
		}
		seen := make(map[common.Hash]bool)
		var from *common.Hash // the nextKey the page was asked from
		next := "0x0"
		for pages := 0; ; pages++ {
			if pages > len(want)/limit+2 {
				t.Fatal("too many pages")
			}
			var r struct {
				Storage map[common.Hash]entry
				NextKey *common.Hash
			}
			if err := json.Unmarshal(e.call(t, "debug_storageRangeAt", blockHash, txIndex, slotsAddr, next, limit), &r); err != nil {
				t.Fatal(err)
			}
			if len(r.Storage) > limit || (r.NextKey != nil && len(r.Storage) != limit) {
				t.Fatalf("page of %d entries, limit %d, nextKey %v", len(r.Storage), limit, r.NextKey)
			}
			for h, en := range r.Storage {
				if seen[h] {
					t.Fatalf("slot %v repeated", h)
				}
				seen[h] = true
				if v, ok := byHash[h]; !ok || v != en.Value {
					t.Fatalf("slot %v = %v, want %v (present %v)", h, en.Value, v, ok)
				}
				if en.Key == nil || crypto.Keccak256Hash(en.Key[:]) != h {
					t.Fatalf("key %v does not hash to %v", en.Key, h)
				}
				if from != nil && h.Cmp(*from) < 0 {
					t.Fatalf("slot %v before the page's start %v", h, *from)
				}
				if r.NextKey != nil && h.Cmp(*r.NextKey) >= 0 {
					t.Fatalf("slot %v not before nextKey %v", h, *r.NextKey)
				}
			}
			if r.NextKey == nil {
				break
			}
			from = r.NextKey
			next = r.NextKey.Hex()
		}
		if len(seen) != len(want) {
			t.Fatalf("txIndex %d: %d slots seen, want %d (gaps)", txIndex, len(seen), len(want))
		}
	}
	page(blockHash, 1, 64, genesisSlots) // after the reverter: the genesis slots
	page(blockHash, 2, 64, after)        // after the slots transaction
	page(blockHash, 3, 333, after)
	page(blockHash, 99, 1000, after) // past the last transaction: the block's post-state
	// Block 2 does not touch the contract: every slot comes from the state
	// blocks 0 and 1 wrote.
	page(block2Hash, 0, 100, after)

	a := e.post(t, "debug_storageRangeAt", common.Hash{9}, 0, slotsAddr, "0x0", 10)
	if a.Error == nil || a.Error.Message != "Block not found" {
		t.Errorf("unknown block: %+v", a.Error)
	}
	var empty struct {
		Storage map[string]any
		NextKey *common.Hash
	}
	_ = json.Unmarshal(e.call(t, "debug_storageRangeAt", blockHash, 0, common.Address{0x55}, "0x0", 10), &empty)
	if len(empty.Storage) != 0 || empty.NextKey != nil {
		t.Errorf("storage of an empty account: %+v", empty)
	}
}

// TestDebugRawAndAccountRange checks the raw getters against the node's
// eth answers and pages through the accounts.
func TestDebugRawAndAccountRange(t *testing.T) {
	e, txs := debugChain(t, 0)
	c := e.n.Chain()
	block := e.blocks[0]
	var raw hexutil.Bytes
	_ = json.Unmarshal(e.call(t, "debug_getRawHeader", "0x1"), &raw)
	var h types.Header
	if err := rlp.DecodeBytes(raw, &h); err != nil || c.Hash(&h) != c.Hash(block.Header()) {
		t.Errorf("debug_getRawHeader: %v", err)
	}
	_ = json.Unmarshal(e.call(t, "debug_getRawHeader", c.Hash(block.Header())), &raw)
	if err := rlp.DecodeBytes(raw, &h); err != nil || h.Number.Uint64() != 1 {
		t.Errorf("debug_getRawHeader by hash: %v", err)
	}
	var receipts []hexutil.Bytes
	_ = json.Unmarshal(e.call(t, "debug_getRawReceipts", "0x1"), &receipts)
	if len(receipts) != 4 {
		t.Fatalf("%d raw receipts", len(receipts))
	}
	for i, enc := range receipts {
		var r types.Receipt
		if err := r.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		var want struct{ Status hexutil.Uint64 }
		_ = json.Unmarshal(e.call(t, "eth_getTransactionReceipt", block.Transactions()[i].Hash()), &want)
		if r.Status != uint64(want.Status) {
			t.Errorf("receipt %d: status %d, eth_getTransactionReceipt %d", i, r.Status, want.Status)
		}
	}
	_ = json.Unmarshal(e.call(t, "debug_getRawTransaction", txs["reverter"].Hash()), &raw)
	if want, _ := txs["reverter"].MarshalBinary(); !bytes.Equal(raw, want) {
		t.Error("debug_getRawTransaction differs from the signed transaction")
	}
	if r := e.call(t, "debug_getRawTransaction", common.Hash{3}); string(r) != "null" {
		t.Errorf("raw unknown transaction: %s", r)
	}
	if a := e.post(t, "debug_getRawBlock", "0x50"); a.Error == nil || a.Error.Message != "Block not found" {
		t.Errorf("raw block past the head: %+v", a.Error)
	}

	// Accounts: every one once, in hashed order, across pages.
	seen := map[common.Hash]bool{}
	next := "0x0"
	for {
		var r struct {
			AddressMap map[common.Hash]*common.Address
			NextKey    *common.Hash
		}
		_ = json.Unmarshal(e.call(t, "debug_accountRange", "0x2", 0, next, 3), &r)
		for k, a := range r.AddressMap {
			if seen[k] {
				t.Fatalf("account %v twice", k)
			}
			seen[k] = true
			// Named from the recorded preimages.
			if a == nil || crypto.Keccak256Hash(a[:]) != k {
				t.Errorf("account %v: address %v", k, a)
			}
		}
		if r.NextKey == nil {
			break
		}
		next = r.NextKey.Hex()
	}
	for _, a := range []common.Address{nestedAddr, calleeAddr, slotsAddr, loopAddr, crypto.PubkeyToAddress(e.key.PublicKey)} {
		if !seen[crypto.Keccak256Hash(a[:])] {
			t.Errorf("account %v missing from the range", a)
		}
	}
}

// TestDebugTraceOnRebuiltState traces on a chain inserted as a bulk import
// inserts it, which keeps only some states: the state a trace starts from
// is rebuilt by re-execution, and the traces equal those on a chain that
// kept every state.
func TestDebugTraceOnRebuiltState(t *testing.T) {
	kept, txs := debugChain(t, 0)
	bulk := startDebugNode(t, 0)
	bulk.bulk = true
	buildDebugChain(t, bulk)
	bulk.block(t, bulk.tx(t, common.Address{0xbe, 0xef}, nil, 21_000)) // block 2 is not the head
	c := bulk.n.Chain()
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	if c.HasState(bulk.blocks[0].Root()) {
		t.Fatal("the bulk insert kept block 1's state; the test needs it missing")
	}
	for _, name := range []string{"nested2", "slots"} {
		want := kept.call(t, "debug_traceTransaction", txs[name].Hash())
		if got := bulk.call(t, "debug_traceTransaction", txs[name].Hash()); !jsonEqual(t, got, want) {
			t.Errorf("%s traced on a rebuilt state differs", name)
		}
	}
	hash := c.Hash(bulk.blocks[1].Header())
	want := kept.call(t, "debug_storageRangeAt", hash, 0, nestedAddr, "0x0", 10)
	if got := bulk.call(t, "debug_storageRangeAt", hash, 0, nestedAddr, "0x0", 10); !jsonEqual(t, got, want) {
		t.Errorf("storage range on a rebuilt state:\n got %s\nwant %s", got, want)
	}
}

func mustJSON(tb testing.TB, v any) json.RawMessage {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestDebugConcurrentTraces runs traces of every kind at once (run with
// -race): each request has its tracer and state of its own, and the
// answers equal the ones given one at a time.
func TestDebugConcurrentTraces(t *testing.T) {
	e, txs := debugChain(t, 0)
	type req struct {
		method string
		params []any
	}
	reqs := []req{
		{"debug_traceTransaction", []any{txs["nested"].Hash()}},
		{"debug_traceTransaction", []any{txs["reverter"].Hash(), map[string]any{"tracer": "callTracer"}}},
		{"debug_traceTransaction", []any{txs["nested2"].Hash(), map[string]any{"tracer": "prestateTracer"}}},
		{"debug_traceBlockByNumber", []any{"0x1", map[string]any{"disableMemory": true}}},
		{"debug_storageRangeAt", []any{e.n.Chain().Hash(e.blocks[0].Header()), 2, slotsAddr, "0x0", 100}},
	}
	want := make([]json.RawMessage, len(reqs))
	for i, r := range reqs {
		want[i] = e.call(t, r.method, r.params...)
	}
	var wg sync.WaitGroup
	for round := range 4 {
		for i, r := range reqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": r.method, "params": r.params})
				a, err := e.tryPost(body)
				if err != nil || a.Error != nil || !bytes.Equal(a.Result, want[i]) {
					t.Errorf("round %d, %s: concurrent answer differs (%v %+v)", round, r.method, err, a.Error)
				}
			}()
		}
	}
	wg.Wait()
}
