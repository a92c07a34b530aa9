package rpctypes

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a JSON-RPC error object. Method handlers return one (or an error
// wrapping one) to answer with a specific code and message; the dispatcher
// turns every other error into ErrInternal.
//
// The exported Err* values are shared: do not modify them, derive a new value
// with WithReason or WithData instead.
type Error struct {
	Code    int
	Message string
	// Data, when not nil, is written as the "data" member of the error object.
	Data any
}

// NewError returns an error with the given code and message.
func NewError(code int, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Error implements the error interface.
func (e *Error) Error() string {
	return e.Message
}

// ErrorCode returns the JSON-RPC error code.
func (e *Error) ErrorCode() int { return e.Code }

// WithReason returns a copy of e whose message is "<message> (<reason>)",
// the way current Besu appends a reason to a catalogued message.
func (e *Error) WithReason(reason string) *Error {
	c := *e
	c.Message = e.Message + " (" + reason + ")"
	return &c
}

// WithData returns a copy of e carrying data in the "data" member.
func (e *Error) WithData(data any) *Error {
	c := *e
	c.Data = data
	return &c
}

// Is reports whether target is an *Error with the same code and the same
// message, ignoring a reason appended with WithReason, so that
// errors.Is(ErrInvalidParams.WithReason("x"), ErrInvalidParams) holds.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return e.Code == t.Code && baseMessage(e.Message) == baseMessage(t.Message)
}

func baseMessage(m string) string {
	if i := strings.Index(m, " ("); i >= 0 {
		return m[:i]
	}
	return m
}

// Error codes used by the dispatcher itself.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeMethodNotEnabled = -32604
	CodeUnauthorized     = -40100
)

// Envelope and dispatch errors (JSON-RPC 2.0 and Besu).
var (
	ErrParse             = NewError(CodeParseError, "Parse error")
	ErrInvalidRequest    = NewError(CodeInvalidRequest, "Invalid Request")
	ErrMethodNotFound    = NewError(CodeMethodNotFound, "Method not found")
	ErrInvalidParams     = NewError(CodeInvalidParams, "Invalid params")
	ErrInternal          = NewError(CodeInternalError, "Internal error")
	ErrTimeout           = NewError(CodeInternalError, "Timeout expired")
	ErrMethodNotEnabled  = NewError(CodeMethodNotEnabled, "Method not enabled")
	ErrUnauthorized      = NewError(CodeUnauthorized, "Unauthorized")
	ErrExceedsBatchLimit = NewError(-32005, "Number of requests exceeds max batch size")
)

// InvalidParams returns -32602 "Invalid params (<reason>)". Prefer one of the
// specific ErrInvalid*Params values where Besu has one.
func InvalidParams(reason string) *Error {
	return ErrInvalidParams.WithReason(reason)
}

