package api

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/privacy/goquorum"
	"github.com/basaltchain/basalt/quorumtx"
	"github.com/basaltchain/basalt/rpctypes"
)

// This file is a GoQuorum party's part of the ETH group (--ptm-url on a
// GoQuorum network; reference/goquorum-privacy.md §4): the private state
// is read first for an address that exists in it, as GoQuorum 24.4.1's
// EthAPIState does; a private transaction's receipt is the private one;
// eth_getQuorumPayload and eth_sendRawPrivateTransaction are served.

// goQuorumMethods are the GoQuorum private methods of the ETH group; on a
// node that is no GoQuorum party they answer GoQuorum's error for a node
// without a transaction manager.
func goQuorumMethods(e *Eth) []rpctypes.Method {
	return []rpctypes.Method{
		{Name: "eth_getQuorumPayload", Fn: e.GetQuorumPayload, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidParams}},
		{Name: "eth_sendRawPrivateTransaction", Fn: e.SendRawPrivateTransaction,
			ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidTransactionParams, rpctypes.ErrInvalidParams}},
	}
}

// errNoPTM is GoQuorum's answer on a node without a transaction manager
// (here: without --ptm-url).
var errNoPTM = &SpecError{Code: -32000, Message: "PrivateTransactionManager is not enabled"}

// gqError is a GoQuorum-shaped error: -32000 with GoQuorum's message.
func gqError(format string, args ...any) error {
	return &SpecError{Code: -32000, Message: fmt.Sprintf(format, args...)}
}

// gqServiceError maps the service's errors.
func gqServiceError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, goquorum.ErrManager):
		return &SpecError{Code: rpctypes.CodeInternalError, Message: err.Error()}
	}
	return gqError("%s", err.Error())
}

// GetQuorumPayload is eth_getQuorumPayload: the payload of a private
// transaction's 64-byte key (hex), "0x" when this node is not a party.
func (e *Eth) GetQuorumPayload(ctx context.Context, digest string) (string, error) {
	if e.b.GoQuorum == nil {
		return "", errNoPTM
	}
	if len(digest) < 3 {
		return "", gqError("Invalid digest hex")
	}
	b, err := hex.DecodeString(strings.TrimPrefix(digest, "0x"))
	if err != nil {
		return "", gqError("%s", err.Error())
	}
	if len(b) != quorumtx.KeySize {
		return "", gqError("Expected a Quorum digest of length 64, but got %d", len(b))
	}
	data, err := e.b.GoQuorum.Payload(ctx, b)
	if err != nil {
		return "", gqServiceError(err)
	}
	if data == nil {
		return "0x", nil
	}
	return "0x" + hex.EncodeToString(data), nil
}

// SendRawTxArgs are eth_sendRawPrivateTransaction's second parameter
// (GoQuorum's SendRawTxArgs): only standard private transactions are
// served.
type SendRawTxArgs struct {
	PrivateFrom    string          `json:"privateFrom"`
	PrivateFor     []string        `json:"privateFor"`
	PrivacyFlag    uint64          `json:"privacyFlag"`
	MandatoryFor   []string        `json:"mandatoryFor"`
	PrivacyGroupID json.RawMessage `json:"privacyGroupId"`
}

// SendRawPrivateTransaction is eth_sendRawPrivateTransaction(raw,
// {privateFor, privateFrom?}): raw is a privately signed transaction (V
// 37/38) whose data is the key /storeraw gave for its payload; the manager
// sends that payload to privateFor (/sendsignedtx), then the transaction is
// submitted unchanged.
func (e *Eth) SendRawPrivateTransaction(ctx context.Context, raw string, args SendRawTxArgs) (common.Hash, error) {
	if e.b.GoQuorum == nil {
		return common.Hash{}, errNoPTM
	}
	data, err := evenHex(raw)
	if err != nil {
		return common.Hash{}, backend.InvalidParams(backend.ParamAny, "")
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(data); err != nil {
		return common.Hash{}, gqError("%s", err.Error())
	}
	// GoQuorum's checks, in its order (checkAndHandlePrivateTransaction);
	// privacy enhancements are never enabled on a network with Basalt
	// parties, and multiple private states not served.
	switch {
	case args.PrivateFor == nil:
		return common.Hash{}, gqError("transaction is not private")
	case args.PrivacyFlag > 3:
		return common.Hash{}, gqError("invalid privacy flag %d", args.PrivacyFlag)
	case args.PrivacyFlag != 0:
		return common.Hash{}, gqError("PrivacyEnhancements are disabled. Can only accept transactions with PrivacyFlag=0(StandardPrivate).")
	case len(args.MandatoryFor) > 0:
		return common.Hash{}, gqError("privacy metadata invalid. mandatory recipients are only applicable for PrivacyFlag=2(MandatoryRecipients)")
	case len(args.PrivacyGroupID) > 0 && string(args.PrivacyGroupID) != "null":
		return common.Hash{}, gqError("privacyGroupId (multiple private states) is not supported: address recipients with privateFor")
	}
	h, err := e.b.SendRawPrivateTransaction(ctx, tx, data, args.PrivateFor)
	if de := (*backend.DistributionError)(nil); errors.As(err, &de) {
		return common.Hash{}, gqServiceError(de.Err)
	}
	return h, err
}

// privateAccount is the private state of the block p names when addr
// exists in it (Backend.GoQuorumState); ok false leaves the read to the
// public state.
func (e *Eth) privateAccount(addr rpctypes.Address, p BlockParam) (*state.StateDB, bool, error) {
	if e.b.GoQuorum == nil {
		return nil, false, nil
	}
	header, hash, err := headerFor(e.b, p)
	if header == nil || err != nil {
		return nil, false, err
	}
	st, err := e.b.GoQuorumState(hash, common.Address(addr))
	return st, st != nil, err
}

// privateReceipt is eth_getTransactionReceipt's answer for a GoQuorum
// private transaction on a party: the public receipt (out) with the
// private status, logs and bloom (Backend.GoQuorumReceipt).
func (e *Eth) privateReceipt(out *ReceiptJSON, tx *types.Transaction, blockHash common.Hash) error {
	if e.b.GoQuorum == nil {
		return nil
	}
	isPMT := false
	out.IsPrivacyMarkerTransaction = &isPMT
	r, err := e.b.GoQuorumReceipt(blockHash, uint64(out.BlockNumber), tx)
	if err != nil || r == nil {
		return err
	}
	out.Logs = make([]*LogJSON, 0, len(r.Logs))
	for _, l := range r.Logs {
		out.Logs = append(out.Logs, logJSON(l))
	}
	out.LogsBloom = r.Bloom
	if out.Status != nil {
		st := hexutil.Uint64(r.Status)
		out.Status = &st
	}
	return nil
}
