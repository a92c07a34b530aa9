package api

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// Eth is the ETH method group. Parameters and answers follow current Besu;
// where a method reads a block parameter first (Besu's block-parameter
// methods), register.go declares that order.
type Eth struct{ b *backend.Backend }

// ChainID is eth_chainId.
func (e *Eth) ChainID() hexutil.Big { return hexutil.Big(*e.b.ChainID()) }

// ProtocolVersion is eth_protocolVersion: the highest eth capability.
func (e *Eth) ProtocolVersion() hexutil.Uint64 { return hexutil.Uint64(e.b.ProtocolVersion()) }

// SyncingResult is eth_syncing's object while the node synchronises.
type SyncingResult struct {
	StartingBlock hexutil.Uint64 `json:"startingBlock"`
	CurrentBlock  hexutil.Uint64 `json:"currentBlock"`
	HighestBlock  hexutil.Uint64 `json:"highestBlock"`
}

// Syncing answers the synchronisation status object, or false when the
// node is not synchronising.
func (e *Eth) Syncing() any {
	s := e.b.SyncProgress()
	if s == nil {
		return false
	}
	return &SyncingResult{
		StartingBlock: hexutil.Uint64(s.StartingBlock),
		CurrentBlock:  hexutil.Uint64(s.CurrentBlock),
		HighestBlock:  hexutil.Uint64(s.HighestBlock),
	}
}

// BlockNumber is eth_blockNumber: the head's number.
func (e *Eth) BlockNumber() hexutil.Uint64 {
	return hexutil.Uint64(e.b.Chain.CurrentHeader().Number.Uint64())
}

// Accounts is eth_accounts: always empty, the node holds no keys.
func (e *Eth) Accounts() []common.Address { return []common.Address{} }

// GetBalance is eth_getBalance: the balance after the block, null when
// there is no such block.
func (e *Eth) GetBalance(addr rpctypes.Address, p BlockParam) (*hexutil.Big, error) {
	if priv, ok, err := e.privateAccount(addr, p); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return (*hexutil.Big)(priv.GetBalance(common.Address(addr)).ToBig()), nil
	}
	_, acct, err := e.account(addr, p)
	if acct == nil {
		return nil, err
	}
	return (*hexutil.Big)(acct.Balance.ToBig()), nil
}

// account reads addr after the block p names: a nil account, with a nil
// error, when there is no such block (the methods answer null).
func (e *Eth) account(addr rpctypes.Address, p BlockParam) (*types.Header, *types.StateAccount, error) {
	header, hash, err := headerFor(e.b, p)
	if header == nil || err != nil {
		return nil, nil, err
	}
	acct, err := e.b.Account(header, hash, common.Address(addr))
	if err != nil {
		return nil, nil, err
	}
	return header, acct, nil
}

// GetTransactionCount answers the account nonce; with "pending", the
// higher of the pool's next nonce and the head's.
func (e *Eth) GetTransactionCount(addr rpctypes.Address, p BlockParam) (*hexutil.Uint64, error) {
	if priv, ok, err := e.privateAccount(addr, p); ok || err != nil {
		if err != nil {
			return nil, err
		}
		n := priv.GetNonce(common.Address(addr))
		return (*hexutil.Uint64)(&n), nil
	}
	_, acct, err := e.account(addr, p)
	if acct == nil {
		return nil, err
	}
	n := acct.Nonce
	if p.Tag == rpctypes.TagPending && e.b.Pool != nil {
		n = max(n, e.b.Pool.PendingNonce(common.Address(addr)))
	}
	return (*hexutil.Uint64)(&n), nil
}

// GetCode is eth_getCode: the code after the block ("0x" for none), null
// when there is no such block.
func (e *Eth) GetCode(addr rpctypes.Address, p BlockParam) (*hexutil.Bytes, error) {
	if priv, ok, err := e.privateAccount(addr, p); ok || err != nil {
		if err != nil {
			return nil, err
		}
		code := hexutil.Bytes(priv.GetCode(common.Address(addr)))
		if code == nil {
			code = hexutil.Bytes{}
		}
		return &code, nil
	}
	header, acct, err := e.account(addr, p)
	if acct == nil {
		return nil, err
	}
	code, err := e.b.Code(header, common.Address(addr), acct)
	if err != nil {
		return nil, err
	}
	return (*hexutil.Bytes)(&code), nil
}

