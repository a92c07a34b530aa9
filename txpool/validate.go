package txpool

import (
	"github.com/basaltchain/basalt/quorumtx"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// headView is what the pool knows about the chain head. It is immutable and
// swapped whole by Reset, so the parallel validation workers read it without
// the pool lock.
type headView struct {
	gen      uint64       // bumped by every Reset; tells stale state reads apart
	number   uint64       // head block number
	gasLimit uint64       // head block gas limit
	rules    params.Rules // fork rules of the block after the head
	eip155   bool         // EIP-155 signatures are valid at the next block
	baseFee  *uint256.Int // head base fee (nil before London); prices entries and replacements
	state    State
}

// newView derives the view for head. Fork rules are those of the next block
// (number+1, time+1: the earliest the next block can be), because that is
// the block a pooled transaction can go into. Timestamp forks are evaluated
// as if post-merge: Basalt's processor activates them on PoW/PoA chains too
// (see DESIGN.md, "Fork rules").
func newView(cfg *params.ChainConfig, head *types.Header, st State, gen uint64) *headView {
	next := new(big.Int).Add(head.Number, common.Big1)
	v := &headView{
		gen:      gen,
		number:   head.Number.Uint64(),
		gasLimit: head.GasLimit,
		rules:    cfg.Rules(next, true, head.Time+1),
		eip155:   cfg.IsEIP155(next),
		state:    st,
	}
	switch {
	case head.BaseFee != nil:
		v.baseFee, _ = uint256.FromBig(head.BaseFee)
	case cfg.IsLondon(next) && !cfg.IsLondon(head.Number):
		// The next block is London's first: its base fee is the initial one.
		v.baseFee, _ = uint256.FromBig(feemarket.CalcBaseFee(cfg, head))
	}
	return v
}

// entry is a pooled transaction with what the pool derived from it. All
// fields but price are fixed once the entry is built; price is rewritten
// under the pool lock when the base fee changes.
type entry struct {
	tx      *types.Transaction
	hash    common.Hash
	from    common.Address
	nonce   uint64
	feeCap  uint256.Int // gasPrice for legacy and access-list txs
	tipCap  uint256.Int // gasPrice for legacy and access-list txs
	cost    uint256.Int // gas*feeCap + value: what the sender must hold
	price   uint256.Int // effective gas price at the pool's base fee
	local   bool
	addedAt int64  // unix nanoseconds
	seq     uint64 // arrival order, for ties
}

// dynamicFee reports whether the transaction prices gas with
// maxFeePerGas/maxPriorityFeePerGas (types 2, 3, 4).
func (e *entry) dynamicFee() bool {
	t := e.tx.Type()
	return t != types.LegacyTxType && t != types.AccessListTxType
}

// effectivePrice returns min(feeCap, baseFee+tipCap), the gas price the
// sender pays in a block with baseFee; with no base fee it is the tip cap
// (the gas price for legacy transactions).
func effectivePrice(dst *uint256.Int, feeCap, tipCap, baseFee *uint256.Int) {
	if baseFee == nil {
		dst.Set(tipCap)
		return
	}
	if _, overflow := dst.AddOverflow(baseFee, tipCap); overflow || dst.Gt(feeCap) {
		dst.Set(feeCap)
	}
}

// effectiveTip returns the miner's share per gas at baseFee, clamped at 0
// (Besu's getEffectivePriorityFeePerGas).
func effectiveTip(dst *uint256.Int, feeCap, tipCap, baseFee *uint256.Int) {
	if baseFee == nil {
		dst.Set(tipCap)
		return
	}
	if !feeCap.Gt(baseFee) {
		dst.Clear()
		return
	}
	dst.Sub(feeCap, baseFee)
	if tipCap.Lt(dst) {
		dst.Set(tipCap)
	}
}

// validate runs every check that needs neither the pool nor the sender's
// account, recovering the sender on the way; it is what the parallel workers
// run. hash is tx.Hash(), already computed by the caller.
func (p *Pool) validate(v *headView, tx *types.Transaction, hash common.Hash, local bool) (*entry, *Error) {
	if size := tx.Size(); size > MaxTxSize {
		return nil, reject(OversizedData, "transaction size %d exceeds limit %d", size, MaxTxSize)
	}
	// Prices first: they are the cheapest checks and turn away most spam.
	// gasFeeCap is the gas price for legacy and access-list transactions.
	if local && p.txFeeCap != nil && tx.GasFeeCapIntCmp(p.txFeeCap) > 0 {
		return nil, reject(TxFeecapExceeded, "gas price %s exceeds transaction fee cap %s", tx.GasFeeCap(), p.txFeeCap)
	}
	if tx.GasFeeCapIntCmp(p.minGasPrice) < 0 {
		return nil, reject(GasPriceTooLow, "gas price %s below configured minimum gas price %s", tx.GasFeeCap(), p.minGasPrice)
	}
	private := p.cfg.GoQuorumPrivate && quorumtx.IsPrivate(tx)
	if private {
		// GoQuorum's pool rules for private transactions (core/tx_pool.go).
		if tx.Value().Sign() != 0 {
			return nil, reject(InvalidTransactionFormat, "a GoQuorum private transaction cannot transfer ether")
		}
		if len(tx.Data()) == 0 {
			return nil, reject(InvalidTransactionFormat, "a GoQuorum private transaction needs its payload key as data")
		}
	}
	if tx.Protected() && !private { // V 37/38 carry no chain ID
		if p.chainID == nil || !v.eip155 {
			return nil, reject(ReplayProtectedSignaturesNotSupported, "replay protected signatures is not supported")
		}
		if id := tx.ChainId(); id.Cmp(p.chainID) != 0 {
			return nil, reject(WrongChainID, "transaction was meant for chain id %s and not this chain id %s", id, p.chainID)
		}
	}
	if local && p.cfg.StrictReplayProtection && !tx.Protected() && tx.Type() == types.LegacyTxType && p.chainID != nil && v.eip155 {
		return nil, reject(ReplayProtectedSignatureRequired, "the transaction has no EIP-155 chain ID and strict replay protection is on")
	}
	if err := checkType(tx.Type(), &v.rules); err != nil {
		return nil, err
	}
	if tx.Nonce() == math.MaxUint64 {
		return nil, reject(NonceOverflow, "nonce must be less than 2^64-1")
	}
	gas := tx.Gas()
	if v.rules.IsAmsterdam {
		if gas > params.MaxTxTotalGas {
			return nil, reject(ExceedsTransactionGasLimit, "transaction gas limit %d exceeds the per-transaction cap %d", gas, params.MaxTxTotalGas)
		}
	} else if v.rules.IsOsaka && gas > params.MaxTxGas {
		return nil, reject(ExceedsTransactionGasLimit, "transaction gas limit %d exceeds the per-transaction cap %d", gas, params.MaxTxGas)
	}
	if tx.To() == nil {
		limit := -1
		switch {
		case v.rules.IsAmsterdam:
			limit = params.MaxInitCodeSizeAmsterdam
		case v.rules.IsShanghai:
			limit = params.MaxInitCodeSize
		}
		if limit >= 0 && len(tx.Data()) > limit {
			return nil, reject(InitcodeTooLarge, "initcode size of %d exceeds maximum size of %d", len(tx.Data()), limit)
		}
	}
	if tx.Type() == types.SetCodeTxType && len(tx.SetCodeAuthorizations()) == 0 {
		return nil, reject(EmptyCodeDelegation, "transaction code delegation transactions must have a non-empty code delegation list")
	}

	e := &entry{tx: tx, hash: hash, nonce: tx.Nonce(), local: local}
	if e.feeCap.SetFromBig(tx.GasFeeCap()) {
		return nil, reject(InvalidTransactionFormat, "max fee per gas exceeds 256 bits")
	}
	if e.tipCap.SetFromBig(tx.GasTipCap()) {
		return nil, reject(InvalidTransactionFormat, "max priority fee per gas exceeds 256 bits")
	}
	if e.tipCap.Gt(&e.feeCap) {
		return nil, reject(MaxPriorityFeePerGasExceedsMaxFeePerGas, "max priority fee per gas %s cannot be greater than max fee per gas %s", &e.tipCap, &e.feeCap)
	}
	bigValue := tx.Value()
	value, overflow := uint256.FromBig(bigValue)
	if overflow || bigValue.Sign() < 0 {
		return nil, reject(InvalidTransactionFormat, "value out of range")
	}

	from, err := types.Sender(p.signer, tx)
	if err != nil {
		return nil, reject(InvalidSignature, "sender could not be extracted from transaction signature: %v", err)
	}
	e.from = from

	intrinsic, err := core.IntrinsicGas(tx.Data(), tx.AccessList(), tx.SetCodeAuthorizations(), from, tx.To(), value, v.rules)
	if err != nil {
		return nil, reject(IntrinsicGasExceedsGasLimit, "intrinsic gas: %v", err)
	}
	if v.rules.IsPrague {
		floor, err := core.FloorDataGas(v.rules, from, tx.To(), value, tx.Data(), tx.AccessList())
		if err != nil {
			return nil, reject(IntrinsicGasExceedsGasLimit, "calldata floor gas: %v", err)
		}
		intrinsic = max(intrinsic, floor)
	}
	if intrinsic > gas {
		return nil, reject(IntrinsicGasExceedsGasLimit, "intrinsic gas cost %d exceeds gas limit %d", intrinsic, gas)
	}

	var g uint256.Int
	g.SetUint64(gas)
	if _, overflow := e.cost.MulOverflow(&g, &e.feeCap); overflow {
		return nil, reject(UpfrontCostExceedsUint256, "upfront gas cost cannot exceed 2^256 wei")
	}
	if _, overflow := e.cost.AddOverflow(&e.cost, value); overflow {
		return nil, reject(UpfrontCostExceedsUint256, "upfront cost cannot exceed 2^256 wei")
	}
	if gas > v.gasLimit {
		return nil, reject(ExceedsBlockGasLimit, "transaction gas limit of %d exceeds block gas limit of %d", gas, v.gasLimit)
	}
	if allowed := p.senderFilter.Load(); allowed != nil && !(*allowed)(from) {
		return nil, reject(TxSenderNotAuthorized, "sender %s is not on the account allowlist", from)
	}
	return e, nil
}

// checkType refuses transaction types the next block cannot hold. Blob
// transactions are always refused: Basalt's chains have no consensus layer
// to carry blob sidecars.
func checkType(t uint8, rules *params.Rules) *Error {
	switch t {
	case types.LegacyTxType:
		return nil
	case types.AccessListTxType:
		if rules.IsBerlin {
			return nil
		}
		return reject(InvalidTransactionFormat, "transaction type 1 (EIP-2930 access list) is not accepted before Berlin")
	case types.DynamicFeeTxType:
		if rules.IsLondon {
			return nil
		}
		return reject(InvalidTransactionFormat, "transaction type 2 (EIP-1559) is not accepted before London")
	case types.BlobTxType:
		return reject(InvalidTransactionFormat, "transaction type 3 (EIP-4844 blob) is not supported: this node has no consensus layer to carry blob sidecars")
	case types.SetCodeTxType:
		if rules.IsPrague {
			return nil
		}
		return reject(InvalidTransactionFormat, "transaction type 4 (EIP-7702 set code) is not accepted before Prague")
	default:
		return reject(InvalidTransactionFormat, "transaction type %d is not supported", t)
	}
}
