package chain

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
)

// EIP-7934 from Osaka: a block being built stops taking transactions
// before its encoding passes params.MaxBlockSize, and a block past it is
// refused; before Osaka neither applies.
func TestBlockSizeCap(t *testing.T) {
	const dataSize = 256 << 10
	data := make([]byte, dataSize)
	for i := range data {
		data[i] = 0xff // nonzero bytes: the most gas per byte, but still far below the gas limit
	}
	bigTxs := func(n int) []*types.Transaction {
		var txs []*types.Transaction
		for i := range n {
			tx, err := types.SignTx(types.NewTx(&types.LegacyTx{
				Nonce: uint64(i), To: &common.Address{5}, Gas: 12_000_000, GasPrice: big.NewInt(1e9), Data: data,
			}), types.LatestSignerForChainID(testChainID), testKey)
			if err != nil {
				t.Fatal(err)
			}
			txs = append(txs, tx)
		}
		return txs
	}
	txs := bigTxs(40) // 10 MiB of transactions
	for _, osaka := range []bool{false, true} {
		g := testGenesis()
		g.GasLimit = 1_000_000_000
		if osaka {
			zero := uint64(0)
			g.Config.ShanghaiTime, g.Config.CancunTime, g.Config.PragueTime, g.Config.OsakaTime = &zero, &zero, &zero, &zero
			g.Config.BlobScheduleConfig = params.DefaultBlobSchedule
			for addr, code := range map[common.Address][]byte{params.BeaconRootsAddress: params.BeaconRootsCode,
				params.HistoryStorageAddress: params.HistoryStorageCode, params.WithdrawalQueueAddress: params.WithdrawalQueueCode,
				params.ConsolidationQueueAddress: params.ConsolidationQueueCode} {
				g.Alloc[addr] = types.Account{Code: code, Nonce: 1, Balance: new(big.Int)}
			}
		}
		c, err := Open(NewMemoryDatabase(), g, testEngine{})
		if err != nil {
			t.Fatal(err)
		}
		st, _ := c.StateAt(c.Genesis().Root)
		res, err := c.Executor().Build(context.Background(), childHeader(c, c.Genesis()), st, &sliceIter{txs: txs}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var size uint64
		for _, tx := range res.Txs {
			size += tx.Size()
		}
		if !osaka {
			if len(res.Txs) != len(txs) {
				t.Fatalf("before Osaka: built %d of %d transactions (%d skipped)", len(res.Txs), len(txs), len(res.Skipped))
			}
		} else {
			if size > maxTxBytes || len(res.Txs) == 0 || len(res.Skipped) == 0 || !errors.Is(res.Skipped[0].Reason, ErrBlockTooLarge) {
				t.Fatalf("Osaka: built %d transactions of %d bytes (cap %d), skipped %v", len(res.Txs), size, maxTxBytes, res.Skipped)
			}
		}
		block := types.NewBlock(childHeader(c, c.Genesis()), &types.Body{Transactions: txs}, nil, trie.NewStackTrie(nil))
		err = ValidateSize(c.Config(), block)
		if osaka != (err != nil) || (osaka && !errors.Is(err, ErrBlockTooLarge)) {
			t.Fatalf("osaka %v: a %d-byte block (limit %d): %v", osaka, block.Size(), params.MaxBlockSize, err)
		}
	}
}