// Specific -32602 errors with current Besu wording (RpcErrorType).
var (
	ErrInvalidParamCount                = NewError(CodeInvalidParams, "Invalid number of params")
	ErrInvalidAccountParams             = NewError(CodeInvalidParams, "Invalid account params")
	ErrInvalidAddressParams             = NewError(CodeInvalidParams, "Invalid address params")
	ErrInvalidBlockParams               = NewError(CodeInvalidParams, "Invalid block param (block not found)")
	ErrInvalidBlockCountParams          = NewError(CodeInvalidParams, "Invalid block count params")
	ErrInvalidBlockHashParams           = NewError(CodeInvalidParams, "Invalid block hash params")
	ErrInvalidBlockIndexParams          = NewError(CodeInvalidParams, "Invalid block index params")
	ErrInvalidBlockNumberParams         = NewError(CodeInvalidParams, "Invalid block number params")
	ErrInvalidCallParams                = NewError(CodeInvalidParams, "Invalid call params")
	ErrInvalidDataParams                = NewError(CodeInvalidParams, "Invalid data params")
	ErrInvalidEnodeParams               = NewError(CodeInvalidParams, "Invalid enode params")
	ErrInvalidFilterParams              = NewError(CodeInvalidParams, "Invalid filter params")
	ErrInvalidHashRateParams            = NewError(CodeInvalidParams, "Invalid hash rate params")
	ErrInvalidIDParams                  = NewError(CodeInvalidParams, "Invalid ID params")
	ErrInvalidLogFilterParams           = NewError(CodeInvalidParams, "Invalid log filter params")
	ErrInvalidLogLevelParams            = NewError(CodeInvalidParams, "Invalid log level params (missing or incorrect)")
	ErrInvalidMethodParams              = NewError(CodeInvalidParams, "Invalid method params")
	ErrInvalidNonceParams               = NewError(CodeInvalidParams, "Invalid nonce params")
	ErrInvalidPositionParams            = NewError(CodeInvalidParams, "Invalid position params")
	ErrInvalidPowHashParams             = NewError(CodeInvalidParams, "Invalid pow hash params")
	ErrInvalidPrivateFromParams         = NewError(CodeInvalidParams, "Invalid private from params")
	ErrInvalidPrivateForParams          = NewError(CodeInvalidParams, "Invalid private for params")
	ErrInvalidProposalParams            = NewError(CodeInvalidParams, "Invalid proposal params")
	ErrInvalidReturnCompleteTxParams    = NewError(CodeInvalidParams, "Invalid return complete transaction params")
	ErrInvalidSealerIDParams            = NewError(CodeInvalidParams, "Invalid sealer ID params")
	ErrInvalidStorageKeysParams         = NewError(CodeInvalidParams, "Invalid storage keys params")
	ErrInvalidSubscriptionParams        = NewError(CodeInvalidParams, "Invalid subscription params")
	ErrInvalidTransactionParams         = NewError(CodeInvalidParams, "Invalid transaction params (missing or incorrect)")
	ErrInvalidTransactionHashParams     = NewError(CodeInvalidParams, "Invalid transaction hash params")
	ErrInvalidTransactionIDParams       = NewError(CodeInvalidParams, "Invalid transaction id params")
	ErrInvalidTransactionIndexParams    = NewError(CodeInvalidParams, "Invalid transaction index params")
	ErrInvalidTransactionLimitParams    = NewError(CodeInvalidParams, "Invalid transaction limit params")
	ErrInvalidTransactionTraceParams    = NewError(CodeInvalidParams, "Invalid transaction trace params")
	ErrInvalidTransactionType           = NewError(CodeInvalidParams, "Invalid transaction type")
	ErrInvalidVoteTypeParams            = NewError(CodeInvalidParams, "Invalid vote type params")
	ErrInvalidTargetGasLimitParams      = NewError(CodeInvalidParams, "Invalid target gas limit params")
	ErrInvalidExtraDataParams           = NewError(CodeInvalidParams, "Invalid extra data params")
	ErrInvalidMinGasPriceParams         = NewError(CodeInvalidParams, "Invalid min gas price params")
	ErrInvalidPendingTransactionsParams = NewError(CodeInvalidParams, "Invalid pending transactions params")
	ErrInvalidRewardPercentilesParams   = NewError(CodeInvalidParams, "Invalid reward percentiles params")
	ErrInvalidMaxResultsParams          = NewError(CodeInvalidParams, "Invalid max results params")
	ErrInvalidPluginNameParams          = NewError(CodeInvalidParams, "Invalid plug in name params")
	ErrInvalidTraceTypeParams           = NewError(CodeInvalidParams, "Invalid trace type params")
	ErrInvalidTraceNumbersParams        = NewError(CodeInvalidParams, "Invalid trace numbers params")
	ErrInvalidTimestampParams           = NewError(CodeInvalidParams, "Invalid timestamp parameter")
	ErrInvalidMinPriorityFeeParams      = NewError(CodeInvalidParams, "Invalid min priority fee params")
	ErrInvalidBlobCount                 = NewError(CodeInvalidParams, "Invalid blob count (blob transactions must have at least one blob)")
)

