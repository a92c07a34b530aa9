package txpool

import (
	"errors"
	"fmt"
)

// Reason says why the pool refused a transaction. Where Besu has a name for
// the case, the value is that name from Besu's TransactionInvalidReason, so
// the JSON-RPC layer maps reasons to Besu's codes and messages in one table.
// TX_POOL_FULL and OVERSIZED_DATA are Basalt's own (see their doc comments).
type Reason string

// Reasons for refusing a transaction, in roughly the order the pool checks them.
const (
	// TransactionAlreadyKnown: a transaction with the same hash is in the pool.
	TransactionAlreadyKnown Reason = "TRANSACTION_ALREADY_KNOWN"
	// OversizedData: the encoded transaction is larger than MaxTxSize.
	// Basalt's own: Besu has no size limit in the pool (only the p2p message
	// limit); the limit keeps one transaction from pinning megabytes.
	OversizedData Reason = "OVERSIZED_DATA"
	// TxFeecapExceeded: a local transaction's gas price (maxFeePerGas for
	// EIP-1559 types) is above Config.TxFeeCap (--rpc-tx-feecap).
	TxFeecapExceeded Reason = "TX_FEECAP_EXCEEDED"
	// GasPriceTooLow: the gas price (maxFeePerGas for EIP-1559 types) is
	// below Config.MinGasPrice (--min-gas-price).
	GasPriceTooLow Reason = "GAS_PRICE_TOO_LOW"
	// WrongChainID: the transaction is signed for another chain.
	WrongChainID Reason = "WRONG_CHAIN_ID"
	// ReplayProtectedSignaturesNotSupported: an EIP-155 signature on a chain
	// (or at a block) without EIP-155.
	ReplayProtectedSignaturesNotSupported Reason = "REPLAY_PROTECTED_SIGNATURES_NOT_SUPPORTED"
	// ReplayProtectedSignatureRequired: a local legacy transaction without
	// an EIP-155 chain ID while Config.StrictReplayProtection is on.
	ReplayProtectedSignatureRequired Reason = "REPLAY_PROTECTED_SIGNATURE_REQUIRED"
	// InvalidTransactionFormat: a transaction type the chain does not accept
	// at its head (blob transactions always), or a field out of range.
	InvalidTransactionFormat Reason = "INVALID_TRANSACTION_FORMAT"
	// NonceOverflow: nonce 2^64-1 (EIP-2681).
	NonceOverflow Reason = "NONCE_OVERFLOW"
	// ExceedsTransactionGasLimit: gas above the per-transaction cap
	// (EIP-7825, params.MaxTxGas, from Osaka).
	ExceedsTransactionGasLimit Reason = "EXCEEDS_TRANSACTION_GAS_LIMIT"
	// InitcodeTooLarge: contract creation with initcode above the EIP-3860 limit.
	InitcodeTooLarge Reason = "INITCODE_TOO_LARGE"
	// EmptyCodeDelegation: a set-code (type 4) transaction without authorizations.
	EmptyCodeDelegation Reason = "EMPTY_CODE_DELEGATION"
	// MaxPriorityFeePerGasExceedsMaxFeePerGas: maxPriorityFeePerGas > maxFeePerGas.
	MaxPriorityFeePerGasExceedsMaxFeePerGas Reason = "MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS"
	// InvalidSignature: no sender can be recovered from the signature.
	InvalidSignature Reason = "INVALID_SIGNATURE"
	// IntrinsicGasExceedsGasLimit: the gas limit is below the intrinsic gas
	// (or the EIP-7623 calldata floor).
	IntrinsicGasExceedsGasLimit Reason = "INTRINSIC_GAS_EXCEEDS_GAS_LIMIT"
	// UpfrontCostExceedsUint256: gas*price+value does not fit in 256 bits.
	UpfrontCostExceedsUint256 Reason = "UPFRONT_COST_EXCEEDS_UINT256"
	// ExceedsBlockGasLimit: the gas limit is above the head's block gas limit.
	ExceedsBlockGasLimit Reason = "EXCEEDS_BLOCK_GAS_LIMIT"
	// TxSenderNotAuthorized: the sender filter (account allowlist) refused the sender.
	TxSenderNotAuthorized Reason = "TX_SENDER_NOT_AUTHORIZED"
	// UpfrontCostExceedsBalance: gas*price+value is above the sender's balance.
	UpfrontCostExceedsBalance Reason = "UPFRONT_COST_EXCEEDS_BALANCE"
	// NonceTooLow: the nonce is below the sender's account nonce.
	NonceTooLow Reason = "NONCE_TOO_LOW"
	// NonceTooFarInFutureForSender: the nonce is Config.MaxFutureNonceGap or
	// more above the sender's account nonce.
	NonceTooFarInFutureForSender Reason = "NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER"
	// TransactionReplacementUnderpriced: a transaction with the same sender
	// and nonce is in the pool and the new one does not pay enough more.
	TransactionReplacementUnderpriced Reason = "TRANSACTION_REPLACEMENT_UNDERPRICED"
	// TxPoolFull: the pool holds MaxSize transactions and the new one does
	// not outrank the cheapest evictable one. Basalt's own: Besu accepts the
	// transaction and then silently evicts it (or another one); refusing it
	// tells the sender.
	TxPoolFull Reason = "TX_POOL_FULL"
)

// Error is a refused transaction: a Reason for the API layer to map and a
// human-readable Detail (for example "transaction nonce 2 below sender
// account nonce 34 for sender 0x...").
type Error struct {
	Reason Reason
	Detail string
}

// Error returns the refusal's message.
func (e *Error) Error() string {
	if e.Detail == "" {
		return string(e.Reason)
	}
	return string(e.Reason) + ": " + e.Detail
}

// Is reports whether target is an *Error with the same Reason, so that
// errors.Is(err, &txpool.Error{Reason: txpool.NonceTooLow}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}

// ReasonOf returns the Reason of err if it is (or wraps) an *Error, else "".
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

func reject(r Reason, format string, args ...any) *Error {
	return &Error{Reason: r, Detail: fmt.Sprintf(format, args...)}
}
