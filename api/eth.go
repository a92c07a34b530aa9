package api

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/basaltchain/basalt/rpc"
)

// Eth is the ETH method group.
type Eth struct{ b *Backend }

// ethProtocolVersion is the highest eth capability the node speaks (eth/68).
const ethProtocolVersion = 68

func (e *Eth) ChainID() hexutil.Big {
	return hexutil.Big(*e.b.Chain.Config().ChainID)
}

func (e *Eth) ProtocolVersion() hexutil.Uint64 { return ethProtocolVersion }

func (e *Eth) Syncing() any { return false }

func (e *Eth) BlockNumber() hexutil.Uint64 {
	return hexutil.Uint64(e.b.Chain.CurrentHeader().Number.Uint64())
}

func (e *Eth) Accounts() []common.Address { return []common.Address{} }

// GasPrice suggests the minimum gas price the pool accepts, or the head's
// base fee plus that price when it is higher.
func (e *Eth) GasPrice() *hexutil.Big {
	price := new(big.Int).Set(e.b.MinGasPrice)
	if bf := e.b.Chain.CurrentHeader().BaseFee; bf != nil && bf.Sign() > 0 {
		price.Add(price, bf)
	}
	return (*hexutil.Big)(price)
}

func (e *Eth) GetBalance(addr common.Address, p *BlockParam) (*hexutil.Big, error) {
	acct, _, ok, err := e.b.account(blockParamOrLatest(p), addr)
	if !ok || err != nil {
		return nil, err
	}
	return (*hexutil.Big)(acct.Balance.ToBig()), nil
}

func (e *Eth) GetTransactionCount(addr common.Address, p *BlockParam) (*hexutil.Uint64, error) {
	bp := blockParamOrLatest(p)
	if bp.Tag == tagPending && e.b.Pool != nil {
		n := hexutil.Uint64(e.b.Pool.PendingNonce(addr))
		return &n, nil
	}
	acct, _, ok, err := e.b.account(bp, addr)
	if !ok || err != nil {
		return nil, err
	}
	n := hexutil.Uint64(acct.Nonce)
	return &n, nil
}

func (e *Eth) GetCode(addr common.Address, p *BlockParam) (*hexutil.Bytes, error) {
	acct, root, ok, err := e.b.account(blockParamOrLatest(p), addr)
	if !ok || err != nil {
		return nil, err
	}
	code := hexutil.Bytes{}
	if common.BytesToHash(acct.CodeHash) != types.EmptyCodeHash {
		rd, err := e.b.Chain.StateReader(root)
		if err != nil {
			return nil, errWorldStateUnavail
		}
		code = rd.Code(addr, common.BytesToHash(acct.CodeHash))
	}
	return &code, nil
}

// StorageKey is a storage position: any quantity up to 32 bytes.
type StorageKey common.Hash

// UnmarshalJSON accepts a hex quantity or a 32-byte hex string.
func (k *StorageKey) UnmarshalJSON(data []byte) error {
	var s string
	if err := jsonUnmarshal(data, &s); err != nil {
		return rpc.ErrInvalidPositionParams
	}
	n, ok := parseBig(s)
	if !ok || n.BitLen() > 256 || n.Sign() < 0 {
		return rpc.ErrInvalidPositionParams
	}
	*k = StorageKey(common.BigToHash(n))
	return nil
}

func (e *Eth) GetStorageAt(addr common.Address, key StorageKey, p *BlockParam) (*common.Hash, error) {
	_, root, ok, err := e.b.account(blockParamOrLatest(p), addr)
	if !ok || err != nil {
		return nil, err
	}
	rd, err := e.b.Chain.StateReader(root)
	if err != nil {
		return nil, errWorldStateUnavail
	}
	v, err := rd.Storage(addr, common.Hash(key))
	if err != nil {
		return nil, errWorldStateUnavail
	}
	return &v, nil
}

func (e *Eth) SendRawTransaction(raw hexutil.Bytes) (common.Hash, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return common.Hash{}, rpc.ErrInvalidParams
	}
	if e.b.Pool == nil {
		return common.Hash{}, rpc.NewError(-32002, "Transaction pool not enabled")
	}
	if err := e.b.Pool.AddLocal(tx); err != nil {
		return common.Hash{}, poolError(err)
	}
	return tx.Hash(), nil
}

func (e *Eth) SendTransaction() (common.Hash, error) {
	return common.Hash{}, errSendTxNotSupported
}

func (e *Eth) GetTransactionByHash(hash common.Hash) (*TxJSON, error) {
	c := e.b.Chain
	if tx, loc, ok := c.GetTransaction(hash); ok {
		header := c.GetHeader(loc.BlockHash, loc.BlockNumber)
		if header != nil {
			return txJSON(c.Config(), tx, &TxContext{BlockHash: loc.BlockHash, Header: header, Index: loc.Index}), nil
		}
	}
	if e.b.Pool != nil {
		if tx := e.b.Pool.Get(hash); tx != nil {
			return txJSON(c.Config(), tx, nil), nil
		}
	}
	return nil, nil
}

