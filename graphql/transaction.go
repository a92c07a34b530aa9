package graphql

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Transaction resolves the schema's Transaction: one of a block (block and
// index set) or of the pool (block nil, from set by the pool). Its methods
// resolve the schema fields of the same names.
type Transaction struct {
	// Hash resolves the hash field (a struct field, which graphql-go
	// reads without a reflective call; see newTransaction).
	Hash Hash

	s     *Service
	tx    *types.Transaction
	block *Block
	index uint64
	from  *common.Address // the sender, when the pool already knows it
}

// newTransaction resolves tx, the index-th transaction of block (nil for a
// pooled one, whose sender from is then known).
func (s *Service) newTransaction(tx *types.Transaction, block *Block, index uint64, from *common.Address) *Transaction {
	return &Transaction{Hash: Hash(tx.Hash()), s: s, tx: tx, block: block, index: index, from: from}
}

// transactionByHash finds a transaction in the canonical chain, then in the
// pool; nil when neither has it.
func (s *Service) transactionByHash(hash common.Hash) *Transaction {
	if tx, loc, ok := s.chain.GetTransaction(hash); ok {
		if b := s.blockByHash(loc.BlockHash); b != nil {
			return s.newTransaction(tx, b, loc.Index, nil)
		}
	}
	if tx := s.backend.PooledTransaction(hash); tx != nil {
		return s.newTransaction(tx, nil, 0, nil)
	}
	return nil
}

// sender recovers the sender (cached in the transaction by go-ethereum).
func (t *Transaction) sender() common.Address {
	if t.from != nil {
		return *t.from
	}
	var signer types.Signer
	if t.block != nil {
		signer = t.block.txSigner()
	} else {
		signer = types.LatestSignerForChainID(t.s.chain.Config().ChainID)
	}
	from, _ := types.Sender(signer, t.tx)
	return from
}

// receipt is the transaction's receipt, nil while pending.
func (t *Transaction) receipt() *types.Receipt {
	if t.block == nil {
		return nil
	}
	rs := t.block.loadReceipts()
	if uint64(len(rs)) <= t.index {
		return nil
	}
	return rs[t.index]
}

// accountAt is an account in the state an address field reads: after the
// block named by the field's block argument, else after the transaction's
// block, else (pending) after the head.
func (t *Transaction) accountAt(addr common.Address, block *Long) *Account {
	switch {
	case block != nil:
		return t.s.accountAtNumber(addr, int64(*block))
	case t.block != nil:
		return t.s.newAccount(addr, t.block.header, t.block.hash)
	}
	return t.s.newAccount(addr, t.s.chain.CurrentHeader(), t.s.chain.CurrentHash())
}

// Nonce is the sender's nonce for this transaction.
func (t *Transaction) Nonce() Long { return Long(t.tx.Nonce()) }

// Index is the transaction's position in its block, null while pending.
func (t *Transaction) Index() *Long {
	if t.block == nil {
		return nil
	}
	i := Long(t.index)
	return &i
}

// From is the sender's account (see accountAt for the state read).
func (t *Transaction) From(args struct{ Block *Long }) *Account {
	return t.accountAt(t.sender(), args.Block)
}

// To is the recipient's account, null for a contract creation.
func (t *Transaction) To(args struct{ Block *Long }) *Account {
	to := t.tx.To()
	if to == nil {
		return nil
	}
	return t.accountAt(*to, args.Block)
}

// Value is the wei transferred.
func (t *Transaction) Value() BigInt { return newBigInt(t.tx.Value()) }

// legacyPriced reports whether the transaction names a gas price (legacy
// and access-list transactions) rather than fee caps.
func (t *Transaction) legacyPriced() bool {
	return t.tx.Type() == types.LegacyTxType || t.tx.Type() == types.AccessListTxType
}

// GasPrice is the gas price of a legacy or access-list transaction and 0
// for the fee-market types, as Besu answers it.
func (t *Transaction) GasPrice() BigInt {
	if !t.legacyPriced() {
		return BigInt{}
	}
	return newBigInt(t.tx.GasPrice())
}

