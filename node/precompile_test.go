package node

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
)

// complementAddr is where the acceptance test installs complement.
var complementAddr = common.HexToAddress("0x0000000000000000000000000000000000000bad")

// complement is a test precompile: it answers the bitwise complement of
// its input. It costs no gas, so a node without it computes the same gas
// and receipts for a call to its address (an empty account), and a block
// that used it fails there on its state root alone.
type complement struct{}

func (complement) RequiredGas([]byte) uint64 { return 0 }
func (complement) Name() string              { return "COMPLEMENT" }
func (complement) Run(in []byte) ([]byte, error) {
	out := make([]byte, len(in))
	for i, b := range in {
		out[i] = ^b
	}
	return out, nil
}

// complementCaller calls 0x…0bad with its calldata and stores the first
// word of the answer in slot 0 and the call's success flag in slot 1, then
// returns that word:
//
//	calldatacopy(0, 0, calldatasize)
//	ok := call(gas, 0x0bad, 0, 0, calldatasize, 0, 32)
//	sstore(1, ok); sstore(0, mload(0)); return(0, 32)
var complementCaller = common.FromHex("36" + "6000" + "6000" + "37" +
	"6020" + "6000" + "36" + "6000" + "6000" + "610bad" + "5a" + "f1" +
	"6001" + "55" + "6000" + "51" + "6000" + "55" + "6020" + "6000" + "f3")

// TestExtraPrecompileOnNode is the acceptance test of the one block
// executor: a precompile added by one executor option on a node (node
// option → chain → executor) answers eth_call over JSON-RPC, runs in the
// blocks the node mines, and runs when those blocks are imported — an
// import without it fails on the state root.
func TestExtraPrecompileOnNode(t *testing.T) {
	contract := common.HexToAddress("0x00000000000000000000000000000000000c0de2")
	g := config.DevGenesis()
	alloc := make(types.GenesisAlloc, len(g.Core.Alloc)+1)
	for a, acc := range g.Core.Alloc {
		alloc[a] = acc
	}
	alloc[contract] = types.Account{Code: complementCaller, Balance: new(big.Int)}
	g.Core.Alloc = alloc

	dir := t.TempDir()
	coinbase := common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")
	cfg := &config.Config{
		DataPath:           dir,
		NodePrivateKeyFile: filepath.Join(dir, "key"),
		NetworkID:          config.DevChainID,
		Genesis:            g,
		MinGasPrice:        bigOne(),
		HostAllowlist:      []string{"*"},
	}
	cfg.TxPool.MaxSize = 4096
	cfg.Miner.Enabled, cfg.Miner.Coinbase = true, &coinbase
	cfg.RPC.HTTPEnabled, cfg.RPC.HTTPHost = true, "127.0.0.1"
	withComplement := chain.WithPrecompile(complementAddr, complement{})
	n, err := New(cfg, nil, WithExecOptions(withComplement))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	url := "http://" + n.HTTPAddr()
	call := func(method string, params ...any) json.RawMessage {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		resp, err := http.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Error != nil {
			t.Fatalf("%s: %v %+v", method, err, out.Error)
		}
		return out.Result
	}
	input := common.HexToHash("0x00000000000000000000000000000000000000000000000000000000deadbeef")
	want := `"0xffffffffffffffffffffffffffffffffffffffffffffffffffffffff21524110"`

	t.Run("eth_call", func(t *testing.T) {
		got := call("eth_call", map[string]any{"to": complementAddr, "data": hexutil.Bytes(input[:])}, "latest")
		if string(got) != want {
			t.Fatalf("eth_call to the precompile answered %s, want %s", got, want)
		}
		got = call("eth_call", map[string]any{"to": contract, "data": hexutil.Bytes(input[:])}, "latest")
		if string(got) != want {
			t.Fatalf("eth_call through the contract answered %s, want %s", got, want)
		}
	})

	var (
		minedNumber uint64
		minedHash   common.Hash
		minedRoot   common.Hash
	)
	t.Run("mined block", func(t *testing.T) {
		key, _ := crypto.HexToECDSA("8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63")
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(config.DevChainID)), &types.DynamicFeeTx{
			ChainID:   big.NewInt(config.DevChainID),
			Nonce:     0,
			GasTipCap: big.NewInt(1e9),
			GasFeeCap: big.NewInt(100e9),
			Gas:       100_000,
			To:        &contract,
			Data:      input[:],
		})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := tx.MarshalBinary()
		call("eth_sendRawTransaction", hexutil.Bytes(raw))
		// Generous: the first block waits for the ethash cache.
		var receipt struct {
			Status      hexutil.Uint64
			BlockNumber hexutil.Uint64
			BlockHash   common.Hash
		}
		for deadline := time.Now().Add(2 * time.Minute); ; {
			if r := call("eth_getTransactionReceipt", tx.Hash()); string(r) != "null" {
				if err := json.Unmarshal(r, &receipt); err != nil {
					t.Fatal(err)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("transaction not mined")
			}
			time.Sleep(100 * time.Millisecond)
		}
		n.Miner().Stop() // one block is enough; sealing more only loads the machine
		if receipt.Status != 1 {
			t.Fatalf("receipt status %d", receipt.Status)
		}
		at := hexutil.EncodeUint64(uint64(receipt.BlockNumber))
		if got := call("eth_getStorageAt", contract, "0x0", at); string(got) != want {
			t.Fatalf("slot 0 after the mined call: %s, want %s", got, want)
		}
		if got := call("eth_getStorageAt", contract, "0x1", at); !strings.HasSuffix(string(got), `01"`) {
			t.Fatalf("slot 1 (call succeeded) after the mined call: %s", got)
		}
		minedNumber, minedHash = uint64(receipt.BlockNumber), receipt.BlockHash
		minedRoot = n.Chain().GetHeader(minedHash, minedNumber).Root
	})
	if minedHash == (common.Hash{}) {
		t.FailNow()
	}

	t.Run("import replay", func(t *testing.T) {
		var blocks bytes.Buffer
		if _, err := n.Chain().Export(context.Background(), &blocks, 0, minedNumber); err != nil {
			t.Fatal(err)
		}
		// What `blocks import --skip-pow-validation-enabled` does, into
		// fresh data paths (the seals are not what this test is about, and
		// checking them costs each fresh engine its ethash cache): with the
		// precompile the chain replays to the same block and state...
		open := func(opts ...chain.ExecOption) *chain.Chain {
			db, c, err := OpenChain(t.TempDir(), g, config.PrivacyConfig{}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				c.Close()
				c.Engine().Close()
				db.Close()
			})
			return c
		}
		c := open(withComplement)
		opts := chain.ImportOptions{SkipSeal: true}
		st, err := c.Import(context.Background(), bytes.NewReader(blocks.Bytes()), opts)
		if err != nil || st.Imported != minedNumber {
			t.Fatalf("import with the precompile: %v (%d of %d blocks)", err, st.Imported, minedNumber)
		}
		if c.CurrentHash() != minedHash || c.CurrentHeader().Root != minedRoot {
			t.Fatalf("imported head %s root %s, want %s root %s", c.CurrentHash(), c.CurrentHeader().Root, minedHash, minedRoot)
		}
		// ...and without it the block that used it is rejected.
		_, err = open().Import(context.Background(), bytes.NewReader(blocks.Bytes()), opts)
		if err == nil || !strings.Contains(err.Error(), "invalid merkle root") {
			t.Fatalf("import without the precompile: %v, want a state root mismatch", err)
		}
	})
}