// StorageKey is a storage position: Besu's UInt256Parameter (hex, 0x
// optional, at most 64 digits).
type StorageKey common.Hash

// UnmarshalJSON implements json.Unmarshaler.
func (k *StorageKey) UnmarshalJSON(data []byte) error {
	var s string
	if err := rpctypes.Unquote(data, &s); err != nil {
		return errBadParam
	}
	h, err := parseLenientHash(s)
	if err != nil {
		return errBadParam
	}
	*k = StorageKey(h)
	return nil
}

// GetStorageAt is eth_getStorageAt: a storage slot after the block, null
// when there is no such block.
func (e *Eth) GetStorageAt(addr rpctypes.Address, key StorageKey, p BlockParam) (*common.Hash, error) {
	header, hash, err := headerFor(e.b, p)
	if header == nil || err != nil {
		return nil, err
	}
	if priv, err := e.b.GoQuorumState(hash, common.Address(addr)); priv != nil || err != nil {
		if err != nil {
			return nil, err
		}
		v := priv.GetState(common.Address(addr), common.Hash(key))
		return &v, nil
	}
	v, err := e.b.Storage(header, hash, common.Address(addr), common.Hash(key))
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// SendRawTransaction is eth_sendRawTransaction: a signed transaction in
// hex (0x optional) for Backend.SendRawTransaction. Hex that does not
// decode is invalid, as are the bytes the backend cannot read as a
// transaction (Besu's "Invalid params" either way).
func (e *Eth) SendRawTransaction(ctx context.Context, raw string) (common.Hash, error) {
	data, err := evenHex(raw)
	if err != nil {
		return common.Hash{}, backend.InvalidParams(backend.ParamAny, "")
	}
	return e.b.SendRawTransaction(ctx, data)
}

// SendTransaction is eth_sendTransaction, which the node does not serve:
// it holds no keys.
func (e *Eth) SendTransaction() (common.Hash, error) {
	return common.Hash{}, backend.ErrNoSigningKeys
}

// GetTransactionByHash is eth_getTransactionByHash: a transaction of the
// canonical chain or of the pool, null when neither has it.
func (e *Eth) GetTransactionByHash(hash rpctypes.Hash) (*TxJSON, error) {
	c := e.b.Chain
	if tx, loc, ok := c.GetTransaction(common.Hash(hash)); ok {
		header := c.GetHeader(loc.BlockHash, loc.BlockNumber)
		if header != nil {
			return txJSON(c.Config(), tx, &TxContext{BlockHash: loc.BlockHash, Header: header, Index: loc.Index}), nil
		}
	}
	if tx := e.b.PooledTransaction(common.Hash(hash)); tx != nil {
		return txJSON(c.Config(), tx, nil), nil
	}
	return nil, nil
}

// GetTransactionReceipt is eth_getTransactionReceipt: null for a
// transaction that is not in the canonical chain.
func (e *Eth) GetTransactionReceipt(hash rpctypes.Hash) (*ReceiptJSON, error) {
	c := e.b.Chain
	tx, loc, ok := c.GetTransaction(common.Hash(hash))
	if !ok {
		return nil, nil
	}
	header := c.GetHeader(loc.BlockHash, loc.BlockNumber)
	receipts := c.GetReceipts(loc.BlockHash, loc.BlockNumber)
	if header == nil || uint64(len(receipts)) <= loc.Index {
		return nil, nil
	}
	out := receiptJSON(c.Config(), receipts[loc.Index], tx, header)
	addRevertReasons(e.b, header, loc.BlockHash, out)
	if err := e.privateReceipt(out, tx, loc.BlockHash); err != nil {
		return nil, err
	}
	return out, nil
}

// GetBlockReceipts answers the receipts of every transaction of a block,
// null when there is no such block.
func (e *Eth) GetBlockReceipts(p BlockParam) ([]*ReceiptJSON, error) {
	header, hash, err := headerFor(e.b, p)
	if header == nil || err != nil {
		return nil, err
	}
	c := e.b.Chain
	number := header.Number.Uint64()
	body := c.GetBody(hash, number)
	receipts := c.GetReceipts(hash, number)
	if body == nil || len(receipts) != len(body.Transactions) {
		return nil, nil
	}
	out := make([]*ReceiptJSON, len(receipts))
	for i, r := range receipts {
		out[i] = receiptJSON(c.Config(), r, body.Transactions[i], header)
	}
	addRevertReasons(e.b, header, hash, out...)
	for i, tx := range body.Transactions {
		if err := e.privateReceipt(out[i], tx, hash); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// blockJSON renders a stored block, nil for none; full selects
// transaction objects.
func (e *Eth) blockJSON(header *types.Header, hash common.Hash, full bool) *BlockJSON {
	c := e.b.Chain
	body := e.body(header, hash)
	if body == nil {
		return nil
	}
	number := header.Number.Uint64()
	block := types.NewBlockWithHeader(header).WithBody(*body)
	out := headerJSON(header, hash, c.GetTD(hash, number))
	out.Size = hexutil.Uint64(block.Size())
	for _, u := range body.Uncles {
		out.Uncles = append(out.Uncles, c.Hash(u))
	}
	out.Transactions = make([]any, len(body.Transactions))
	for i, tx := range body.Transactions {
		if full {
			out.Transactions[i] = txJSON(c.Config(), tx, &TxContext{BlockHash: hash, Header: header, Index: uint64(i)})
		} else {
			out.Transactions[i] = tx.Hash()
		}
	}
	if out.WithdrawalsRoot != nil {
		w := types.Withdrawals(body.Withdrawals)
		if w == nil {
			w = types.Withdrawals{}
		}
		out.Withdrawals = &w
	}
	return out
}

// The methods by block hash and by block number differ only in how they
// find the block: each resolves its parameter to a header (nil when there
// is no such block, and the method answers null) and reads the body
// through body.

// headerByHash is the block hash names; a nil header when it is unknown.
func (e *Eth) headerByHash(hash rpctypes.Hash) (*types.Header, common.Hash) {
	return e.b.Chain.GetHeaderByHash(common.Hash(hash)), common.Hash(hash)
}

// body is the body of the block (h, hash); nil for no block (a nil h) or
// a missing body.
func (e *Eth) body(h *types.Header, hash common.Hash) *types.Body {
	if h == nil {
		return nil
	}
	return e.b.Chain.GetBody(hash, h.Number.Uint64())
}

// GetBlockByNumber is eth_getBlockByNumber; full selects transaction
// objects over hashes.
func (e *Eth) GetBlockByNumber(p rpctypes.BlockNumber, full bool) *BlockJSON {
	h, hash := headerForNumber(e.b, p)
	return e.blockJSON(h, hash, full)
}

// GetBlockByHash is eth_getBlockByHash; full selects transaction objects
// over hashes.
func (e *Eth) GetBlockByHash(hash rpctypes.Hash, full bool) *BlockJSON {
	h, bh := e.headerByHash(hash)
	return e.blockJSON(h, bh, full)
}

// byHash and byNumber make a method of a block parameter from what it
// answers for the block found (a nil header for none): the method by
// block hash and the one by block number share everything else.
func byHash[T any](e *Eth, answer func(*types.Header, common.Hash) *T) func(rpctypes.Hash) *T {
	return func(hash rpctypes.Hash) *T { return answer(e.headerByHash(hash)) }
}

func byNumber[T any](e *Eth, answer func(*types.Header, common.Hash) *T) func(rpctypes.BlockNumber) *T {
	return func(p rpctypes.BlockNumber) *T { return answer(headerForNumber(e.b, p)) }
}

// byHashAndIndex and byNumberAndIndex do the same for the methods that
// take an index into the block.
func byHashAndIndex[T any](e *Eth, at func(*types.Header, common.Hash, uint64) *T) func(rpctypes.Hash, UintIndex) *T {
	return func(hash rpctypes.Hash, index UintIndex) *T {
		h, bh := e.headerByHash(hash)
		return at(h, bh, uint64(index))
	}
}

func byNumberAndIndex[T any](e *Eth, at func(*types.Header, common.Hash, uint64) *T) func(rpctypes.BlockNumber, UintIndex) *T {
	return func(p rpctypes.BlockNumber, index UintIndex) *T {
		h, hash := headerForNumber(e.b, p)
		return at(h, hash, uint64(index))
	}
}

// txCount is the number of transactions of a block
// (eth_getBlockTransactionCountByHash and ByNumber).
func (e *Eth) txCount(h *types.Header, hash common.Hash) *hexutil.Uint64 {
	return e.bodyCount(h, hash, func(b *types.Body) int { return len(b.Transactions) })
}

// uncleCount is the number of uncles of a block
// (eth_getUncleCountByBlockHash and ByBlockNumber).
func (e *Eth) uncleCount(h *types.Header, hash common.Hash) *hexutil.Uint64 {
	return e.bodyCount(h, hash, func(b *types.Body) int { return len(b.Uncles) })
}

// bodyCount is n of the body of the block (h, hash), nil for no block.
func (e *Eth) bodyCount(h *types.Header, hash common.Hash, n func(*types.Body) int) *hexutil.Uint64 {
	body := e.body(h, hash)
	if body == nil {
		return nil
	}
	count := hexutil.Uint64(n(body))
	return &count
}

// txAt is the index-th transaction of a block
// (eth_getTransactionByBlockHashAndIndex and ByBlockNumberAndIndex).
func (e *Eth) txAt(h *types.Header, hash common.Hash, index uint64) *TxJSON {
	body := e.body(h, hash)
	if body == nil || index >= uint64(len(body.Transactions)) {
		return nil
	}
	return txJSON(e.b.Chain.Config(), body.Transactions[index], &TxContext{BlockHash: hash, Header: h, Index: index})
}

// uncleAt renders the index-th uncle of a block
// (eth_getUncleByBlockHashAndIndex and ByBlockNumberAndIndex) as Besu does: a block object without
// transactions or uncles, total difficulty zero.
func (e *Eth) uncleAt(h *types.Header, hash common.Hash, index uint64) *BlockJSON {
	body := e.body(h, hash)
	if body == nil || index >= uint64(len(body.Uncles)) {
		return nil
	}
	u := body.Uncles[index]
	out := headerJSON(u, e.b.Chain.Hash(u), new(big.Int))
	out.Size = hexutil.Uint64(types.NewBlockWithHeader(u).Size())
	out.Transactions = []any{}
	return out
}

// Mining is eth_mining: whether the miner is producing blocks.
func (e *Eth) Mining() bool { return e.b.Miner != nil && e.b.Miner.Mining() }

// Hashrate is eth_hashrate: the local hash rate (0 without proof of work).
func (e *Eth) Hashrate() hexutil.Uint64 { return hexutil.Uint64(e.b.Hashrate()) }

// Coinbase is eth_coinbase: the miner's coinbase.
func (e *Eth) Coinbase() (common.Address, error) {
	if e.b.Miner != nil {
		if cb, ok := e.b.Miner.Coinbase(); ok {
			return cb, nil
		}
	}
	return common.Address{}, backend.ErrCoinbaseNotSpecified
}

// GetWork is eth_getWork: the proof-of-work hash, seed hash and boundary
// of the block being mined.
func (e *Eth) GetWork() ([3]string, error) {
	if e.b.Miner == nil {
		return [3]string{}, backend.ErrNoMiningWork
	}
	pow, seed, boundary, err := e.b.Miner.GetWork()
	if err != nil {
		return [3]string{}, backend.ErrNoMiningWork
	}
	return [3]string{pow.Hex(), seed.Hex(), boundary.Hex()}, nil
}

// SubmitWork is eth_submitWork: whether the solution sealed the block.
func (e *Eth) SubmitWork(nonce types.BlockNonce, powHash, mix common.Hash) bool {
	return e.b.Miner != nil && e.b.Miner.SubmitWork(nonce, powHash, mix)
}

// SubmitHashrate is eth_submitHashrate: a remote miner reports its rate.
func (e *Eth) SubmitHashrate(rate hexutil.Big, id common.Hash) bool {
	return e.b.SubmitHashrate(id, (*big.Int)(&rate).Uint64())
}
