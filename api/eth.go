package api

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/rpc"
)

// Eth is the ETH method group. Parameters and answers follow current Besu;
// where a method reads a block parameter first (Besu's block-parameter
// methods), register.go declares that order.
type Eth struct{ b *Backend }

// ethProtocolVersion is the highest eth capability the node speaks (eth/68).
const ethProtocolVersion = 68

func (e *Eth) ChainID() hexutil.Big {
	return hexutil.Big(*e.b.Chain.Config().ChainID)
}

func (e *Eth) ProtocolVersion() hexutil.Uint64 { return ethProtocolVersion }

// SyncingResult is eth_syncing's object while the node synchronises.
type SyncingResult struct {
	StartingBlock hexutil.Uint64 `json:"startingBlock"`
	CurrentBlock  hexutil.Uint64 `json:"currentBlock"`
	HighestBlock  hexutil.Uint64 `json:"highestBlock"`
}

// Syncing answers the synchronisation status object, or false when the
// node is not synchronising.
func (e *Eth) Syncing() any {
	if e.b.Syncing == nil {
		return false
	}
	s := e.b.Syncing()
	if s == nil {
		return false
	}
	return &SyncingResult{
		StartingBlock: hexutil.Uint64(s.StartingBlock),
		CurrentBlock:  hexutil.Uint64(s.CurrentBlock),
		HighestBlock:  hexutil.Uint64(s.HighestBlock),
	}
}

func (e *Eth) BlockNumber() hexutil.Uint64 {
	return hexutil.Uint64(e.b.Chain.CurrentHeader().Number.Uint64())
}

func (e *Eth) Accounts() []common.Address { return []common.Address{} }

func (e *Eth) GetBalance(addr Address, p BlockParam) (*hexutil.Big, error) {
	header, hash, err := e.b.headerFor(p)
	if header == nil || err != nil {
		return nil, err
	}
	acct, err := e.b.account(header, hash, common.Address(addr))
	if err != nil {
		return nil, err
	}
	return (*hexutil.Big)(acct.Balance.ToBig()), nil
}

// GetTransactionCount answers the account nonce; with "pending", the
// higher of the pool's next nonce and the head's.
func (e *Eth) GetTransactionCount(addr Address, p BlockParam) (*hexutil.Uint64, error) {
	header, hash, err := e.b.headerFor(p)
	if header == nil || err != nil {
		return nil, err
	}
	acct, err := e.b.account(header, hash, common.Address(addr))
	if err != nil {
		return nil, err
	}
	n := acct.Nonce
	if p.Tag == tagPending && e.b.Pool != nil {
		n = max(n, e.b.Pool.PendingNonce(common.Address(addr)))
	}
	return (*hexutil.Uint64)(&n), nil
}

func (e *Eth) GetCode(addr Address, p BlockParam) (*hexutil.Bytes, error) {
	header, hash, err := e.b.headerFor(p)
	if header == nil || err != nil {
		return nil, err
	}
	acct, err := e.b.account(header, hash, common.Address(addr))
	if err != nil {
		return nil, err
	}
	code := hexutil.Bytes{}
	if common.BytesToHash(acct.CodeHash) != types.EmptyCodeHash {
		rd, err := e.b.Chain.StateReader(header.Root)
		if err != nil {
			return nil, errWorldStateUnavail
		}
		code = rd.Code(common.Address(addr), common.BytesToHash(acct.CodeHash))
	}
	return &code, nil
}

// StorageKey is a storage position: Besu's UInt256Parameter (hex, 0x
// optional, at most 64 digits).
type StorageKey common.Hash

// UnmarshalJSON implements json.Unmarshaler.
func (k *StorageKey) UnmarshalJSON(data []byte) error {
	var s string
	if err := unquote(data, &s); err != nil {
		return errBadParam
	}
	h, err := parseLenientHash(s)
	if err != nil {
		return errBadParam
	}
	*k = StorageKey(h)
	return nil
}

func (e *Eth) GetStorageAt(addr Address, key StorageKey, p BlockParam) (*common.Hash, error) {
	header, hash, err := e.b.headerFor(p)
	if header == nil || err != nil {
		return nil, err
	}
	if err := e.b.ensureState(header, hash); err != nil {
		return nil, err
	}
	rd, err := e.b.Chain.StateReader(header.Root)
	if err != nil {
		return nil, errWorldStateUnavail
	}
	v, err := rd.Storage(common.Address(addr), common.Hash(key))
	if err != nil {
		return nil, errWorldStateUnavail
	}
	return &v, nil
}

