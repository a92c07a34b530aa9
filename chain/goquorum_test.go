package chain

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/quorumtx"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// goQuorumVector is a block applied by GoQuorum 24.4.1's own state
// processor (testdata/goquorum/gen, built against GoQuorum's source), once
// as a node that is not a party to its private transactions and once as a
// party; Basalt must reach the same public outcome.
type goQuorumVector struct {
	Name     string            `json:"name"`
	ChainID  uint64            `json:"chainId"`
	Coinbase common.Address    `json:"coinbase"`
	GasLimit uint64            `json:"gasLimit"`
	Number   uint64            `json:"number"`
	Time     uint64            `json:"time"`
	Alloc    map[string]string `json:"alloc"`
	Txs      []string          `json:"txs"`
	Senders  []common.Address  `json:"senders"`
	NonParty goQuorumRun       `json:"nonParty"`
	Party    goQuorumRun       `json:"party"`
}

type goQuorumRun struct {
	Root         string `json:"root"`
	GasUsed      uint64 `json:"gasUsed"`
	ReceiptsRoot string `json:"receiptsRoot"`
	Bloom        string `json:"bloom"`
	Receipts     []struct {
		Status            uint64 `json:"status"`
		CumulativeGasUsed uint64 `json:"cumulativeGasUsed"`
		GasUsed           uint64 `json:"gasUsed"`
		ContractAddress   string `json:"contractAddress"`
		Logs              int    `json:"logs"`
	} `json:"receipts"`
	Err string `json:"error"`
}

// goQuorumConfig is the vectors' chain: every fork to Berlin at 0
// (GoQuorum 24.4.1 stops at Berlin), chain ID 10.
func goQuorumConfig(id uint64) *params.ChainConfig {
	zero := big.NewInt(0)
	return &params.ChainConfig{ChainID: new(big.Int).SetUint64(id), HomesteadBlock: zero, EIP150Block: zero, EIP155Block: zero,
		EIP158Block: zero, ByzantiumBlock: zero, ConstantinopleBlock: zero, PetersburgBlock: zero, IstanbulBlock: zero,
		MuirGlacierBlock: zero, BerlinBlock: zero}
}

