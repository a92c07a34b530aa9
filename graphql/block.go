package graphql

import (
	"context"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/filters"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// Block resolves the schema's Block: a stored block, or one of its ommers
// (which, as in Besu, has no transactions, ommers or total difficulty of
// its own and reads state at the canonical block of its number). Its
// methods resolve the schema fields of the same names.
type Block struct {
	s      *Service
	header *types.Header
	hash   common.Hash
	ommer  bool

	bodyOnce sync.Once
	body     *types.Body

	receiptsOnce sync.Once
	receipts     types.Receipts

	signerOnce sync.Once
	signer     types.Signer
}

func (s *Service) newBlock(header *types.Header, hash common.Hash) *Block {
	return &Block{s: s, header: header, hash: hash}
}

// blockByNumber is the canonical block at n, nil when there is none.
func (s *Service) blockByNumber(n int64) *Block {
	if n < 0 {
		return nil
	}
	hash := s.chain.GetCanonicalHash(uint64(n))
	if hash == (common.Hash{}) {
		return nil
	}
	h := s.chain.GetHeader(hash, uint64(n))
	if h == nil {
		return nil
	}
	return s.newBlock(h, hash)
}

// blockByHash is the stored block with the given hash, nil when unknown.
func (s *Service) blockByHash(hash common.Hash) *Block {
	h := s.chain.GetHeaderByHash(hash)
	if h == nil {
		return nil
	}
	return s.newBlock(h, hash)
}

// head is the head block.
func (s *Service) head() *Block {
	return s.newBlock(s.chain.CurrentHeader(), s.chain.CurrentHash())
}

func (b *Block) number() uint64 { return b.header.Number.Uint64() }

// loadBody reads the body once; nil for an ommer or a missing body.
func (b *Block) loadBody() *types.Body {
	if b.ommer {
		return nil
	}
	b.bodyOnce.Do(func() { b.body = b.s.chain.GetBody(b.hash, b.number()) })
	return b.body
}

// loadReceipts reads the receipts once (with their derived fields).
func (b *Block) loadReceipts() types.Receipts {
	if b.ommer {
		return nil
	}
	b.receiptsOnce.Do(func() { b.receipts = b.s.chain.GetReceipts(b.hash, b.number()) })
	return b.receipts
}

// txSigner is the signer of the block's transactions.
func (b *Block) txSigner() types.Signer {
	b.signerOnce.Do(func() { b.signer = types.MakeSigner(b.s.chain.Config(), b.header.Number, b.header.Time) })
	return b.signer
}

// stateBlock is the block whose post-state the block's account, call and
// estimateGas fields read: the block itself, or for an ommer the canonical
// block of its number.
func (b *Block) stateBlock() (*types.Header, common.Hash) {
	if !b.ommer {
		return b.header, b.hash
	}
	if c := b.s.blockByNumber(int64(b.number())); c != nil {
		return c.header, c.hash
	}
	return nil, common.Hash{}
}

// Number is the block number.
func (b *Block) Number() Long { return Long(b.number()) }

// Hash is the block hash (the consensus engine's, kept with the block).
func (b *Block) Hash() Hash { return Hash(b.hash) }

// Parent is the parent block, null for the genesis.
func (b *Block) Parent() *Block {
	if b.number() == 0 {
		return nil
	}
	return b.s.blockByHash(b.header.ParentHash)
}

// Nonce is the header's proof-of-work nonce.
func (b *Block) Nonce() Bytes { return b.header.Nonce[:] }

// TransactionsRoot is the root of the transactions trie.
func (b *Block) TransactionsRoot() Hash { return Hash(b.header.TxHash) }

// TransactionCount is the number of transactions (0 for an ommer, null
// when the body is not stored).
func (b *Block) TransactionCount() *Long {
	if b.ommer {
		n := Long(0)
		return &n
	}
	body := b.loadBody()
	if body == nil {
		return nil
	}
	n := Long(len(body.Transactions))
	return &n
}

// StateRoot is the root of the state trie after the block.
func (b *Block) StateRoot() Hash { return Hash(b.header.Root) }

// ReceiptsRoot is the root of the receipts trie.
func (b *Block) ReceiptsRoot() Hash { return Hash(b.header.ReceiptHash) }

// Miner is the coinbase account, read after the block (or after the
// block argument).
func (b *Block) Miner(args struct{ Block *Long }) *Account {
	if args.Block != nil {
		return b.s.accountAtNumber(b.header.Coinbase, int64(*args.Block))
	}
	header, hash := b.stateBlock()
	return b.s.newAccount(b.header.Coinbase, header, hash)
}

// ExtraData is the header's extra data.
func (b *Block) ExtraData() Bytes { return b.header.Extra }

// GasLimit is the block's gas limit.
func (b *Block) GasLimit() Long { return Long(b.header.GasLimit) }

// GasUsed is the gas the block's transactions used.
func (b *Block) GasUsed() Long { return Long(b.header.GasUsed) }

// BaseFeePerGas is the EIP-1559 base fee (null before London).
func (b *Block) BaseFeePerGas() *BigInt { return optBigInt(b.header.BaseFee) }

// NextBaseFeePerGas is the base fee of a block following this one (null
// before London). Besu leaves this field unresolved; go-ethereum and the
// EIP compute it.
func (b *Block) NextBaseFeePerGas() *BigInt {
	cfg := b.s.chain.Config()
	if !cfg.IsLondon(new(big.Int).Add(b.header.Number, common.Big1)) {
		return nil
	}
	return optBigInt(feemarket.CalcBaseFee(cfg, b.header))
}

// Timestamp is the block time in Unix seconds.
func (b *Block) Timestamp() Long { return Long(b.header.Time) }

// LogsBloom is the bloom filter of the block's logs.
func (b *Block) LogsBloom() Bytes { return b.header.Bloom[:] }

// MixHash is the header's mix digest.
func (b *Block) MixHash() Hash { return Hash(b.header.MixDigest) }

// Difficulty is the block's difficulty.
func (b *Block) Difficulty() BigInt { return newBigInt(b.header.Difficulty) }

// TotalDifficulty is the chain's difficulty up to this block (0 for an
// ommer, as Besu answers).
func (b *Block) TotalDifficulty() BigInt {
	if b.ommer {
		return BigInt{}
	}
	return newBigInt(b.s.chain.GetTD(b.hash, b.number()))
}

// OmmerCount is the number of ommers (null for an ommer or a block whose
// body is not stored).
func (b *Block) OmmerCount() *Long {
	if b.ommer {
		return nil
	}
	body := b.loadBody()
	if body == nil {
		return nil
	}
	n := Long(len(body.Uncles))
	return &n
}

// Ommers are the block's ommers.
func (b *Block) Ommers() *[]*Block {
	out := []*Block{}
	if body := b.loadBody(); body != nil {
		for _, u := range body.Uncles {
			out = append(out, b.ommerBlock(u))
		}
	}
	return &out
}

func (b *Block) ommerBlock(u *types.Header) *Block {
	return &Block{s: b.s, header: u, hash: b.s.chain.Hash(u), ommer: true}
}

// OmmerAt is the ommer at an index, null past the last.
func (b *Block) OmmerAt(args struct{ Index Long }) *Block {
	body := b.loadBody()
	if body == nil || args.Index < 0 || int64(args.Index) >= int64(len(body.Uncles)) {
		return nil
	}
	return b.ommerBlock(body.Uncles[args.Index])
}

// OmmerHash is the hash of the ommer list.
func (b *Block) OmmerHash() Hash { return Hash(b.header.UncleHash) }

// Transactions are the block's transactions (empty for an ommer).
func (b *Block) Transactions() *[]*Transaction {
	out := []*Transaction{}
	if body := b.loadBody(); body != nil {
		out = make([]*Transaction, len(body.Transactions))
		for i, tx := range body.Transactions {
			out[i] = b.s.newTransaction(tx, b, uint64(i), nil)
		}
	}
	return &out
}

// TransactionAt is the transaction at an index, null past the last.
func (b *Block) TransactionAt(args struct{ Index Long }) *Transaction {
	body := b.loadBody()
	if body == nil || args.Index < 0 || int64(args.Index) >= int64(len(body.Transactions)) {
		return nil
	}
	i := uint64(args.Index)
	return b.s.newTransaction(body.Transactions[i], b, i, nil)
}

// blockFilter is the BlockFilterCriteria input.
type blockFilter struct {
	Addresses *[]Address
	Topics    *[][]LogTopic
}

// Logs are the block's logs that match the filter (none for an ommer).
func (b *Block) Logs(ctx context.Context, args struct{ Filter blockFilter }) ([]*Log, error) {
	if b.ommer {
		return []*Log{}, nil
	}
	crit, err := criteria(args.Filter.Addresses, args.Filter.Topics)
	if err != nil {
		return nil, err
	}
	hash := b.hash
	return b.s.logs(ctx, filters.Query{BlockHash: &hash, Criteria: crit})
}

// Account is an account in the state after the block.
func (b *Block) Account(args struct{ Address Address }) *Account {
	header, hash := b.stateBlock()
	return b.s.newAccount(common.Address(args.Address), header, hash)
}

// Call runs a call on the state after the block.
func (b *Block) Call(ctx context.Context, args struct{ Data callData }) (*CallResult, error) {
	header, hash := b.stateBlock()
	return b.s.call(ctx, args.Data, header, hash)
}

// EstimateGas is the gas a call on the state after the block uses.
func (b *Block) EstimateGas(ctx context.Context, args struct{ Data callData }) (Long, error) {
	header, hash := b.stateBlock()
	return b.s.estimateGas(ctx, args.Data, header, hash)
}

// RawHeader is the header's RLP encoding.
func (b *Block) RawHeader() (Bytes, error) {
	enc, err := rlp.EncodeToBytes(b.header)
	if err != nil {
		return nil, err
	}
	return enc, nil
}

// Raw is the block's RLP encoding ("0x" when the body is not stored, as
// for an ommer).
func (b *Block) Raw() (Bytes, error) {
	body := b.loadBody()
	if body == nil {
		return Bytes{}, nil
	}
	enc, err := rlp.EncodeToBytes(types.NewBlockWithHeader(b.header).WithBody(*body))
	if err != nil {
		return nil, err
	}
	return enc, nil
}

// WithdrawalsRoot is the root of the withdrawals trie (null before
// Shanghai).
func (b *Block) WithdrawalsRoot() *Hash {
	if b.header.WithdrawalsHash == nil {
		return nil
	}
	h := Hash(*b.header.WithdrawalsHash)
	return &h
}

// Withdrawals are the block's withdrawals (null before Shanghai).
func (b *Block) Withdrawals() *[]*Withdrawal {
	body := b.loadBody()
	if body == nil || body.Withdrawals == nil {
		return nil
	}
	out := make([]*Withdrawal, len(body.Withdrawals))
	for i, w := range body.Withdrawals {
		out[i] = &Withdrawal{w: w}
	}
	return &out
}

// BlobGasUsed is the blob gas the block used (null before Cancun).
func (b *Block) BlobGasUsed() *Long { return optLong(b.header.BlobGasUsed) }

// ExcessBlobGas is the excess blob gas of EIP-4844 (null before Cancun).
func (b *Block) ExcessBlobGas() *Long { return optLong(b.header.ExcessBlobGas) }

func optLong(n *uint64) *Long {
	if n == nil {
		return nil
	}
	l := Long(*n)
	return &l
}

// Withdrawal resolves an EIP-4895 withdrawal; its methods resolve the
// schema fields of the same names.
type Withdrawal struct{ w *types.Withdrawal }

// Index is the withdrawal's index.
func (w *Withdrawal) Index() Long { return Long(w.w.Index) }

// Validator is the validator's index.
func (w *Withdrawal) Validator() Long { return Long(w.w.Validator) }

// Address is the account credited.
func (w *Withdrawal) Address() Address { return Address(w.w.Address) }

// Amount is the amount credited, in gwei.
func (w *Withdrawal) Amount() Long { return Long(w.w.Amount) }
