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
	if _, err := c.InsertBlock(ctx, block, chain.InsertOptions{Executed: exec}); err != nil {
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
	resp, err := http.Post("http://"+e.n.HTTPAddr(), "application/json", bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out rpcAnswer
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		tb.Fatalf("%s: undecodable answer: %v", body, err)
	}
	return out
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
			GetHash:     func(uint64) common.Hash { return common.Hash{} },
			Coinbase:    header.Coinbase, BlockNumber: new(big.Int).Set(header.Number), Time: header.Time,
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

// structLogStep is one struct log entry, in Besu's formatting.
type structLogStep struct {
	Pc      uint64            `json:"pc"`
	Op      string            `json:"op"`
	Gas     uint64            `json:"gas"`
	GasCost uint64            `json:"gasCost"`
	Depth   int               `json:"depth"`
	Stack   []string          `json:"stack"`
	Memory  []string          `json:"memory"`
	Storage map[string]string `json:"storage"`
	Error   string            `json:"error"`
}

type structLogTrace struct {
	Gas         uint64          `json:"gas"`
	Failed      bool            `json:"failed"`
	ReturnValue string          `json:"returnValue"`
	StructLogs  []structLogStep `json:"structLogs"`
}

// besuFormat rewrites go-ethereum's struct logger output in Besu's
// formatting — 64-digit un-prefixed stack values, un-prefixed memory
// words, storage and return value — leaving every value as it is.
func besuFormat(tb testing.TB, raw json.RawMessage) structLogTrace {
	tb.Helper()
	var t structLogTrace
	if err := json.Unmarshal(raw, &t); err != nil {
		tb.Fatal(err)
	}
	t.ReturnValue = strings.TrimPrefix(t.ReturnValue, "0x")
	for i := range t.StructLogs {
		s := &t.StructLogs[i]
		for j, v := range s.Stack {
			s.Stack[j] = fmt.Sprintf("%064s", strings.TrimPrefix(v, "0x"))
		}
		for j, v := range s.Memory {
			s.Memory[j] = strings.TrimPrefix(v, "0x")
		}
		if s.Storage != nil {
			st := make(map[string]string, len(s.Storage))
			for k, v := range s.Storage {
				st[strings.TrimPrefix(k, "0x")] = strings.TrimPrefix(v, "0x")
			}
			s.Storage = st
		}
		if s.Stack == nil {
			s.Stack = []string{}
		}
		if s.Memory == nil {
			s.Memory = []string{}
		}
	}
	return t
}

// compareTraces reports the first difference between two struct log
// traces, step by step.
func compareTraces(tb testing.TB, what string, got, want structLogTrace) {
	tb.Helper()
	if got.Gas != want.Gas || got.Failed != want.Failed || got.ReturnValue != want.ReturnValue {
		tb.Errorf("%s: gas/failed/returnValue %d/%v/%q, go-ethereum %d/%v/%q", what,
			got.Gas, got.Failed, got.ReturnValue, want.Gas, want.Failed, want.ReturnValue)
	}
	if len(got.StructLogs) != len(want.StructLogs) {
		tb.Errorf("%s: %d steps, go-ethereum %d", what, len(got.StructLogs), len(want.StructLogs))
	}
	for i := range min(len(got.StructLogs), len(want.StructLogs)) {
		g, w := got.StructLogs[i], want.StructLogs[i]
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if !bytes.Equal(gj, wj) {
			tb.Fatalf("%s: step %d differs:\n got %s\nwant %s", what, i, gj, wj)
		}
	}
}

// debugChain is the chain every debug test reads: block 1 calls the
// nested contract, the reverter and the slots contract and makes a
// transfer; block 2 calls the nested contract again (on block 1's state).
func debugChain(tb testing.TB, traceLimit int) (*debugEnv, map[string]*types.Transaction) {
	e := startDebugNode(tb, traceLimit)
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
	at := map[string][2]int{"nested": {0, 0}, "reverter": {0, 1}, "slots": {0, 2}, "transfer": {0, 3}, "nested2": {1, 0}}
	for name, pos := range at {
		want, err := loggers[pos].GetResult()
		if err != nil {
			t.Fatal(err)
		}
		got := e.call(t, "debug_traceTransaction", txs[name].Hash())
		compareTraces(t, name, besuFormat(t, got), besuFormat(t, want))
	}

	// The reverting transaction failed, with Error("nope") as its return
	// value, and its nested call succeeded inside it.
	var rev structLogTrace
	_ = json.Unmarshal(e.call(t, "debug_traceTransaction", txs["reverter"].Hash()), &rev)
	if !rev.Failed || !strings.HasPrefix(rev.ReturnValue, "08c379a0") || rev.StructLogs[len(rev.StructLogs)-1].Op != "REVERT" {
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