// Method-level errors (Besu RpcErrorType; 1.3.x JsonRpcError where still the
// same). Permissioning errors use current Besu's "allowlist" wording; 1.3.x
// said "whitelist".
var (
	ErrEthSendTxNotAvailable  = NewError(CodeMethodNotEnabled, "The method eth_sendTransaction is not supported. Use eth_sendRawTransaction to send a signed transaction to Besu.")
	ErrKnownTransaction       = NewError(-32000, "Known transaction")
	ErrReplacementUnderpriced = NewError(-32000, "Replacement transaction underpriced")

	ErrP2PDisabled          = NewError(-32000, "P2P has been disabled. This functionality is not available")
	ErrDiscoveryDisabled    = NewError(-32000, "Discovery has been disabled. This functionality is not available")
	ErrP2PNetworkNotRunning = NewError(-32000, "P2P network is not running")

	ErrFilterNotFound       = NewError(-32000, "Filter not found")
	ErrLogsFilterNotFound   = NewError(-32000, "Logs filter not found")
	ErrSubscriptionNotFound = NewError(-32000, "Subscription not found")
	ErrNoMiningWorkFound    = NewError(-32000, "No mining work available yet")

	ErrNonceTooLow                     = NewError(-32001, "Nonce too low")
	ErrInvalidTransactionSignature     = NewError(-32002, "Invalid signature")
	ErrTxPoolDisabled                  = NewError(-32002, "Transaction pool not enabled. (Either txpool explicitly disabled, or node not yet in sync).")
	ErrIntrinsicGasExceedsLimit        = NewError(-32003, "Intrinsic gas exceeds gas limit")
	ErrUpfrontCostExceedsBalance       = NewError(-32004, "Upfront cost exceeds account balance")
	ErrExceedsBlockGasLimit            = NewError(-32005, "Transaction gas limit exceeds block gas limit")
	ErrExceedsMaxBlockRange            = NewError(-32005, "Requested range exceeds maximum RPC range limit")
	ErrExceedsMaxActiveFilters         = NewError(-32005, "Maximum number of active filters exceeded")
	ErrExceedsMaxActiveSubscriptions   = NewError(-32005, "Maximum number of active subscriptions exceeded")
	ErrIncorrectNonce                  = NewError(-32006, "Incorrect nonce")
	ErrNonceTooHigh                    = NewError(-32006, "Nonce too high")
	ErrTxSenderNotAuthorized           = NewError(-32007, "Sender account not authorized to send transactions")
	ErrChainHeadWorldStateNotAvailable = NewError(-32008, "Initial sync is still in progress")
	ErrGasPriceTooLow                  = NewError(-32009, "Gas price below configured minimum gas price")
	ErrGasPriceBelowCurrentBaseFee     = NewError(-32009, "Gas price below current base fee")
	ErrCoinbaseNotSet                  = NewError(-32010, "Coinbase not set. Unable to start mining without a coinbase")
	ErrNoHashesPerSecond               = NewError(-32011, "No hashes being generated by the current node")
	ErrTargetGasLimitUnsupported       = NewError(-32011, "The node is not attempting to target a gas limit so the target can't be changed")

	ErrWrongChainID                          = NewError(-32000, "Wrong chainId")
	ErrReplayProtectedSignaturesNotSupported = NewError(-32000, "ChainId not supported")
	ErrReplayProtectedSignatureRequired      = NewError(-32000, "ChainId is required")
	ErrTxFeeCapExceeded                      = NewError(-32000, "Transaction fee cap exceeded")
	ErrTransactionNotFound                   = NewError(-32000, "Transaction not found")
	ErrMaxPriorityFeeExceedsMaxFee           = NewError(-32000, "Max priority fee per gas exceeds max fee per gas")
	ErrNonceTooFarInFutureForSender          = NewError(-32000, "Transaction nonce is too distant from current sender nonce")
	ErrLowerNonceInvalidTransactionExists    = NewError(-32000, "An invalid transaction with a lower nonce exists")
	ErrExecutionHalted                       = NewError(-32000, "Transaction processing could not be completed due to an exception")
	ErrCoinbaseNotSpecified                  = NewError(-32000, "Coinbase must be explicitly specified")
	ErrNoAccountFound                        = NewError(-32000, "Account not found")
	ErrWorldStateUnavailable                 = NewError(-32000, "World state unavailable")
	ErrBlockNotFound                         = NewError(-32000, "Block not found")
	ErrParentBlockNotFound                   = NewError(-32000, "Parent block not found")
	ErrGenesisBlockNotTraceable              = NewError(-32000, "genesis is not traceable")
	ErrUnknownBlock                          = NewError(-39001, "Unknown block")
	ErrPluginNotFound                        = NewError(-60000, "Plugin not found")
	ErrPluginInternal                        = NewError(CodeInternalError, "Plugin internal error")
	ErrEnodeIDInvalid                        = NewError(-32000, "Invalid node ID: node ID must have exactly 128 hexadecimal characters and should not include any '0x' hex prefix.")
	ErrCantConnectToLocalPeer                = NewError(-32100, "Cannot add local node as peer.")
	ErrCantResolvePeerEnodeDNS               = NewError(-32100, "Cannot resolve enode DNS hostname")
	ErrDNSNotEnabled                         = NewError(-32100, "Enode DNS support is disabled")
	ErrNonPermittedNodeCannotBeAddedAsAPeer  = NewError(-32000, "Cannot add a non-permitted node as a peer")
	ErrPermissioningNotEnabled               = NewError(-32000, "Node/Account allowlist has not been enabled")
	ErrAccountAllowlistNotEnabled            = NewError(-32000, "Account allowlist has not been enabled")
	ErrAccountAllowlistEmptyEntry            = NewError(-32000, "Request contains an empty list of accounts")
	ErrAccountAllowlistInvalidEntry          = NewError(-32000, "Request contains an invalid account")
	ErrAccountAllowlistDuplicatedEntry       = NewError(-32000, "Request contains duplicate accounts")
	ErrAccountAllowlistExistingEntry         = NewError(-32000, "Cannot add an existing account to allowlist")
	ErrAccountAllowlistAbsentEntry           = NewError(-32000, "Cannot remove an absent account from allowlist")
	ErrNodeAllowlistNotEnabled               = NewError(-32000, "Node allowlist has not been enabled")
	ErrNodeAllowlistEmptyEntry               = NewError(-32000, "Request contains an empty list of nodes")
	ErrNodeAllowlistInvalidEntry             = NewError(-32000, "Request contains an invalid node")
	ErrNodeAllowlistDuplicatedEntry          = NewError(-32000, "Request contains duplicate nodes")
	ErrNodeAllowlistExistingEntry            = NewError(-32000, "Cannot add an existing node to allowlist")
	ErrNodeAllowlistMissingEntry             = NewError(-32000, "Cannot remove an absent node from allowlist")
	ErrNodeAllowlistFixedNodeCannotBeRemoved = NewError(-32000, "Cannot remove a fixed node (bootnode or static node) from allowlist")
	ErrAllowlistPersistFailure               = NewError(-32000, "Unable to persist changes to allowlist configuration file. Changes reverted")
	ErrAllowlistFileSync                     = NewError(-32000, "The permissioning allowlist configuration file is out of sync.  The changes have been applied, but not persisted to disk")
	ErrAllowlistReloadError                  = NewError(-32000, "Error reloading permissions file. Please use perm_getAccountsAllowlist and perm_getNodesAllowlist to review the current state of the allowlists")
	ErrExecutionReverted                     = NewError(3, "Execution reverted")
)