func loadGoQuorumVectors(t *testing.T) []goQuorumVector {
	t.Helper()
	data, err := os.ReadFile("testdata/goquorum/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []goQuorumVector
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

func (v *goQuorumVector) block(t *testing.T) *types.Block {
	t.Helper()
	var txs []*types.Transaction
	for _, raw := range v.Txs {
		b, _ := hex.DecodeString(raw)
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	header := &types.Header{Number: new(big.Int).SetUint64(v.Number), Time: v.Time, GasLimit: v.GasLimit,
		Difficulty: big.NewInt(1), Coinbase: v.Coinbase}
	return types.NewBlock(header, &types.Body{Transactions: txs}, nil, trie.NewStackTrie(nil))
}

func (v *goQuorumVector) state(t *testing.T) *state.StateDB {
	t.Helper()
	db := state.NewDatabase(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil), nil)
	st, err := state.New(types.EmptyRootHash, db)
	if err != nil {
		t.Fatal(err)
	}
	for a, bal := range v.Alloc {
		b, _ := new(big.Int).SetString(bal, 10)
		st.AddBalance(common.HexToAddress(a), uint256.MustFromBig(b), tracing.BalanceChangeUnspecified)
	}
	return st
}

// TestGoQuorumPrivateSigner: GoQuorum's private transactions (V 37/38,
// signed without a chain ID) recover to the senders GoQuorum recovers,
// through quorumtx and through the executor's signer; go-ethereum's own
// signer refuses them on this chain, and a Basalt-signed one matches
// GoQuorum's bytes.
func TestGoQuorumPrivateSigner(t *testing.T) {
	for _, v := range loadGoQuorumVectors(t) {
		blk := v.block(t)
		x := NewExecutor(goQuorumConfig(v.ChainID), testEngine{}, nil, WithGoQuorumPrivate())
		plain := types.MakeSigner(goQuorumConfig(v.ChainID), blk.Number(), blk.Time())
		for i, tx := range blk.Transactions() {
			got, err := types.Sender(x.Signer(blk.Header()), tx)
			if err != nil || got != v.Senders[i] {
				t.Errorf("%s tx %d: sender %v %v, GoQuorum %v", v.Name, i, got, err, v.Senders[i])
			}
			if !quorumtx.IsPrivate(tx) {
				continue
			}
			if _, err := types.Sender(plain, tx); err == nil {
				t.Errorf("%s tx %d: go-ethereum's signer recovered a private transaction on chain %d", v.Name, i, v.ChainID)
			}
			if got, err := quorumtx.Sender(tx); err != nil || got != v.Senders[i] {
				t.Errorf("%s tx %d: quorumtx.Sender %v %v", v.Name, i, got, err)
			}
		}
	}
	// Signing: the vectors' first private transaction, signed here with the
	// generator's key, is GoQuorum's byte for byte (RFC 6979 signatures).
	v := loadGoQuorumVectors(t)[0]
	tx := v.block(t).Transactions()[1]
	unsigned := types.NewTx(&types.LegacyTx{Nonce: tx.Nonce(), GasPrice: tx.GasPrice(), Gas: tx.Gas(), To: tx.To(), Value: tx.Value(), Data: tx.Data()})
	signed, err := quorumtx.Sign(unsigned, testKey)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := signed.MarshalBinary()
	if hex.EncodeToString(raw) != v.Txs[1] {
		t.Errorf("signed %x, GoQuorum %s", raw, v.Txs[1])
	}
	// A bad signature value is refused.
	vv, r, _ := tx.RawSignatureValues()
	bad := types.NewTx(&types.LegacyTx{Nonce: tx.Nonce(), GasPrice: tx.GasPrice(), Gas: tx.Gas(), Data: tx.Data(), V: vv, R: r, S: new(big.Int).Lsh(big.NewInt(1), 255)})
	if _, err := quorumtx.Sender(bad); err == nil {
		t.Error("high s recovered")
	}
}

// TestGoQuorumPrivatePublicEffects: Basalt applies GoQuorum's vectors to the
// same public state root, header gas used, receipts and receipts root as
// GoQuorum does (on a party and a non-party alike), and fails the block
// GoQuorum fails because a private transaction's intrinsic gas stays taken
// from the block's gas.
func TestGoQuorumPrivatePublicEffects(t *testing.T) {
	for _, v := range loadGoQuorumVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			if v.Party.Root != v.NonParty.Root || v.Party.Err != v.NonParty.Err {
				t.Fatalf("GoQuorum's party and non-party disagree: %v %v", v.Party, v.NonParty)
			}
			want := v.NonParty
			blk := v.block(t)
			st := v.state(t)
			x := NewExecutor(goQuorumConfig(v.ChainID), testEngine{}, nil, WithGoQuorumPrivate())
			res, err := x.Process(context.Background(), blk, blk.Hash(), st)
			if want.Err != "" {
				if err == nil || !strings.Contains(err.Error(), "gas limit reached") {
					t.Fatalf("Basalt: %v, GoQuorum: %s", err, want.Err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if root := st.IntermediateRoot(x.config.Rules(blk.Number(), false, blk.Time())); root.Hex() != want.Root {
				t.Errorf("state root %v, GoQuorum %v", root, want.Root)
			}
			if res.GasUsed != want.GasUsed {
				t.Errorf("gas used %d, GoQuorum %d", res.GasUsed, want.GasUsed)
			}
			if len(res.Receipts) != len(want.Receipts) {
				t.Fatalf("%d receipts, GoQuorum %d", len(res.Receipts), len(want.Receipts))
			}
			for i, r := range res.Receipts {
				w := want.Receipts[i]
				ca := ""
				if r.ContractAddress != (common.Address{}) {
					ca = r.ContractAddress.Hex()
				}
				if r.Status != w.Status || r.CumulativeGasUsed != w.CumulativeGasUsed || r.GasUsed != w.GasUsed || ca != w.ContractAddress || len(r.Logs) != w.Logs {
					t.Errorf("receipt %d: status %d cumulative %d gas %d contract %q logs %d; GoQuorum %+v", i, r.Status, r.CumulativeGasUsed, r.GasUsed, ca, len(r.Logs), w)
				}
			}
			if root := types.DeriveSha(res.Receipts, trie.NewStackTrie(nil)); root.Hex() != want.ReceiptsRoot {
				t.Errorf("receipts root %v, GoQuorum %v", root, want.ReceiptsRoot)
			}
			if bloom := hex.EncodeToString(types.MergeBloom(res.Receipts).Bytes()); bloom != want.Bloom {
				t.Errorf("bloom differs from GoQuorum's")
			}
		})
	}
}

// TestGoQuorumPrivateNeedsOption: without WithGoQuorumPrivate (a chain
// that is not GoQuorum's), V 37/38 is an EIP-155 signature for chain 1 and
// the block is refused as before.
func TestGoQuorumPrivateNeedsOption(t *testing.T) {
	v := loadGoQuorumVectors(t)[0]
	blk := v.block(t)
	x := NewExecutor(goQuorumConfig(v.ChainID), testEngine{}, nil)
	if _, err := x.Process(context.Background(), blk, blk.Hash(), v.state(t)); err == nil {
		t.Fatal("a GoQuorum private transaction was applied on a chain without isQuorum")
	}
}