func (e *Eth) GetTransactionReceipt(hash common.Hash) (*ReceiptJSON, error) {
	c := e.b.Chain
	tx, loc, ok := c.GetTransaction(hash)
	if !ok {
		return nil, nil
	}
	header := c.GetHeader(loc.BlockHash, loc.BlockNumber)
	receipts := c.GetReceipts(loc.BlockHash, loc.BlockNumber)
	if header == nil || uint64(len(receipts)) <= loc.Index {
		return nil, nil
	}
	return receiptJSON(c.Config(), receipts[loc.Index], tx, header), nil
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
		out.Withdrawals = body.Withdrawals
		if out.Withdrawals == nil {
			out.Withdrawals = types.Withdrawals{}
		}
	}
	return out
}

func (e *Eth) GetBlockByNumber(p BlockParam, full *bool) (*BlockJSON, error) {
	h, hash := e.b.resolve(p)
	if h == nil {
		return nil, nil
	}
	return e.blockJSON(h, hash, full != nil && *full), nil
}

func (e *Eth) GetBlockByHash(hash common.Hash, full *bool) (*BlockJSON, error) {
	h := e.b.Chain.GetHeaderByHash(hash)
	if h == nil {
		return nil, nil
	}
	return e.blockJSON(h, hash, full != nil && *full), nil
}

func (e *Eth) GetBlockTransactionCountByHash(hash common.Hash) *hexutil.Uint64 {
	h := e.b.Chain.GetHeaderByHash(hash)
	if h == nil {
		return nil
	}
	return e.txCount(h, hash)
}

func (e *Eth) GetBlockTransactionCountByNumber(p BlockParam) *hexutil.Uint64 {
	h, hash := e.b.resolve(p)
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

func (e *Eth) GetUncleCountByBlockHash(hash common.Hash) *hexutil.Uint64 {
	h := e.b.Chain.GetHeaderByHash(hash)
	if h == nil {
		return nil
	}
	return e.uncleCount(h, hash)
}

func (e *Eth) GetUncleCountByBlockNumber(p BlockParam) *hexutil.Uint64 {
	h, hash := e.b.resolve(p)
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

func (e *Eth) GetTransactionByBlockHashAndIndex(hash common.Hash, index hexutil.Uint64) *TxJSON {
	h := e.b.Chain.GetHeaderByHash(hash)
	if h == nil {
		return nil
	}
	return e.txAt(h, hash, uint64(index))
}

func (e *Eth) GetTransactionByBlockNumberAndIndex(p BlockParam, index hexutil.Uint64) *TxJSON {
	h, hash := e.b.resolve(p)
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

func (e *Eth) GetUncleByBlockHashAndIndex(hash common.Hash, index hexutil.Uint64) *BlockJSON {
	h := e.b.Chain.GetHeaderByHash(hash)
	if h == nil {
		return nil
	}
	return e.uncleAt(h, hash, uint64(index))
}

func (e *Eth) GetUncleByBlockNumberAndIndex(p BlockParam, index hexutil.Uint64) *BlockJSON {
	h, hash := e.b.resolve(p)
	if h == nil {
		return nil
	}
	return e.uncleAt(h, hash, uint64(index))
}

func (e *Eth) uncleAt(h *types.Header, hash common.Hash, index uint64) *BlockJSON {
	body := e.b.Chain.GetBody(hash, h.Number.Uint64())
	if body == nil || index >= uint64(len(body.Uncles)) {
		return nil
	}
	u := body.Uncles[index]
	out := headerJSON(u, e.b.Chain.Hash(u), nil)
	out.Size = hexutil.Uint64(types.NewBlockWithHeader(u).Size())
	return out
}

func (e *Eth) Call(ctx context.Context, args CallArgs, p *BlockParam) (hexutil.Bytes, error) {
	if err := args.validate(); err != nil {
		return nil, err
	}
	st, header, err := e.b.stateAt(blockParamOrLatest(p))
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, rpc.ErrInvalidBlockParams
	}
	gas := defaultGas(e.b.Chain.Config(), header)
	if args.Gas != nil {
		gas = uint64(*args.Gas)
	}
	res, err := e.b.doCall(ctx, &args, header, st, gas)
	if err != nil {
		return nil, err
	}
	if errors.Is(res.Err, vm.ErrExecutionReverted) {
		return nil, revertError(res)
	}
	if res.Err != nil {
		return nil, rpc.NewError(-32000, res.Err.Error())
	}
	return res.ReturnData, nil
}

func (e *Eth) EstimateGas(ctx context.Context, args CallArgs, p *BlockParam) (hexutil.Uint64, error) {
	if err := args.validate(); err != nil {
		return 0, err
	}
	st, header, err := e.b.stateAt(blockParamOrLatest(p))
	if err != nil {
		return 0, err
	}
	if st == nil {
		return 0, rpc.ErrInvalidBlockParams
	}
	gas, err := e.b.estimate(ctx, &args, header, st)
	return hexutil.Uint64(gas), err
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
	return common.Address{}, rpc.NewError(-32000, "Coinbase must be explicitly specified")
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
