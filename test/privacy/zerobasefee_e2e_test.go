package privacy

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/clique"
	"github.com/basaltchain/basalt/privacy/privtx"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// zeroBaseFeeGenesis is a London Clique genesis with config.zeroBaseFee,
// Besu's free-gas setup for London and later, sealed by signers, with the
// given gas limit.
func zeroBaseFeeGenesis(t testing.TB, gasLimit string, signers ...common.Address) string {
	t.Helper()
	g := fmt.Sprintf(`{
  "config": {"chainId": %d, "berlinBlock": 0, "londonBlock": 0, "zeroBaseFee": true,
    "clique": {"blockperiodseconds": 1, "epochlength": 30000, "createemptyblocks": true}},
  "difficulty": "0x1", "extraData": "%s", "gasLimit": "%s",
  "timestamp": "0x5c51a607", "alloc": {}
}`, cliqueChainID, hexutil.Encode(clique.GenesisExtra(signers...)), gasLimit)
	path := filepath.Join(t.TempDir(), "genesis.json")
	if err := os.WriteFile(path, []byte(g), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestZeroBaseFee: on a London Clique chain whose genesis sets zeroBaseFee,
// an account without ether gets gas-price-0 legacy transactions and 0/0
// EIP-1559 transactions mined, also after full blocks; every header after
// the genesis (which keeps Besu's 1 gwei) carries baseFeePerGas 0x0 and the
// fee APIs answer 0.
func TestZeroBaseFee(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte(hexutil.Encode(crypto.FromECDSA(cliqueKey(0)))), 0o600); err != nil {
		t.Fatal(err)
	}
	// A gas limit of 42000 holds two transfers: a full block is above
	// EIP-1559's target, which would raise a base fee of 0 to 1.
	n := testnode.Start(t, dir, "--genesis-file="+zeroBaseFeeGenesis(t, "0xa410", cliqueAddr(0)),
		"--node-private-key-file="+keyFile, "--min-gas-price=0", "--rpc-http-api=ETH")

	key, _ := crypto.GenerateKey() // never funded
	signer := types.LatestSignerForChainID(big.NewInt(cliqueChainID))
	to := common.HexToAddress("0x00000000000000000000000000000000000000ab")
	txs := []types.TxData{
		&types.LegacyTx{Nonce: 0, GasPrice: new(big.Int), Gas: 21000, To: &to},
		&types.DynamicFeeTx{ChainID: big.NewInt(cliqueChainID), Nonce: 1, GasTipCap: new(big.Int), GasFeeCap: new(big.Int), Gas: 21000, To: &to},
		&types.LegacyTx{Nonce: 2, GasPrice: new(big.Int), Gas: 21000, To: &to},
		&types.DynamicFeeTx{ChainID: big.NewInt(cliqueChainID), Nonce: 3, GasTipCap: new(big.Int), GasFeeCap: new(big.Int), Gas: 21000, To: &to},
	}
	var hashes []common.Hash
	for _, d := range txs {
		tx := types.MustSignNewTx(key, signer, d)
		raw, _ := tx.MarshalBinary()
		var h common.Hash
		n.MustCall(&h, "eth_sendRawTransaction", hexutil.Encode(raw))
		hashes = append(hashes, h)
	}
	for _, h := range hashes {
		var r *struct {
			Status            hexutil.Uint64 `json:"status"`
			BlockNumber       hexutil.Uint64 `json:"blockNumber"`
			EffectiveGasPrice hexutil.Big    `json:"effectiveGasPrice"`
		}
		testnode.WaitFor(t, 30*time.Second, "transaction mined", func() bool {
			n.MustCall(&r, "eth_getTransactionReceipt", h)
			return r != nil
		})
		if r.Status != 1 || r.EffectiveGasPrice.ToInt().Sign() != 0 {
			t.Fatalf("%s: status %d, effective gas price %s", h.Hex(), r.Status, r.EffectiveGasPrice.ToInt())
		}
	}
	var full bool
	var head hexutil.Uint64
	n.MustCall(&head, "eth_blockNumber")
	for i := uint64(0); i <= uint64(head); i++ {
		var b struct {
			BaseFee  *hexutil.Big   `json:"baseFeePerGas"`
			GasUsed  hexutil.Uint64 `json:"gasUsed"`
			GasLimit hexutil.Uint64 `json:"gasLimit"`
		}
		n.MustCall(&b, "eth_getBlockByNumber", hexutil.EncodeUint64(i), false)
		want := new(big.Int)
		if i == 0 {
			want.SetUint64(params.InitialBaseFee) // the genesis keeps Besu's default
		}
		if b.BaseFee == nil || b.BaseFee.ToInt().Cmp(want) != 0 {
			t.Fatalf("block %d: baseFeePerGas %v, want %#x", i, b.BaseFee, want)
		}
		full = full || (b.GasUsed > b.GasLimit/2 && i < uint64(head))
	}
	if !full {
		t.Fatal("no block above the gas target before the head: the test proves nothing")
	}
	var price hexutil.Big
	n.MustCall(&price, "eth_gasPrice")
	var hist struct {
		BaseFee []hexutil.Big `json:"baseFeePerGas"`
	}
	n.MustCall(&hist, "eth_feeHistory", "0x2", "latest", []float64{})
	if price.ToInt().Sign() != 0 || len(hist.BaseFee) != 3 {
		t.Fatalf("gas price %s, fee history %v", price.ToInt(), hist.BaseFee)
	}
	for _, f := range hist.BaseFee {
		if f.ToInt().Sign() != 0 {
			t.Fatalf("fee history base fees %v", hist.BaseFee)
		}
	}
}

// TestPrivacyZeroBaseFee: Besu's recommended privacy network from London
// on, a zeroBaseFee genesis and --min-gas-price=0, takes private
// transactions at gas price 0 whose markers are signed by fresh, unfunded
// keys: the marker is mined in a block of base fee 0 and both members run
// the private transaction.
func TestPrivacyZeroBaseFee(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three managers and three nodes")
	}
	nodes := startPrivacyNetworkOn(t, func(t testing.TB, signers ...common.Address) string {
		return zeroBaseFeeGenesis(t, "0x1fffffffffffff", signers...)
	})
	a, b := nodes[0], nodes[1]
	tx := &privtx.Transaction{Nonce: 0, GasPrice: new(big.Int), Gas: 3000000, Value: new(big.Int),
		Data: hexutil.MustDecode(storeInit), PrivateFrom: b64key(a.key), PrivateFor: [][]byte{b64key(b.key)},
		Restriction: privtx.Restricted}
	var pmt common.Hash
	a.MustCall(&pmt, "eea_sendRawTransaction", signPriv(t, tx, config.DevAccounts[1].PrivateKey, privChainID))
	number := waitMined(t, a, pmt)
	var block struct {
		BaseFee *hexutil.Big `json:"baseFeePerGas"`
	}
	a.MustCall(&block, "eth_getBlockByNumber", hexutil.EncodeUint64(number), false)
	if block.BaseFee == nil || block.BaseFee.ToInt().Sign() != 0 {
		t.Fatalf("marker's block %d: baseFeePerGas %v", number, block.BaseFee)
	}
	for _, n := range []*privNode{a, b} {
		if r := waitPrivReceipt(t, n, pmt); r.Status != "0x1" || r.ContractAddress == nil {
			t.Fatalf("private receipt on %s: %+v", n.URL, r)
		}
	}
}