// revertSelector is the 4-byte selector of Solidity's Error(string).
var revertSelector = []byte{0x08, 0xc3, 0x79, 0xa0}

// Revert returns the error for a reverted call (code 3 "Execution reverted")
// carrying the revert data as a 0x-prefixed hex string in "data". When the data
// is an ABI-encoded Error(string), the decoded reason is appended to the
// message, as current Besu does: "Execution reverted (<reason>)".
func Revert(data []byte) *Error {
	e := ErrExecutionReverted.WithData("0x" + hex.EncodeToString(data))
	if reason, ok := decodeRevertReason(data); ok {
		e.Message = ErrExecutionReverted.Message + " (" + reason + ")"
	}
	return e
}

// decodeRevertReason decodes the string of an ABI-encoded Error(string).
func decodeRevertReason(data []byte) (string, bool) {
	if len(data) < 4 || string(data[:4]) != string(revertSelector) {
		return "", false
	}
	body := data[4:]
	if len(body) < 64 {
		return "ABI decode error", true
	}
	off, ok := abiWord(body[:32])
	if !ok || off > uint64(len(body))-32 {
		return "ABI decode error", true
	}
	n, ok := abiWord(body[off : off+32])
	if !ok || n > uint64(len(body))-off-32 {
		return "ABI decode error", true
	}
	s := body[off+32 : off+32+n]
	if !utf8.Valid(s) {
		return strconv.Quote(string(s)), true
	}
	return string(s), true
}

// abiWord reads a 32-byte big-endian word that must fit in 32 bits.
func abiWord(w []byte) (uint64, bool) {
	for _, b := range w[:28] {
		if b != 0 {
			return 0, false
		}
	}
	return uint64(binary.BigEndian.Uint32(w[28:])), true
}
