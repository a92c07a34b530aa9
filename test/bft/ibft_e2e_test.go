package bft

import (
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/devnode"
)

// TestIBFTFourValidators: the generated network of 4 validators produces
// blocks every period without --miner-enabled, every node reports the same
// hash at every height, the block header follows the IBFT 2.0 rules, and
// transfers sent to any node are mined.
func TestIBFTFourValidators(t *testing.T) {
	net := bftnet.GenerateIBFT(t, 4, 2)
	net.Start()
	nodes := net.Nodes
	var mining bool
	nodes[0].MustCall(&mining, "eth_mining")
	if !mining {
		t.Fatal("eth_mining is false on a validator")
	}
	bftnet.WaitHeight(t, 60*time.Second, 5, nodes...)

	key, from := devnode.Key(t, 0)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	var hashes []common.Hash
	for i, n := range nodes {
		tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(2018)), &types.DynamicFeeTx{
			ChainID: big.NewInt(2018), Nonce: uint64(i), GasTipCap: big.NewInt(0), GasFeeCap: big.NewInt(100e9),
			Gas: 21000, To: &to, Value: big.NewInt(1000),
		})
		hashes = append(hashes, devnode.SendRaw(t, n.Node, tx))
	}
	_ = from
	for _, h := range hashes {
		if r := devnode.WaitReceipt(t, nodes[3].Node, h); r.Status != 1 {
			t.Fatalf("transfer %s failed", h)
		}
	}
	// The "first 100 blocks" check, sized for CI: every height reached in
	// the test's time, on every node.
	time.Sleep(3 * time.Second)
	top := nodes[0].BlockNumber()
	bftnet.WaitHeight(t, 30*time.Second, top, nodes...)
	if low := bftnet.SameChain(t, nodes...); low < 5 {
		t.Fatalf("only %d blocks", low)
	}
	if got := devnode.Balance(t, nodes[2].Node, to); got.Cmp(big.NewInt(4000)) != 0 {
		t.Fatalf("recipient balance %v, want 4000", got)
	}

	var block struct {
		Miner      common.Address `json:"miner"`
		MixHash    common.Hash    `json:"mixHash"`
		Nonce      string         `json:"nonce"`
		Difficulty hexutil.Big    `json:"difficulty"`
		ExtraData  hexutil.Bytes  `json:"extraData"`
		Hash       common.Hash    `json:"hash"`
	}
	nodes[1].MustCall(&block, "eth_getBlockByNumber", "0x2", false)
	if block.MixHash != common.HexToHash("0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365") ||
		block.Nonce != "0x0000000000000000" || (*big.Int)(&block.Difficulty).Cmp(common.Big1) != 0 {
		t.Fatalf("block 2 header: %+v", block)
	}
	var vals []common.Address
	nodes[2].MustCall(&vals, "ibft_getValidatorsByBlockNumber", "latest")
	if len(vals) != 4 {
		t.Fatalf("validators %v", vals)
	}
	var info struct {
		Protocols struct {
			Eth struct {
				Config map[string]any `json:"config"`
			} `json:"eth"`
		} `json:"protocols"`
	}
	nodes[0].MustCall(&info, "admin_nodeInfo")
	if ib, ok := info.Protocols.Eth.Config["ibft2"].(map[string]any); !ok || ib["blockPeriodSeconds"] != float64(1) || ib["requestTimeoutSeconds"] != float64(2) {
		t.Fatalf("admin_nodeInfo config %v", info.Protocols.Eth.Config)
	}
	if !strings.Contains(block.ExtraData.String(), strings.ToLower(net.Addrs[0].Hex()[2:])) {
		t.Fatalf("extraData %s lacks validator %s", block.ExtraData, net.Addrs[0])
	}
}

// TestIBFTEmptyBlockPeriod: with emptyblockperiodseconds above the block
// period, empty blocks are that far apart, and a transfer is still mined.
func TestIBFTEmptyBlockPeriod(t *testing.T) {
	net := bftnet.GenerateIBFT(t, 4, 2)
	g, err := os.ReadFile(net.Genesis)
	if err != nil {
		t.Fatal(err)
	}
	g = []byte(strings.Replace(string(g), `"blockperiodseconds": 1,`, `"blockperiodseconds": 1, "emptyblockperiodseconds": 3,`, 1))
	if !strings.Contains(string(g), "emptyblockperiodseconds") {
		t.Fatal("genesis not rewritten")
	}
	if err := os.WriteFile(net.Genesis, g, 0o644); err != nil {
		t.Fatal(err)
	}
	net.Start()
	n := net.Nodes
	bftnet.WaitHeight(t, 60*time.Second, 4, n...)

	key, _ := devnode.Key(t, 0)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(2018)), &types.DynamicFeeTx{
		ChainID: big.NewInt(2018), GasTipCap: big.NewInt(0), GasFeeCap: big.NewInt(100e9), Gas: 21000, To: &to, Value: big.NewInt(1)})
	r := devnode.WaitReceipt(t, n[1].Node, devnode.SendRaw(t, n[0].Node, tx))
	if r.Status != 1 {
		t.Fatal("transfer failed")
	}
	top := n[0].BlockNumber()
	times := map[uint64]uint64{}
	for h := uint64(1); h <= top; h++ {
		var b struct {
			Timestamp    hexutil.Uint64 `json:"timestamp"`
			Transactions []common.Hash  `json:"transactions"`
		}
		n[0].MustCall(&b, "eth_getBlockByNumber", hexutil.EncodeUint64(h), false)
		times[h] = uint64(b.Timestamp)
		if h > 1 && len(b.Transactions) == 0 && times[h] < times[h-1]+3 {
			t.Fatalf("empty block %d %d s after its parent", h, times[h]-times[h-1])
		}
	}
}
