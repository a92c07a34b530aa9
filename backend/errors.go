package backend

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/txpool"
)

// The backend's services answer domain errors: what went wrong, in the
// node's terms, with no wire format in them. Each front end maps them once
// to its own errors — JSON-RPC in api/jsonrpcerrors.go, GraphQL in
// graphql/errors.go — so a service never decides a code or a message, and
// a new front end needs only a mapping.
//
// Besides the errors below the services pass on those of the services they
// use: the pool's refusals (*txpool.Error, whose Reason is Besu's
// TransactionInvalidReason), the filter system's (filters.Err*), the
// miner's (miner.ErrCoinbaseNotSet) and a context's (context.Canceled,
// context.DeadlineExceeded: the request ran out of time).

// Conditions of the node that stop a service.
var (
	// ErrWorldStateUnavailable is a block whose post-state cannot be read
	// or produced again (pruned, or re-execution failed).
	ErrWorldStateUnavailable = errors.New("world state unavailable")
	// ErrNotCanonical is a block hash, required to be canonical (EIP-1898
	// requireCanonical), that names a block off the canonical chain.
	ErrNotCanonical = errors.New("block is not canonical")
	// ErrPoolDisabled is a submission to a node without a transaction pool.
	ErrPoolDisabled = errors.New("transaction pool disabled")
	// ErrNoSigningKeys is a request to sign and send a transaction: the node
	// holds no keys (Besu sends signed transactions only).
	ErrNoSigningKeys = errors.New("the node holds no keys to sign transactions")
	// ErrCoinbaseNotSpecified is a coinbase asked of a node without one.
	ErrCoinbaseNotSpecified = errors.New("coinbase not specified")
	// ErrNoMiningWork is a request for proof-of-work when there is no
	// block to seal.
	ErrNoMiningWork = errors.New("no mining work available")
	// ErrP2PDisabled is a peer-to-peer request to a node started with
	// --p2p-enabled=false.
	ErrP2PDisabled = errors.New("peer-to-peer networking is disabled")
	// ErrP2PNotRunning is a peer-to-peer request while the network is down.
	ErrP2PNotRunning = errors.New("peer-to-peer network is not running")
	// ErrLocalPeer is a request to add the local node as its own peer.
	ErrLocalPeer = errors.New("cannot add the local node as a peer")
	// ErrPeerNotPermitted is admin_addPeer of a node the nodes allowlist
	// does not permit.
	ErrPeerNotPermitted = errors.New("node not on the nodes allowlist")
	// ErrLogsUnavailable is a log query to a backend without a filter
	// system.
	ErrLogsUnavailable = errors.New("log queries are not available")
)

// Param names the parameter of a request an InvalidParamsError is about,
// for the front ends whose errors name it.
type Param string

// Parameters services check beyond their decoding.
const (
	// ParamAny is a request that is invalid as a whole.
	ParamAny Param = ""
	// ParamBlockNumber is a block number (negative, or past the head where
	// only existing blocks make sense).
	ParamBlockNumber Param = "block number"
	// ParamBlockCount is the number of blocks of a range.
	ParamBlockCount Param = "block count"
	// ParamCall is a call object or its state overrides.
	ParamCall Param = "call"
	// ParamStorageKeys is a list of storage slots.
	ParamStorageKeys Param = "storage keys"
	// ParamTraceOptions is a debug_trace method's options object.
	ParamTraceOptions Param = "trace options"
)

// InvalidParamsError is a request whose parameters decode but cannot be
// served as given.
type InvalidParamsError struct {
	// Param is the offending parameter (ParamAny for the request as a
	// whole).
	Param Param
	// Reason says what is wrong with it; "" when the parameter says
	// enough.
	Reason string
}

// Error implements error.
func (e *InvalidParamsError) Error() string {
	msg := "invalid params"
	if e.Param != ParamAny {
		msg = "invalid " + string(e.Param)
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// InvalidParams returns an InvalidParamsError about p; format and args,
// when given, are its reason.
func InvalidParams(p Param, format string, args ...any) *InvalidParamsError {
	e := &InvalidParamsError{Param: p}
	if format != "" {
		e.Reason = fmt.Sprintf(format, args...)
	}
	return e
}

// BlockNotFoundError is a block a request names that the chain does not
// have: by Hash, or by Number (as asked, which may be negative) when Hash
// is nil.
type BlockNotFoundError struct {
	Hash   *common.Hash
	Number int64
}

// Error implements error.
func (e *BlockNotFoundError) Error() string {
	if e.Hash != nil {
		return "block hash " + e.Hash.Hex() + " not found"
	}
	return fmt.Sprintf("block number %d not found", e.Number)
}

// Reasons of Besu's transaction validator (TransactionInvalidReason) that
// the call simulator gives and the pool never does. They share the pool's
// type so that one table per front end maps a reason, whichever service
// found it.
const (
	ReasonNonceTooHigh                        txpool.Reason = "NONCE_TOO_HIGH"
	ReasonGasPriceBelowCurrentBaseFee         txpool.Reason = "GAS_PRICE_BELOW_CURRENT_BASE_FEE"
	ReasonBlobGasPriceBelowCurrentBlobBaseFee txpool.Reason = "BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE"
	ReasonInvalidBlobs                        txpool.Reason = "INVALID_BLOBS"
	ReasonTotalBlobGasTooHigh                 txpool.Reason = "TOTAL_BLOB_GAS_TOO_HIGH"
	// ReasonExecutionRefused is a message go-ethereum's state transition
	// refuses after the simulator's own checks passed; the detail is
	// go-ethereum's.
	ReasonExecutionRefused txpool.Reason = "EXECUTION_REFUSED"
)

// InvalidTransactionError is a call the simulator will not run, refused
// as Besu's transaction validator refuses the transaction it builds from
// the call.
type InvalidTransactionError struct {
	// Reason is Besu's TransactionInvalidReason.
	Reason txpool.Reason
	// Detail is Besu's message for the case, shown to the caller; "" for
	// none.
	Detail string
}

// Error implements error.
func (e *InvalidTransactionError) Error() string {
	if e.Detail == "" {
		return string(e.Reason)
	}
	return string(e.Reason) + ": " + e.Detail
}

// InvalidTx returns an InvalidTransactionError with a detail from format
// and args.
func InvalidTx(r txpool.Reason, format string, args ...any) *InvalidTransactionError {
	return &InvalidTransactionError{Reason: r, Detail: fmt.Sprintf(format, args...)}
}

// RevertError is a call that ran and reverted.
type RevertError struct {
	// Data is the revert data; an ABI-encoded Error(string) carries a
	// reason.
	Data []byte
}

// Error implements error.
func (e *RevertError) Error() string { return "execution reverted" }

// HaltError is a call that ran and stopped on an exceptional halt.
type HaltError struct {
	// Reason is Besu's description of the halt, e.g. "Out of gas".
	Reason string
}

// Error implements error.
func (e *HaltError) Error() string { return "execution halted: " + e.Reason }
