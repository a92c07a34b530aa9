package api

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/filters"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// shapeEnv is a chain with every fork through Prague active from genesis:
// block 1 is empty (no transactions, uncles or withdrawals), block 2 holds
// one transaction of each type 0..4, every one with an empty access list
// (and type 4 with an empty authorization list), one uncle, and receipts
// without logs except the legacy transaction's, whose one log has no
// topics.
type shapeEnv struct {
	srv    *rpc.Server
	c      *chain.Chain
	txs    []*types.Transaction // block 2's, by type
	hashes [3]common.Hash       // engine hashes of blocks 0..2
	cfg    *params.ChainConfig
}

func newShapeEnv(t *testing.T) *shapeEnv {
	t.Helper()
	t0 := uint64(0)
	cfg := *chaintest.Genesis().Config
	cfg.ShanghaiTime, cfg.CancunTime, cfg.PragueTime = &t0, &t0, &t0
	cancun, prague := *params.DefaultCancunBlobConfig, *params.DefaultPragueBlobConfig
	cfg.BlobScheduleConfig = &params.BlobScheduleConfig{Cancun: &cancun, Prague: &prague}
	genesis := &core.Genesis{Config: &cfg, GasLimit: 30_000_000, Difficulty: big.NewInt(1), BaseFee: big.NewInt(params.InitialBaseFee)}

	db := chain.NewMemoryDatabase()
	t.Cleanup(func() { db.Close() })
	engine := chaintest.NewEngine()
	c, err := chain.Open(db, genesis, engine)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	e := &shapeEnv{c: c, cfg: &cfg}
	e.hashes[0] = c.CurrentHash()

	insert := func(header *types.Header, body *types.Body, receipts types.Receipts) common.Hash {
		t.Helper()
		parent := c.CurrentHeader()
		header.ParentHash = c.CurrentHash()
		header.Number = new(big.Int).Add(parent.Number, common.Big1)
		header.Time = parent.Time + 1
		header.GasLimit = parent.GasLimit
		header.Difficulty = big.NewInt(1)
		header.Root = parent.Root
		header.BaseFee = big.NewInt(params.InitialBaseFee)
		header.ParentBeaconRoot = new(common.Hash)
		header.RequestsHash = &types.EmptyRequestsHash
		header.ExcessBlobGas = new(uint64)
		if header.BlobGasUsed == nil {
			header.BlobGasUsed = new(uint64)
		}
		block := types.NewBlock(header, body, receipts, trie.NewStackTrie(nil))
		st, err := c.StateAt(parent.Root)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.InsertBlock(t.Context(), block, chain.InsertOptions{Executed: &chain.Executed{State: st, Receipts: receipts}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Hash
	}

	// Block 1: post-Shanghai, nothing in it.
	e.hashes[1] = insert(&types.Header{}, &types.Body{Withdrawals: []*types.Withdrawal{}}, nil)

	// Block 2: one transaction of each type, an uncle.
	key, _ := crypto.GenerateKey()
	signer := types.LatestSignerForChainID(cfg.ChainID)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	chainID := uint256.MustFromBig(cfg.ChainID)
	fee, tip := uint256.NewInt(2*params.InitialBaseFee), uint256.NewInt(1)
	for i, inner := range []types.TxData{
		&types.LegacyTx{Nonce: 0, To: &to, Gas: 21000, GasPrice: big.NewInt(2 * params.InitialBaseFee)},
		&types.AccessListTx{ChainID: cfg.ChainID, Nonce: 1, To: &to, Gas: 21000, GasPrice: big.NewInt(2 * params.InitialBaseFee), AccessList: types.AccessList{}},
		&types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: 2, To: &to, Gas: 21000, GasFeeCap: fee.ToBig(), GasTipCap: tip.ToBig()},
		&types.BlobTx{ChainID: chainID, Nonce: 3, To: to, Gas: 21000, GasFeeCap: fee, GasTipCap: tip, Value: new(uint256.Int),
			BlobFeeCap: uint256.NewInt(1), BlobHashes: []common.Hash{{0x01}}},
		&types.SetCodeTx{ChainID: chainID, Nonce: 4, To: to, Gas: 21000, GasFeeCap: fee, GasTipCap: tip, Value: new(uint256.Int)},
	} {
		tx, err := types.SignNewTx(key, signer, inner)
		if err != nil {
			t.Fatalf("sign type %d: %v", i, err)
		}
		e.txs = append(e.txs, tx)
	}
	receipts := make(types.Receipts, len(e.txs))
	for i, tx := range e.txs {
		r := &types.Receipt{Type: tx.Type(), Status: types.ReceiptStatusSuccessful, CumulativeGasUsed: 21000 * uint64(i+1), GasUsed: 21000, Logs: []*types.Log{}}
		if i == 0 {
			r.Logs = []*types.Log{{Address: to, Data: []byte{1}}}
		}
		r.Bloom = types.CreateBloom(r)
		receipts[i] = r
	}
	uncle := &types.Header{
		ParentHash: e.hashes[0], Number: big.NewInt(1), Difficulty: big.NewInt(1), GasLimit: 30_000_000,
		Time: 1, Extra: []byte("uncle"), BaseFee: big.NewInt(params.InitialBaseFee),
	}
	blobGas := uint64(params.BlobTxBlobGasPerBlob)
	e.hashes[2] = insert(&types.Header{GasUsed: 21000 * uint64(len(e.txs)), BlobGasUsed: &blobGas},
		&types.Body{Transactions: e.txs, Uncles: []*types.Header{uncle}, Withdrawals: []*types.Withdrawal{}}, receipts)

	sys := filters.New(c, nil, filters.Config{})
	reg := rpc.NewRegistry()
	if err := Register(reg, Groups(&backend.Backend{Chain: c, Filters: sys, Config: backend.Config{NetworkID: 1337}})...); err != nil {
		t.Fatal(err)
	}
	srv, err := rpc.NewServer(reg, rpc.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	return e
}

// result calls method and returns its result, failing on an error answer.
func (e *shapeEnv) result(t *testing.T, method string, params ...any) json.RawMessage {
	t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	resp, _ := e.srv.HandleMessage(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+string(p)+`}`))
	var out struct {
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal(resp, &out); err != nil || out.Error != nil || out.Result == nil {
		t.Fatalf("%s %s: %s", method, p, resp)
	}
	return out.Result
}

// at walks path (object keys, or array indexes as decimal strings) into
// raw; ok is false when a key or index is absent.
func at(t *testing.T, raw json.RawMessage, path string) (json.RawMessage, bool) {
	t.Helper()
	if path == "" {
		return raw, true
	}
	for _, step := range strings.Split(path, ".") {
		if i, err := strconv.Atoi(step); err == nil {
			var arr []json.RawMessage
			if err := json.Unmarshal(raw, &arr); err != nil || i >= len(arr) {
				return nil, false
			}
			raw = arr[i]
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatalf("%s: %s is not an object", path, raw)
		}
		var ok bool
		if raw, ok = obj[step]; !ok {
			return nil, false
		}
	}
	return raw, true
}

// TestResultShapes checks every block, uncle, transaction, receipt and log
// result for the lists the spec and Besu always write: present, and an
// array ("[]" when empty), never left out or null because they are empty.
func TestResultShapes(t *testing.T) {
	e := newShapeEnv(t)
	hash := func(i int) string { return e.hashes[i].Hex() }
	txHash := func(typ int) string { return e.txs[typ].Hash().Hex() }

	type call struct {
		method string
		params []any
	}
	cases := []struct {
		name   string
		call   call
		object string   // path of the object under test in the result
		lists  []string // fields that must be arrays; none: the object itself
		empty  bool     // ... and empty
		absent []string // fields the object must not have
	}{
		{"empty block by number", call{"eth_getBlockByNumber", []any{"0x1", false}}, "",
			[]string{"transactions", "uncles", "withdrawals"}, true, nil},
		{"empty block by number, full", call{"eth_getBlockByNumber", []any{"0x1", true}}, "",
			[]string{"transactions", "uncles", "withdrawals"}, true, nil},
		{"empty block by hash", call{"eth_getBlockByHash", []any{hash(1), true}}, "",
			[]string{"transactions", "uncles", "withdrawals"}, true, nil},
		{"genesis block", call{"eth_getBlockByNumber", []any{"earliest", false}}, "",
			[]string{"transactions", "uncles", "withdrawals"}, true, nil},
		{"block without withdrawals", call{"eth_getBlockByNumber", []any{"0x2", false}}, "",
			[]string{"withdrawals"}, true, nil},
		{"block with transactions and an uncle", call{"eth_getBlockByNumber", []any{"0x2", false}}, "",
			[]string{"transactions", "uncles"}, false, nil},
		{"uncle by block number", call{"eth_getUncleByBlockNumberAndIndex", []any{"0x2", "0x0"}}, "",
			[]string{"transactions", "uncles"}, true, nil},
		{"uncle by block hash", call{"eth_getUncleByBlockHashAndIndex", []any{hash(2), "0x0"}}, "",
			[]string{"transactions", "uncles"}, true, nil},
		{"legacy transaction", call{"eth_getTransactionByHash", []any{txHash(0)}}, "",
			nil, true, []string{"accessList", "blobVersionedHashes", "authorizationList"}},
		{"type 1 transaction, empty access list", call{"eth_getTransactionByHash", []any{txHash(1)}}, "",
			[]string{"accessList"}, true, []string{"blobVersionedHashes", "authorizationList"}},
		{"type 2 transaction, empty access list", call{"eth_getTransactionByHash", []any{txHash(2)}}, "",
			[]string{"accessList"}, true, []string{"blobVersionedHashes", "authorizationList"}},
		{"type 3 transaction, empty access list", call{"eth_getTransactionByHash", []any{txHash(3)}}, "",
			[]string{"accessList"}, true, []string{"authorizationList"}},
		{"type 3 transaction, blob hashes", call{"eth_getTransactionByHash", []any{txHash(3)}}, "",
			[]string{"blobVersionedHashes"}, false, nil},
		{"type 4 transaction, empty lists", call{"eth_getTransactionByHash", []any{txHash(4)}}, "",
			[]string{"accessList", "authorizationList"}, true, []string{"blobVersionedHashes"}},
		{"type 1 transaction in a full block", call{"eth_getBlockByNumber", []any{"0x2", true}}, "transactions.1",
			[]string{"accessList"}, true, nil},
		{"type 4 transaction in a full block", call{"eth_getBlockByHash", []any{hash(2), true}}, "transactions.4",
			[]string{"accessList", "authorizationList"}, true, nil},
		{"type 2 transaction by block and index", call{"eth_getTransactionByBlockNumberAndIndex", []any{"0x2", "0x2"}}, "",
			[]string{"accessList"}, true, nil},
		{"type 3 transaction by block hash and index", call{"eth_getTransactionByBlockHashAndIndex", []any{hash(2), "0x3"}}, "",
			[]string{"accessList"}, true, nil},
		{"receipt without logs", call{"eth_getTransactionReceipt", []any{txHash(2)}}, "",
			[]string{"logs"}, true, nil},
		{"receipt of type 4 without logs", call{"eth_getTransactionReceipt", []any{txHash(4)}}, "",
			[]string{"logs"}, true, nil},
		{"log without topics in a receipt", call{"eth_getTransactionReceipt", []any{txHash(0)}}, "logs.0",
			[]string{"topics"}, true, nil},
		{"block receipts of an empty block", call{"eth_getBlockReceipts", []any{"0x1"}}, "",
			nil, true, nil},
		{"receipt without logs in block receipts", call{"eth_getBlockReceipts", []any{hash(2)}}, "3",
			[]string{"logs"}, true, nil},
		{"log without topics from eth_getLogs", call{"eth_getLogs", []any{map[string]any{"fromBlock": "0x2", "toBlock": "0x2"}}}, "0",
			[]string{"topics"}, true, nil},
		{"no logs from eth_getLogs", call{"eth_getLogs", []any{map[string]any{"fromBlock": "0x1", "toBlock": "0x1"}}}, "",
			nil, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := e.result(t, tc.call.method, tc.call.params...)
			obj, ok := at(t, res, tc.object)
			if !ok {
				t.Fatalf("no %q in %s", tc.object, res)
			}
			if len(tc.lists) == 0 && len(tc.absent) == 0 && string(obj) != "[]" {
				t.Errorf("result %s, want []", obj)
			}
			for _, f := range tc.lists {
				v, ok := at(t, obj, f)
				if !ok {
					t.Errorf("%s missing in %s", f, obj)
					continue
				}
				var arr []json.RawMessage
				if err := json.Unmarshal(v, &arr); err != nil || arr == nil {
					t.Errorf("%s = %s, want an array", f, v)
					continue
				}
				if tc.empty != (len(arr) == 0) {
					t.Errorf("%s = %s, want empty: %v", f, v, tc.empty)
				}
			}
			for _, f := range tc.absent {
				if v, ok := at(t, obj, f); ok {
					t.Errorf("%s = %s, want no such field", f, v)
				}
			}
		})
	}

	// Besu's uncle: total difficulty 0, the uncle's own hash, no withdrawals.
	uncle := e.result(t, "eth_getUncleByBlockNumberAndIndex", "0x2", "0x0")
	if td, _ := at(t, uncle, "totalDifficulty"); string(td) != `"0x0"` {
		t.Errorf("uncle totalDifficulty %s", td)
	}
	if _, ok := at(t, uncle, "withdrawals"); ok {
		t.Errorf("uncle has withdrawals: %s", uncle)
	}
	body := e.c.GetBody(e.hashes[2], 2)
	if h, _ := at(t, uncle, "hash"); string(h) != `"`+strings.ToLower(e.c.Hash(body.Uncles[0]).Hex())+`"` {
		t.Errorf("uncle hash %s", h)
	}
	if u, _ := at(t, e.result(t, "eth_getBlockByNumber", "0x2", false), "uncles.0"); string(u) != `"`+strings.ToLower(e.c.Hash(body.Uncles[0]).Hex())+`"` {
		t.Errorf("block's uncle hash %s", u)
	}
}

// TestPendingTxShapes renders transactions built in code, whose lists may
// be nil rather than empty, as pending ones (no block): the lists of their
// type are still written as arrays.
func TestPendingTxShapes(t *testing.T) {
	cfg := params.AllDevChainProtocolChanges
	key, _ := crypto.GenerateKey()
	signer := types.LatestSignerForChainID(cfg.ChainID)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	chainID := uint256.MustFromBig(cfg.ChainID)
	one := uint256.NewInt(1)
	cases := []struct {
		tx    types.TxData
		lists []string
	}{
		{&types.AccessListTx{ChainID: cfg.ChainID, To: &to, Gas: 21000, GasPrice: big.NewInt(1)}, []string{"accessList"}},
		{&types.AccessListTx{ChainID: cfg.ChainID, To: &to, Gas: 21000, GasPrice: big.NewInt(1), AccessList: types.AccessList{{Address: to}}}, []string{"accessList.0.storageKeys"}},
		{&types.DynamicFeeTx{ChainID: cfg.ChainID, To: &to, Gas: 21000, GasFeeCap: big.NewInt(1), GasTipCap: big.NewInt(1)}, []string{"accessList"}},
		{&types.BlobTx{ChainID: chainID, To: to, Gas: 21000, GasFeeCap: one, GasTipCap: one, BlobFeeCap: one}, []string{"accessList", "blobVersionedHashes"}},
		{&types.SetCodeTx{ChainID: chainID, To: to, Gas: 21000, GasFeeCap: one, GasTipCap: one}, []string{"accessList", "authorizationList"}},
	}
	for _, tc := range cases {
		tx, err := types.SignNewTx(key, signer, tc.tx)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := json.Marshal(txJSON(cfg, tx, nil))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range tc.lists {
			if v, ok := at(t, enc, f); !ok || string(v) != "[]" {
				t.Errorf("type %d: %s = %s, want []", tx.Type(), f, v)
			}
		}
	}
}