// MaxFeePerGas is the fee cap of a fee-market transaction (null for
// legacy and access-list transactions).
func (t *Transaction) MaxFeePerGas() *BigInt {
	if t.legacyPriced() {
		return nil
	}
	return optBigInt(t.tx.GasFeeCap())
}

// MaxPriorityFeePerGas is the tip cap of a fee-market transaction (null
// for legacy and access-list transactions).
func (t *Transaction) MaxPriorityFeePerGas() *BigInt {
	if t.legacyPriced() {
		return nil
	}
	return optBigInt(t.tx.GasTipCap())
}

// MaxFeePerBlobGas is the blob fee cap of a blob transaction (null for
// the other types).
func (t *Transaction) MaxFeePerBlobGas() *BigInt {
	if t.tx.Type() != types.BlobTxType {
		return nil
	}
	return optBigInt(t.tx.BlobGasFeeCap())
}

// EffectiveTip is what the block producer earned per gas: the price above
// the block's base fee (the whole price before London).
func (t *Transaction) EffectiveTip() *BigInt {
	if t.block == nil {
		return nil
	}
	baseFee := t.block.header.BaseFee
	if baseFee == nil {
		return optBigInt(t.tx.GasPrice())
	}
	tip := new(big.Int)
	if t.legacyPriced() {
		if t.tx.GasPrice().Cmp(baseFee) > 0 {
			tip.Sub(t.tx.GasPrice(), baseFee)
		}
		return optBigInt(tip)
	}
	if t.tx.GasFeeCap().Cmp(baseFee) > 0 {
		tip.Sub(t.tx.GasFeeCap(), baseFee)
		if tip.Cmp(t.tx.GasTipCap()) > 0 {
			tip.Set(t.tx.GasTipCap())
		}
	}
	return optBigInt(tip)
}

// Gas is the gas limit.
func (t *Transaction) Gas() Long { return Long(t.tx.Gas()) }

// InputData is the call data or init code.
func (t *Transaction) InputData() Bytes { return t.tx.Data() }

// Block is the block holding the transaction, null while pending.
func (t *Transaction) Block() *Block { return t.block }

// Status is null for a pending transaction and for a receipt that carries
// a state root instead (before Byzantium).
func (t *Transaction) Status() *Long {
	r := t.receipt()
	if r == nil || len(r.PostState) > 0 {
		return nil
	}
	s := Long(r.Status)
	return &s
}

// GasUsed is the gas the transaction used, null while pending.
func (t *Transaction) GasUsed() *Long {
	r := t.receipt()
	if r == nil {
		return nil
	}
	return optLong(&r.GasUsed)
}

// CumulativeGasUsed is the gas its block had used after it, null while
// pending.
func (t *Transaction) CumulativeGasUsed() *Long {
	r := t.receipt()
	if r == nil {
		return nil
	}
	return optLong(&r.CumulativeGasUsed)
}

// EffectiveGasPrice is the price per gas the sender paid, null while
// pending.
func (t *Transaction) EffectiveGasPrice() *BigInt {
	if t.block == nil {
		return nil
	}
	baseFee := t.block.header.BaseFee
	if baseFee == nil || t.legacyPriced() {
		return optBigInt(t.tx.GasPrice())
	}
	tip := new(big.Int).Sub(t.tx.GasFeeCap(), baseFee)
	if tip.Cmp(t.tx.GasTipCap()) > 0 {
		tip.Set(t.tx.GasTipCap())
	}
	return optBigInt(tip.Add(tip, baseFee))
}

// BlobGasUsed is the blob gas of a mined blob transaction (null
// otherwise).
func (t *Transaction) BlobGasUsed() *Long {
	r := t.receipt()
	if r == nil || t.tx.Type() != types.BlobTxType {
		return nil
	}
	return optLong(&r.BlobGasUsed)
}