// secp256k1N is the order of the curve; signature values must be below it.
var secp256k1N = crypto.S256().Params().N

// SendRawTransaction decodes a signed transaction (hex, 0x optional) and
// hands it to the pool. Undecodable input and impossible signature values
// are Besu's "Invalid params"; pool refusals are Besu's codes without a
// reason, as current Besu answers them.
func (e *Eth) SendRawTransaction(raw string) (common.Hash, error) {
	data, err := evenHex(raw)
	if err != nil {
		return common.Hash{}, rpc.ErrInvalidParams
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(data); err != nil {
		return common.Hash{}, rpc.ErrInvalidParams
	}
	_, r, s := tx.RawSignatureValues()
	if r.Sign() <= 0 || s.Sign() <= 0 || r.Cmp(secp256k1N) >= 0 || s.Cmp(secp256k1N) >= 0 {
		return common.Hash{}, rpc.ErrInvalidParams
	}
	if e.b.Pool == nil {
		return common.Hash{}, rpc.ErrTxPoolDisabled
	}
	if err := e.b.Pool.AddLocal(tx); err != nil {
		return common.Hash{}, poolError(err)
	}
	return tx.Hash(), nil
}

func (e *Eth) SendTransaction() (common.Hash, error) {
	return common.Hash{}, errSendTxNotSupported
}

func (e *Eth) GetTransactionByHash(hash Hash) (*TxJSON, error) {
	c := e.b.Chain
	if tx, loc, ok := c.GetTransaction(common.Hash(hash)); ok {
		header := c.GetHeader(loc.BlockHash, loc.BlockNumber)
		if header != nil {
			return txJSON(c.Config(), tx, &TxContext{BlockHash: loc.BlockHash, Header: header, Index: loc.Index}), nil
		}
	}
	if e.b.Pool != nil {
		if tx := e.b.Pool.Get(common.Hash(hash)); tx != nil {
			return txJSON(c.Config(), tx, nil), nil
		}
	}
	return nil, nil
}

func (e *Eth) GetTransactionReceipt(hash Hash) (*ReceiptJSON, error) {
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
	e.b.addRevertReasons(header, loc.BlockHash, out)
	return out, nil
}

// GetBlockReceipts answers the receipts of every transaction of a block,
// null when there is no such block.
func (e *Eth) GetBlockReceipts(p BlockParam) ([]*ReceiptJSON, error) {
	header, hash, err := e.b.headerFor(p)
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
	e.b.addRevertReasons(header, hash, out...)
	return out, nil
}

// blockJSON renders a stored block; full selects transaction objects.
func (e *Eth) blockJSON(header *types.Header, hash common.Hash, full bool) *BlockJSON {
	c := e.b.Chain
	number := header.Number.Uint64()
	body := c.GetBody(hash, number)
	if body == nil {
		return nil
	}
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

func (e *Eth) GetBlockByNumber(p BlockNumber, full bool) *BlockJSON {
	h, hash := e.b.headerForNumber(p)
	if h == nil {
		return nil
	}
	return e.blockJSON(h, hash, full)
}

func (e *Eth) GetBlockByHash(hash Hash, full bool) *BlockJSON {
	h := e.b.Chain.GetHeaderByHash(common.Hash(hash))
	if h == nil {
		return nil
	}
	return e.blockJSON(h, common.Hash(hash), full)
}

func (e *Eth) GetBlockTransactionCountByHash(hash Hash) *hexutil.Uint64 {
	h := e.b.Chain.GetHeaderByHash(common.Hash(hash))
	if h == nil {
		return nil
	}
	return e.txCount(h, common.Hash(hash))
}

func (e *Eth) GetBlockTransactionCountByNumber(p BlockNumber) *hexutil.Uint64 {
	h, hash := e.b.headerForNumber(p)
	if h == nil {
		return nil
	}
	return e.txCount(h, hash)
}

func (e *Eth) txCount(h *types.Header, hash common.Hash) *hexutil.Uint64 {
	body := e.b.Chain.GetBody(hash, h.Number.Uint64())
	if body == nil {
		return nil
	}
	n := hexutil.Uint64(len(body.Transactions))
	return &n
}

func (e *Eth) GetUncleCountByBlockHash(hash Hash) *hexutil.Uint64 {
	h := e.b.Chain.GetHeaderByHash(common.Hash(hash))
	if h == nil {
		return nil
	}
	return e.uncleCount(h, common.Hash(hash))
}

func (e *Eth) GetUncleCountByBlockNumber(p BlockNumber) *hexutil.Uint64 {
	h, hash := e.b.headerForNumber(p)
	if h == nil {
		return nil
	}
	return e.uncleCount(h, hash)
}

func (e *Eth) uncleCount(h *types.Header, hash common.Hash) *hexutil.Uint64 {
	body := e.b.Chain.GetBody(hash, h.Number.Uint64())
	if body == nil {
		return nil
	}
	n := hexutil.Uint64(len(body.Uncles))
	return &n
}

func (e *Eth) GetTransactionByBlockHashAndIndex(hash Hash, index UintIndex) *TxJSON {
	h := e.b.Chain.GetHeaderByHash(common.Hash(hash))
	if h == nil {
		return nil
	}
	return e.txAt(h, common.Hash(hash), uint64(index))
}

func (e *Eth) GetTransactionByBlockNumberAndIndex(p BlockNumber, index UintIndex) *TxJSON {
	h, hash := e.b.headerForNumber(p)
	if h == nil {
		return nil
	}
	return e.txAt(h, hash, uint64(index))
}

func (e *Eth) txAt(h *types.Header, hash common.Hash, index uint64) *TxJSON {
	body := e.b.Chain.GetBody(hash, h.Number.Uint64())
	if body == nil || index >= uint64(len(body.Transactions)) {
		return nil
	}
	return txJSON(e.b.Chain.Config(), body.Transactions[index], &TxContext{BlockHash: hash, Header: h, Index: index})
}

func (e *Eth) GetUncleByBlockHashAndIndex(hash Hash, index UintIndex) *BlockJSON {
	h := e.b.Chain.GetHeaderByHash(common.Hash(hash))
	if h == nil {
		return nil
	}
	return e.uncleAt(h, common.Hash(hash), uint64(index))
}

func (e *Eth) GetUncleByBlockNumberAndIndex(p BlockNumber, index UintIndex) *BlockJSON {
	h, hash := e.b.headerForNumber(p)
	if h == nil {
		return nil
	}
	return e.uncleAt(h, hash, uint64(index))
}

// uncleAt renders an uncle as Besu does: a block object without
// transactions or uncles, total difficulty zero.
func (e *Eth) uncleAt(h *types.Header, hash common.Hash, index uint64) *BlockJSON {
	body := e.b.Chain.GetBody(hash, h.Number.Uint64())
	if body == nil || index >= uint64(len(body.Uncles)) {
		return nil
	}
	u := body.Uncles[index]
	out := headerJSON(u, e.b.Chain.Hash(u), new(big.Int))
	out.Size = hexutil.Uint64(types.NewBlockWithHeader(u).Size())
	out.Transactions = []any{}
	return out
}

func (e *Eth) Mining() bool { return e.b.Miner != nil && e.b.Miner.Mining() }

func (e *Eth) Hashrate() hexutil.Uint64 {
	if e.b.Hashrate == nil {
		return 0
	}
	return hexutil.Uint64(e.b.Hashrate())
}

func (e *Eth) Coinbase() (common.Address, error) {
	if e.b.Miner != nil {
		if cb, ok := e.b.Miner.Coinbase(); ok {
			return cb, nil
		}
	}
	return common.Address{}, rpc.ErrCoinbaseNotSpecified
}

func (e *Eth) GetWork() ([3]string, error) {
	if e.b.Miner == nil {
		return [3]string{}, errNoMiningWork
	}
	pow, seed, boundary, err := e.b.Miner.GetWork()
	if err != nil {
		return [3]string{}, errNoMiningWork
	}
	return [3]string{pow.Hex(), seed.Hex(), boundary.Hex()}, nil
}

func (e *Eth) SubmitWork(nonce types.BlockNonce, powHash, mix common.Hash) bool {
	return e.b.Miner != nil && e.b.Miner.SubmitWork(nonce, powHash, mix)
}

func (e *Eth) SubmitHashrate(rate hexutil.Big, id common.Hash) bool {
	if e.b.SubmitHashrate == nil {
		return false
	}
	e.b.SubmitHashrate(id, (*big.Int)(&rate).Uint64())
	return true
}
