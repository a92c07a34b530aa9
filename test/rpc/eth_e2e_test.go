package rpc

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// storageContract's init code stores 42 in slot 0; its runtime answers
// get() (selector 0x6d4ce63c) with that slot, like a Solidity view function.
var (
	storageRuntime = common.FromHex("600035" + "60e01c" + "636d4ce63c" + "14" + "6013" + "57" + "6000" + "80" + "fd" +
		"5b" + "600054" + "600052" + "6020" + "6000" + "f3")
	storageInit = append(common.FromHex("602a600055"+"601f"+"6011"+"6000"+"39"+"601f"+"6000"+"f3"), storageRuntime...)
	getSelector = hexutil.Bytes(common.FromHex("0x6d4ce63c"))
)

// TestEthMethods exercises the ETH and NET methods beyond the core ones on
// a mining dev node: state proofs, access lists, fee history, block
// receipts, priority fees clients can use, and the node-level methods.
func TestEthMethods(t *testing.T) {
	n := devnode.Start(t, t.TempDir())
	signer := types.LatestSignerForChainID(big.NewInt(config.DevChainID))
	key, from := devnode.Key(t, 1)

	var gasPrice hexutil.Big
	n.MustCall(&gasPrice, "eth_gasPrice")
	deploy := types.MustSignNewTx(key, signer, &types.LegacyTx{Nonce: 0, Gas: 200_000, GasPrice: gasPrice.ToInt(), Data: storageInit})
	r := devnode.WaitReceipt(t, n, devnode.SendRaw(t, n, deploy))
	if r.Status != 1 || r.ContractAddress == nil {
		t.Fatalf("deployment receipt %+v", r)
	}
	contract := *r.ContractAddress
	call := map[string]any{"from": from, "to": contract, "data": getSelector}

	t.Run("call and estimate", func(t *testing.T) {
		var out hexutil.Bytes
		n.MustCall(&out, "eth_call", call, "latest")
		if new(big.Int).SetBytes(out).Int64() != 42 {
			t.Fatalf("get() = %x", out)
		}
		var est hexutil.Uint64
		n.MustCall(&est, "eth_estimateGas", call)
		withGas := map[string]any{"from": from, "to": contract, "data": getSelector, "gas": est}
		if _, err := n.Call("eth_call", withGas, "latest"); err != nil || est < 21000+2100 {
			t.Fatalf("estimate %d: %v", est, err)
		}
		// Wrong selector: the contract reverts, code 3 with the data.
		_, err := n.Call("eth_call", map[string]any{"to": contract, "data": "0x01020304"}, "latest")
		if devnode.RPCCode(t, err) != 3 {
			t.Fatalf("revert: %v", err)
		}
	})

	t.Run("access list", func(t *testing.T) {
		var res struct {
			AccessList types.AccessList `json:"accessList"`
			GasUsed    hexutil.Uint64   `json:"gasUsed"`
		}
		n.MustCall(&res, "eth_createAccessList", call, "latest")
		if len(res.AccessList) != 1 || res.AccessList[0].Address != contract ||
			len(res.AccessList[0].StorageKeys) != 1 || res.AccessList[0].StorageKeys[0] != (common.Hash{}) || res.GasUsed == 0 {
			t.Fatalf("access list %+v", res)
		}
	})

	t.Run("proof", func(t *testing.T) {
		var block struct {
			StateRoot common.Hash    `json:"stateRoot"`
			Number    hexutil.Uint64 `json:"number"`
		}
		n.MustCall(&block, "eth_getBlockByNumber", hexutil.Uint64(r.BlockNumber), false)
		var p struct {
			AccountProof []hexutil.Bytes `json:"accountProof"`
			Balance      hexutil.Big     `json:"balance"`
			CodeHash     common.Hash     `json:"codeHash"`
			Nonce        hexutil.Uint64  `json:"nonce"`
			StorageHash  common.Hash     `json:"storageHash"`
			StorageProof []struct {
				Key   string          `json:"key"`
				Value hexutil.Big     `json:"value"`
				Proof []hexutil.Bytes `json:"proof"`
			} `json:"storageProof"`
		}
		n.MustCall(&p, "eth_getProof", contract, []string{"0x0"}, hexutil.Uint64(r.BlockNumber))
		acct := verifyProof(t, block.StateRoot, crypto.Keccak256(contract.Bytes()), p.AccountProof)
		var sa types.StateAccount
		if err := rlp.DecodeBytes(acct, &sa); err != nil {
			t.Fatal(err)
		}
		if sa.Root != p.StorageHash || common.BytesToHash(sa.CodeHash) != crypto.Keccak256Hash(storageRuntime) || p.CodeHash != common.BytesToHash(sa.CodeHash) {
			t.Fatalf("account %+v, proof answer %+v", sa, p)
		}
		if len(p.StorageProof) != 1 || p.StorageProof[0].Key != "0x0" || p.StorageProof[0].Value.ToInt().Int64() != 42 {
			t.Fatalf("storage proof %+v", p.StorageProof)
		}
		slot := verifyProof(t, p.StorageHash, crypto.Keccak256(common.Hash{}.Bytes()), p.StorageProof[0].Proof)
		if _, content, _, err := rlp.Split(slot); err != nil || new(big.Int).SetBytes(content).Int64() != 42 {
			t.Fatalf("proven slot %x: %v", slot, err)
		}
		// An account that does not exist proves its absence, with no slots.
		n.MustCall(&p, "eth_getProof", common.Address{0xde, 0xad}, []string{"0x1"}, "latest")
		if len(p.AccountProof) == 0 || len(p.StorageProof) != 0 || p.StorageHash != types.EmptyRootHash {
			t.Fatalf("absent account proof %+v", p)
		}
	})

	t.Run("omitted block parameter", func(t *testing.T) {
		// The spec makes the block parameter optional, meaning "latest";
		// the contract's state no longer changes, so both answer the same.
		for _, c := range []struct {
			method string
			params []any
		}{
			{"eth_getBalance", []any{contract}},
			{"eth_getTransactionCount", []any{contract}},
			{"eth_getCode", []any{contract}},
			{"eth_getStorageAt", []any{contract, "0x0"}},
			{"eth_getProof", []any{contract, []string{"0x0"}}},
			{"eth_call", []any{call}},
			{"eth_estimateGas", []any{call}},
			{"eth_createAccessList", []any{call}},
		} {
			omitted, err := n.Call(c.method, c.params...)
			if err != nil {
				t.Fatalf("%s without a block parameter: %v", c.method, err)
			}
			latest, err := n.Call(c.method, append(c.params, "latest")...)
			if err != nil {
				t.Fatalf("%s with latest: %v", c.method, err)
			}
			if string(omitted) != string(latest) {
				t.Errorf("%s: without a block parameter %s, with latest %s", c.method, omitted, latest)
			}
		}
		var slot common.Hash
		n.MustCall(&slot, "eth_getStorageAt", contract, "0x0")
		if slot.Big().Int64() != 42 {
			t.Errorf("slot 0 = %s", slot)
		}
		// Besu's error stays for a request that fails on another parameter.
		_, err := n.Call("eth_getBalance")
		if e, ok := err.(*testnode.RPCError); !ok || e.Code != -32602 || e.Message != "Invalid block param (block not found)" {
			t.Errorf("eth_getBalance without parameters: %v", err)
		}
	})

	t.Run("empty block", func(t *testing.T) {
		// ethers' getBlock() needs "transactions" on blocks without any.
		for num := devnode.BlockNumber(t, n); ; num-- {
			var count hexutil.Uint64
			n.MustCall(&count, "eth_getBlockTransactionCountByNumber", hexutil.Uint64(num))
			if count != 0 {
				if num == 0 {
					t.Fatal("no empty block")
				}
				continue
			}
			var block map[string]json.RawMessage
			n.MustCall(&block, "eth_getBlockByNumber", hexutil.Uint64(num), true)
			for _, f := range []string{"transactions", "uncles", "withdrawals"} {
				if string(block[f]) != "[]" {
					t.Errorf("block %d: %s = %s, want []", num, f, block[f])
				}
			}
			return
		}
	})

	t.Run("block receipts", func(t *testing.T) {
		var rs []struct {
			TransactionHash common.Hash     `json:"transactionHash"`
			ContractAddress *common.Address `json:"contractAddress"`
		}
		n.MustCall(&rs, "eth_getBlockReceipts", hexutil.Uint64(r.BlockNumber))
		if len(rs) != 1 || rs[0].TransactionHash != deploy.Hash() || rs[0].ContractAddress == nil || *rs[0].ContractAddress != contract {
			t.Fatalf("receipts %+v", rs)
		}
		var none json.RawMessage
		n.MustCall(&none, "eth_getBlockReceipts", "0xffffff")
		if string(none) != "null" {
			t.Fatalf("receipts of a future block: %s", none)
		}
	})

	t.Run("fees", func(t *testing.T) {
		var fh struct {
			OldestBlock   hexutil.Uint64  `json:"oldestBlock"`
			BaseFeePerGas []hexutil.Big   `json:"baseFeePerGas"`
			GasUsedRatio  []float64       `json:"gasUsedRatio"`
			Reward        [][]hexutil.Big `json:"reward"`
			BlobRatio     []float64       `json:"blobGasUsedRatio"`
			BlobFees      []hexutil.Big   `json:"baseFeePerBlobGas"`
		}
		n.MustCall(&fh, "eth_feeHistory", "0x3", "latest", []float64{25, 75})
		if len(fh.GasUsedRatio) == 0 || len(fh.BaseFeePerGas) != len(fh.GasUsedRatio)+1 ||
			len(fh.Reward) != len(fh.GasUsedRatio) || len(fh.Reward[0]) != 2 || len(fh.BlobFees) != len(fh.GasUsedRatio)+1 {
			t.Fatalf("fee history %+v", fh)
		}
		// A client that prices by eth_maxPriorityFeePerGas (as ethers does:
		// twice the base fee plus the tip) is accepted by the pool.
		var tip hexutil.Big
		n.MustCall(&tip, "eth_maxPriorityFeePerGas")
		var head struct {
			BaseFee hexutil.Big `json:"baseFeePerGas"`
		}
		n.MustCall(&head, "eth_getBlockByNumber", "latest", false)
		if head.BaseFee.ToInt().Sign() <= 0 {
			// ethers' getFeeData() offers EIP-1559 fees only then.
			t.Fatalf("dev network base fee %s, want > 0", head.BaseFee.ToInt())
		}
		feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee.ToInt(), big.NewInt(2)), tip.ToInt())
		to := common.Address{0xb0, 0xb}
		tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{
			ChainID: big.NewInt(config.DevChainID), Nonce: 1, To: &to, Value: big.NewInt(1),
			Gas: 21000, GasFeeCap: feeCap, GasTipCap: tip.ToInt(),
		})
		if rr := devnode.WaitReceipt(t, n, devnode.SendRaw(t, n, tx)); rr.Status != 1 {
			t.Fatalf("receipt %+v", rr)
		}
		var blobFee hexutil.Big
		n.MustCall(&blobFee, "eth_blobBaseFee")
	})

	t.Run("node", func(t *testing.T) {
		var syncing bool
		n.MustCall(&syncing, "eth_syncing")
		_, err := n.Call("net_enode")
		if e, ok := err.(*testnode.RPCError); !ok || e.Code != -32000 || e.Message != "P2P has been disabled. This functionality is not available" {
			t.Fatalf("net_enode: %v", err)
		}
		var services map[string]map[string]string
		n.MustCall(&services, "net_services")
		if s := services["jsonrpc"]; s["host"] != "127.0.0.1" || !strings.HasSuffix(n.URL, ":"+s["port"]) {
			t.Fatalf("net_services %v (node at %s)", services, n.URL)
		}
		var cfg struct {
			Current struct {
				ChainID     hexutil.Big               `json:"chainId"`
				ForkID      hexutil.Bytes             `json:"forkId"`
				Precompiles map[string]common.Address `json:"precompiles"`
			} `json:"current"`
		}
		n.MustCall(&cfg, "eth_config")
		if cfg.Current.ChainID.ToInt().Int64() != config.DevChainID || len(cfg.Current.ForkID) != 4 ||
			cfg.Current.Precompiles["ECREC"] != common.BytesToAddress([]byte{1}) {
			t.Fatalf("eth_config %+v", cfg)
		}
	})
}

// verifyProof checks a Merkle proof against root and returns the proven
// value.
func verifyProof(t *testing.T, root common.Hash, key []byte, proof []hexutil.Bytes) []byte {
	t.Helper()
	db := memorydb.New()
	for _, node := range proof {
		db.Put(crypto.Keccak256(node), node)
	}
	v, err := trie.VerifyProof(root, key, db)
	if err != nil || v == nil {
		t.Fatalf("proof does not verify: %v", err)
	}
	return v
}
