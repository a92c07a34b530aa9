// Package devnode holds the JSON-RPC steps end-to-end tests take on running
// basalt nodes (testsupport/testnode): starting a mining dev node, the dev
// accounts' keys, sending signed transactions and waiting for receipts,
// reading heights and balances. The suites under test/ share them.
package devnode

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// Coinbase is the first Besu dev account, the coinbase of mining dev nodes.
const Coinbase = "0xfe3b557e8fb62b89f4916b721be55ceb828dbd73"

// Start runs a mining dev node (--network=dev) in dir with extra flags.
func Start(t *testing.T, dir string, extra ...string) *testnode.Node {
	t.Helper()
	args := append([]string{"--network=dev", "--miner-enabled", "--miner-coinbase=" + Coinbase}, extra...)
	return testnode.Start(t, dir, args...)
}

// BlockNumber is the node's eth_blockNumber.
func BlockNumber(t *testing.T, n *testnode.Node) uint64 {
	t.Helper()
	var bn hexutil.Uint64
	n.MustCall(&bn, "eth_blockNumber")
	return uint64(bn)
}

// Balance is addr's balance at the node's latest block.
func Balance(t *testing.T, n *testnode.Node, addr common.Address) *big.Int {
	t.Helper()
	var b hexutil.Big
	n.MustCall(&b, "eth_getBalance", addr, "latest")
	return (*big.Int)(&b)
}

// SendRaw sends tx with eth_sendRawTransaction and checks the returned hash.
func SendRaw(t *testing.T, n *testnode.Node, tx *types.Transaction) common.Hash {
	t.Helper()
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var h common.Hash
	n.MustCall(&h, "eth_sendRawTransaction", hexutil.Bytes(raw))
	if h != tx.Hash() {
		t.Fatalf("eth_sendRawTransaction returned %s, want %s", h, tx.Hash())
	}
	return h
}

// Receipt is the part of a transaction receipt the tests read.
type Receipt struct {
	Status          hexutil.Uint64  `json:"status"`
	GasUsed         hexutil.Uint64  `json:"gasUsed"`
	BlockNumber     hexutil.Uint64  `json:"blockNumber"`
	ContractAddress *common.Address `json:"contractAddress"`
	EffectiveGas    hexutil.Big     `json:"effectiveGasPrice"`
}

// WaitReceipt polls eth_getTransactionReceipt until h is mined.
func WaitReceipt(t *testing.T, n *testnode.Node, h common.Hash) Receipt {
	t.Helper()
	var r *Receipt
	testnode.WaitFor(t, 20*time.Second, "receipt of "+h.Hex(), func() bool {
		n.MustCall(&r, "eth_getTransactionReceipt", h)
		return r != nil
	})
	return *r
}

// Key is dev account i's key and address.
func Key(t *testing.T, i int) (*ecdsa.PrivateKey, common.Address) {
	t.Helper()
	k, err := crypto.HexToECDSA(config.DevAccounts[i].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return k, crypto.PubkeyToAddress(k.PublicKey)
}

// Height is eth_blockNumber at the JSON-RPC endpoint url (a node the test
// did not start itself, such as one of `basalt network up`).
func Height(t *testing.T, url string) uint64 {
	t.Helper()
	var h hexutil.Uint64
	n := &testnode.Node{URL: url}
	raw, err := n.Call("eth_blockNumber")
	if err != nil {
		t.Fatalf("%s eth_blockNumber: %v", url, err)
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatalf("%s eth_blockNumber: %s: %v", url, raw, err)
	}
	return uint64(h)
}

// RPCCode is the code of the JSON-RPC error err, failing the test when err
// is not one (testnode.RPCError).
func RPCCode(t *testing.T, err error) int {
	t.Helper()
	e, ok := err.(*testnode.RPCError)
	if !ok {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return e.Code
}

// SendBatch sends raw transactions in one JSON-RPC batch and returns the
// hashes accepted and how many were refused.
func SendBatch(b testing.TB, url string, raws [][]byte) ([]common.Hash, int) {
	var req bytes.Buffer
	req.WriteByte('[')
	for i, r := range raws {
		if i > 0 {
			req.WriteByte(',')
		}
		fmt.Fprintf(&req, `{"jsonrpc":"2.0","id":%d,"method":"eth_sendRawTransaction","params":["%s"]}`, i, hexutil.Encode(r))
	}
	req.WriteByte(']')
	resp, err := http.Post(url, "application/json", &req)
	if err != nil {
		b.Error(err)
		return nil, len(raws)
	}
	defer resp.Body.Close()
	var out []struct {
		Result *common.Hash     `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		b.Error(err)
		return nil, len(raws)
	}
	var ok []common.Hash
	bad := 0
	for _, o := range out {
		if o.Result != nil {
			ok = append(ok, *o.Result)
		} else {
			bad++
			if bad == 1 {
				b.Logf("refused: %s", *o.Error)
			}
		}
	}
	return ok, bad
}

// NodesCPU is the CPU time the nodes' processes have used so far.
func NodesCPU(b *testing.B, nodes []*testnode.P2PNode) time.Duration {
	b.Helper()
	var sum time.Duration
	for _, n := range nodes {
		c, err := n.CPUTime()
		if err != nil {
			b.Skip("no per-process CPU time here:", err)
		}
		sum += c
	}
	return sum
}

// ReadBlocks decodes a file of concatenated RLP blocks.
func ReadBlocks(t *testing.T, path string) []*types.Block {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []*types.Block
	s := rlp.NewStream(bytes.NewReader(data), 0)
	for {
		b := new(types.Block)
		if err := s.Decode(b); errors.Is(err, io.EOF) {
			return blocks
		} else if err != nil {
			t.Fatalf("decode block %d: %v", len(blocks)+1, err)
		}
		blocks = append(blocks, b)
	}
}