// BlobGasPrice is the blob gas price a mined blob transaction paid (null
// otherwise).
func (t *Transaction) BlobGasPrice() *BigInt {
	r := t.receipt()
	if r == nil || t.tx.Type() != types.BlobTxType {
		return nil
	}
	return optBigInt(r.BlobGasPrice)
}

// CreatedContract is the account a contract creation made, read after its
// block (or after the block argument); null otherwise, and while pending
// unless a block is named.
func (t *Transaction) CreatedContract(args struct{ Block *Long }) *Account {
	if t.tx.To() != nil || (t.block == nil && args.Block == nil) {
		return nil
	}
	addr := crypto.CreateAddress(t.sender(), t.tx.Nonce())
	return t.accountAt(addr, args.Block)
}

// Logs are the transaction's logs, null while pending.
func (t *Transaction) Logs() *[]*Log {
	r := t.receipt()
	if r == nil {
		return nil
	}
	out := make([]*Log, len(r.Logs))
	for i, l := range r.Logs {
		out[i] = &Log{s: t.s, l: l, tx: t}
	}
	return &out
}

// R is the signature's r.
func (t *Transaction) R() BigInt {
	_, r, _ := t.tx.RawSignatureValues()
	return newBigInt(r)
}

// S is the signature's s.
func (t *Transaction) S() BigInt {
	_, _, s := t.tx.RawSignatureValues()
	return newBigInt(s)
}

// V is the signature's v of a legacy transaction, the y parity of an
// access-list or EIP-1559 one, and null for the later types (Besu's
// answer).
func (t *Transaction) V() *BigInt {
	v, _, _ := t.tx.RawSignatureValues()
	if t.tx.Type() >= types.BlobTxType {
		return nil
	}
	return optBigInt(v)
}

// YParity is null for legacy transactions.
func (t *Transaction) YParity() *BigInt {
	if t.tx.Type() == types.LegacyTxType {
		return nil
	}
	v, _, _ := t.tx.RawSignatureValues()
	return optBigInt(v)
}

// Type is the EIP-2718 transaction type.
func (t *Transaction) Type() *Long {
	n := Long(t.tx.Type())
	return &n
}

// AccessList is the EIP-2930 access list (empty for legacy
// transactions).
func (t *Transaction) AccessList() *[]*AccessTuple {
	al := t.tx.AccessList()
	out := make([]*AccessTuple, len(al))
	for i := range al {
		out[i] = &AccessTuple{t: al[i]}
	}
	return &out
}

// Raw is the transaction's consensus encoding.
func (t *Transaction) Raw() (Bytes, error) {
	enc, err := t.tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return enc, nil
}

// RawReceipt is the receipt's consensus encoding ("0x" while pending).
func (t *Transaction) RawReceipt() (Bytes, error) {
	r := t.receipt()
	if r == nil {
		return Bytes{}, nil
	}
	enc, err := r.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return enc, nil
}

// BlobVersionedHashes are a blob transaction's versioned hashes (empty
// for the other types).
func (t *Transaction) BlobVersionedHashes() *[]VersionedHash {
	hashes := t.tx.BlobHashes()
	out := make([]VersionedHash, len(hashes))
	for i, h := range hashes {
		out[i] = VersionedHash(h)
	}
	return &out
}

// RevertReason is null: the node does not keep revert reasons in receipts.
func (t *Transaction) RevertReason() *Bytes { return nil }

// AccessTuple resolves an EIP-2930 access list entry; its methods resolve
// the schema fields of the same names.
type AccessTuple struct{ t types.AccessTuple }

// Address is the account the entry warms.
func (a *AccessTuple) Address() Address { return Address(a.t.Address) }

// StorageKeys are the storage slots the entry warms.
func (a *AccessTuple) StorageKeys() []Bytes32 {
	out := make([]Bytes32, len(a.t.StorageKeys))
	for i, k := range a.t.StorageKeys {
		out[i] = Bytes32(k)
	}
	return out
}
