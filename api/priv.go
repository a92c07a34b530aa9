package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
)

// Priv serves the EEA and PRIV groups (reference/privacy.md §10) on the
// backend's privacy service (Backend.Privacy).
type Priv struct {
	b   *backend.Backend
	s   *privacy.Service
	fil *privFilters
}

// PrivGroups returns the EEA and PRIV groups. Without a privacy service
// (--privacy-enabled=false) every method answers -50100 "Privacy is not
// enabled", as Besu's do.
func PrivGroups(b *backend.Backend) []rpctypes.Group {
	groups := privGroups(b)
	if b.Privacy == nil {
		disabled := func() error { return privacy.ErrDisabled }
		for g := range groups {
			for m := range groups[g].Methods {
				groups[g].Methods[m] = rpctypes.Method{Name: groups[g].Methods[m].Name, Fn: disabled, AllowExtraParams: true}
			}
		}
	}
	return groups
}

func privGroups(b *backend.Backend) []rpctypes.Group {
	p := &Priv{b: b, s: b.Privacy, fil: newPrivFilters()}
	// Besu's getRequiredParameter answers a missing or non-string raw
	// transaction "Invalid transaction params"; so does Basalt for hex that
	// does not decode (Besu: -50100 "Unable to decode…"), naming what is
	// wrong. Bytes that are hex but no private transaction are -50100.
	raw := []*rpctypes.Error{rpctypes.ErrInvalidTransactionParams}
	return []rpctypes.Group{
		{Name: rpctypes.GroupEEA, Errors: privError, Methods: []rpctypes.Method{
			// Besu reads the one parameter it needs (getRequiredParameter);
			// more are ignored.
			{Name: "eea_sendRawTransaction", Fn: p.SendRawTransaction, ParamErrors: raw, AllowExtraParams: true},
		}},
		{Name: rpctypes.GroupPriv, Errors: privError, Methods: []rpctypes.Method{
			{Name: "priv_distributeRawTransaction", Fn: p.DistributeRawTransaction, ParamErrors: raw, AllowExtraParams: true},
			{Name: "priv_getTransactionCount", Fn: p.GetTransactionCount, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidParams, rpctypes.ErrInvalidParams}},
			{Name: "priv_getEeaTransactionCount", Fn: p.GetEeaTransactionCount, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidParams, rpctypes.ErrInvalidParams, rpctypes.ErrInvalidParams}},
			{Name: "priv_getPrivateTransaction", Fn: p.GetPrivateTransaction, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidTransactionHashParams}},
			{Name: "priv_getTransactionReceipt", Fn: p.GetTransactionReceipt, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidTransactionHashParams}},
			{Name: "priv_createPrivacyGroup", Fn: p.CreatePrivacyGroup},
			{Name: "priv_deletePrivacyGroup", Fn: p.DeletePrivacyGroup},
			{Name: "priv_findPrivacyGroup", Fn: p.FindPrivacyGroup},
			{Name: "priv_call", Fn: p.Call, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidParams, rpctypes.ErrInvalidCallParams, rpctypes.ErrInvalidBlockParams}},
			{Name: "priv_getCode", Fn: p.GetCode, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidParams, rpctypes.ErrInvalidAddressParams, rpctypes.ErrInvalidBlockParams}},
			{Name: "priv_getLogs", Fn: p.GetLogs, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidParams, rpctypes.ErrInvalidFilterParams}},
			{Name: "priv_getPrivacyPrecompileAddress", Fn: p.GetPrivacyPrecompileAddress},
			{Name: "priv_newFilter", Fn: p.NewFilter, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidParams, rpctypes.ErrInvalidFilterParams}},
			{Name: "priv_uninstallFilter", Fn: p.UninstallFilter},
			{Name: "priv_getFilterChanges", Fn: p.GetFilterChanges},
			{Name: "priv_getFilterLogs", Fn: p.GetFilterLogs},
			{Name: "priv_subscribe", Fn: p.Subscribe, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidParams, rpctypes.ErrInvalidSubscriptionParams, rpctypes.ErrInvalidSubscriptionParams}},
			{Name: "priv_unsubscribe", Fn: p.Unsubscribe},
		}},
	}
}

// privSentinels are the privacy service's errors answered -50100 with
// their own text, and the ones that share Besu's transaction errors.
var (
	privSentinels = []error{privacy.ErrDisabled, privacy.ErrDecode, privacy.ErrValueNotZero, privacy.ErrUnsupportedType,
		privacy.ErrPrivateFromMismatch, privacy.ErrEnclave, privacy.ErrCreateGroup, privacy.ErrDeleteGroup,
		privacy.ErrFindGroup, privacy.ErrNonce, privacy.ErrGroupNotFound}
	privShared = errorTable{
		{privacy.ErrNonceTooLow, rpctypes.ErrNonceTooLow},
		{privacy.ErrNonceTooHigh, rpctypes.ErrNonceTooHigh},
		{privacy.ErrWrongChainID, rpctypes.ErrWrongChainID},
		{privacy.ErrChainIDNotSupported, rpctypes.ErrReplayProtectedSignaturesNotSupported},
		{privacy.ErrInvalidSignature, rpctypes.ErrInvalidTransactionSignature},
		{privacy.ErrInvalidParams, rpctypes.ErrInvalidParams},
		{privacy.ErrNoTenant, rpctypes.ErrUnauthorized},
	}
)

// privError maps the privacy service's errors (Besu's codes: -50100 with
// its message, -50200 with the manager's code), then the others as every
// group does.
func privError(err error) *rpctypes.Error {
	var ee *privacy.EnclaveError
	if errors.As(err, &ee) {
		return rpctypes.NewError(-50200, ee.Code)
	}
	if e := privShared.lookup(err); e != nil {
		return e
	}
	for _, s := range privSentinels {
		if errors.Is(err, s) {
			return rpctypes.NewError(-50100, s.Error())
		}
	}
	return jsonrpcError(err)
}

// tenant is the enclave key the request acts for.
func (p *Priv) tenant(ctx context.Context) (string, error) {
	var claim string
	if c := rpc.CallerFrom(ctx); c != nil {
		claim = c.PrivacyPublicKey
	}
	return p.s.EnclaveKey(claim)
}

// SendRawTransaction is eea_sendRawTransaction: the hash of the privacy
// marker transaction pooled for the signed private transaction.
func (p *Priv) SendRawTransaction(ctx context.Context, raw RawTransaction) (common.Hash, error) {
	key, err := p.tenant(ctx)
	if err != nil {
		return common.Hash{}, err
	}
	return p.s.SendRaw(ctx, raw.Data, key)
}

// DistributeRawTransaction is priv_distributeRawTransaction: the manager's
// key of the distributed payload.
func (p *Priv) DistributeRawTransaction(ctx context.Context, raw RawTransaction) (hexutil.Bytes, error) {
	key, err := p.tenant(ctx)
	if err != nil {
		return nil, err
	}
	return p.s.Distribute(ctx, raw.Data, key)
}

// GetTransactionCount is priv_getTransactionCount.
func (p *Priv) GetTransactionCount(addr common.Address, group string) (hexutil.Uint64, error) {
	n, err := p.s.TransactionCount(addr, group)
	return hexutil.Uint64(n), err
}

// GetEeaTransactionCount is priv_getEeaTransactionCount.
func (p *Priv) GetEeaTransactionCount(ctx context.Context, addr common.Address, privateFrom string, privateFor []string) (hexutil.Uint64, error) {
	key, err := p.tenant(ctx)
	if err != nil {
		return 0, err
	}
	n, err := p.s.EeaTransactionCount(addr, privateFrom, privateFor, key)
	return hexutil.Uint64(n), err
}

// PrivateTxJSON is Besu's private transaction object.
type PrivateTxJSON struct {
	From           common.Address  `json:"from"`
	Gas            hexutil.Uint64  `json:"gas"`
	GasPrice       *hexutil.Big    `json:"gasPrice"`
	Hash           common.Hash     `json:"hash"`
	Input          hexutil.Bytes   `json:"input"`
	Nonce          hexutil.Uint64  `json:"nonce"`
	To             *common.Address `json:"to,omitempty"`
	Value          *hexutil.Big    `json:"value"`
	V              *hexutil.Big    `json:"v"`
	R              *hexutil.Big    `json:"r"`
	S              *hexutil.Big    `json:"s"`
	PrivateFrom    string          `json:"privateFrom"`
	PrivateFor     []string        `json:"privateFor,omitempty"`
	PrivacyGroupID string          `json:"privacyGroupId,omitempty"`
	Restriction    string          `json:"restriction"`
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func bigJSON(x *big.Int) *hexutil.Big {
	if x == nil {
		x = new(big.Int)
	}
	return (*hexutil.Big)(x)
}

// GetPrivateTransaction is priv_getPrivateTransaction.
func (p *Priv) GetPrivateTransaction(ctx context.Context, pmt common.Hash) (*PrivateTxJSON, error) {
	pt, err := p.s.PrivateTransaction(ctx, pmt)
	if pt == nil || err != nil {
		return nil, err
	}
	tx := pt.Tx
	out := &PrivateTxJSON{From: pt.From, Gas: hexutil.Uint64(tx.Gas), GasPrice: bigJSON(tx.GasPrice), Hash: pt.Hash,
		Input: tx.Data, Nonce: hexutil.Uint64(tx.Nonce), To: tx.To, Value: bigJSON(tx.Value), V: bigJSON(tx.V),
		R: bigJSON(tx.R), S: bigJSON(tx.S), PrivateFrom: b64(tx.PrivateFrom), Restriction: tx.Restriction}
	if out.Input == nil {
		out.Input = hexutil.Bytes{}
	}
	if tx.PrivacyGroupID != nil {
		out.PrivacyGroupID = b64(tx.PrivacyGroupID)
	} else {
		out.PrivateFor = make([]string, len(tx.PrivateFor))
		for i, k := range tx.PrivateFor {
			out.PrivateFor[i] = b64(k)
		}
	}
	return out, nil
}

// PrivateReceiptJSON is Besu's private transaction receipt (later versions'
// fields included); null fields are left out. A failed transaction (status
// 0x0) carries Besu's revertReason (the revert data, hex) when the contract
// reverted with data, and, Basalt's own, failureReason: why it failed in
// words, for every failure Besu leaves unexplained too.
type PrivateReceiptJSON struct {
	ContractAddress  *common.Address `json:"contractAddress,omitempty"`
	From             common.Address  `json:"from"`
	To               *common.Address `json:"to,omitempty"`
	Output           hexutil.Bytes   `json:"output"`
	CommitmentHash   common.Hash     `json:"commitmentHash"`
	TransactionHash  common.Hash     `json:"transactionHash"`
	PrivateFrom      string          `json:"privateFrom"`
	PrivateFor       []string        `json:"privateFor,omitempty"`
	PrivacyGroupID   string          `json:"privacyGroupId"`
	Status           hexutil.Uint64  `json:"status"`
	RevertReason     hexutil.Bytes   `json:"revertReason,omitempty"`
	FailureReason    string          `json:"failureReason,omitempty"`
	Logs             []*LogJSON      `json:"logs"`
	LogsBloom        types.Bloom     `json:"logsBloom"`
	BlockHash        common.Hash     `json:"blockHash"`
	BlockNumber      hexutil.Uint64  `json:"blockNumber"`
	TransactionIndex hexutil.Uint64  `json:"transactionIndex"`
}

// GetTransactionReceipt is priv_getTransactionReceipt.
func (p *Priv) GetTransactionReceipt(pmt common.Hash) (*PrivateReceiptJSON, error) {
	r, err := p.s.Receipt(pmt)
	if r == nil || err != nil {
		return nil, err
	}
	out := &PrivateReceiptJSON{From: r.From, Output: r.Output, CommitmentHash: r.PMT, TransactionHash: r.TxHash,
		PrivateFrom: b64(r.Tx.PrivateFrom), PrivacyGroupID: privacy.GroupIDString(r.Group), Status: hexutil.Uint64(r.Status),
		RevertReason: r.Revert, FailureReason: r.Failure, Logs: logsJSON(r.Logs), LogsBloom: types.CreateBloom(&types.Receipt{Logs: r.Logs}),
		BlockHash: r.BlockHash, BlockNumber: hexutil.Uint64(r.BlockNumber), TransactionIndex: hexutil.Uint64(r.PMTIndex)}
	if out.Output == nil {
		out.Output = hexutil.Bytes{}
	}
	if len(r.Contract) == common.AddressLength {
		a := common.BytesToAddress(r.Contract)
		out.ContractAddress = &a
	}
	if len(r.To) == common.AddressLength {
		a := common.BytesToAddress(r.To)
		out.To = &a
	}
	if r.Tx.PrivacyGroupID == nil {
		out.PrivateFor = make([]string, len(r.Tx.PrivateFor))
		for i, k := range r.Tx.PrivateFor {
			out.PrivateFor[i] = b64(k)
		}
	}
	return out, nil
}

// CreateGroupArgs is priv_createPrivacyGroup's parameter.
type CreateGroupArgs struct {
	Addresses   []string `json:"addresses"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
}

// CreatePrivacyGroup is priv_createPrivacyGroup.
func (p *Priv) CreatePrivacyGroup(ctx context.Context, args CreateGroupArgs) (string, error) {
	if args.Addresses == nil {
		return "", rpctypes.ErrInvalidParams
	}
	key, err := p.tenant(ctx)
	if err != nil {
		return "", err
	}
	return p.s.CreatePrivacyGroup(ctx, args.Addresses, args.Name, args.Description, key)
}

// DeletePrivacyGroup is priv_deletePrivacyGroup.
func (p *Priv) DeletePrivacyGroup(ctx context.Context, id string) (string, error) {
	key, err := p.tenant(ctx)
	if err != nil {
		return "", err
	}
	return p.s.DeletePrivacyGroup(ctx, id, key)
}

// PrivacyGroupJSON is a privacy group in priv_findPrivacyGroup's answer.
type PrivacyGroupJSON struct {
	PrivacyGroupID string   `json:"privacyGroupId"`
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Type           string   `json:"type"`
	Members        []string `json:"members"`
}

// FindPrivacyGroup is priv_findPrivacyGroup.
func (p *Priv) FindPrivacyGroup(ctx context.Context, members []string) ([]PrivacyGroupJSON, error) {
	gs, err := p.s.FindPrivacyGroup(ctx, members)
	if err != nil {
		return nil, err
	}
	out := make([]PrivacyGroupJSON, len(gs))
	for i, g := range gs {
		out[i] = PrivacyGroupJSON{PrivacyGroupID: g.PrivacyGroupID, Name: g.Name, Description: g.Description, Type: g.Type, Members: g.Members}
	}
	return out, nil
}

// groupID decodes a privacy group ID parameter.
func groupID(id string) (common.Hash, error) {
	g, err := privacy.DecodeGroupID(id)
	if err != nil {
		return common.Hash{}, rpctypes.ErrInvalidParams
	}
	return g, nil
}

// PrivCallArgs is priv_call's call object.
type PrivCallArgs struct {
	From  *common.Address `json:"from"`
	To    *common.Address `json:"to"`
	Gas   *hexutil.Uint64 `json:"gas"`
	Data  *hexutil.Bytes  `json:"data"`
	Input *hexutil.Bytes  `json:"input"`
}

// Call is priv_call: the output of a read-only call on the group's private
// state at the block; null when the block does not exist.
func (p *Priv) Call(ctx context.Context, group string, args PrivCallArgs, block BlockParam) (*hexutil.Bytes, error) {
	g, err := groupID(group)
	if err != nil {
		return nil, err
	}
	if args.To == nil {
		return nil, rpctypes.ErrInvalidCallParams
	}
	header, hash, err := headerFor(p.b, block)
	if header == nil || err != nil {
		return nil, err
	}
	public, err := p.b.StateOf(header, hash)
	if err != nil {
		return nil, err
	}
	var from common.Address
	if args.From != nil {
		from = *args.From
	}
	var data []byte
	switch {
	case args.Input != nil:
		data = *args.Input
	case args.Data != nil:
		data = *args.Data
	}
	// The gas is eth_call's (the block's gas limit unless given, and at
	// most --rpc-gas-cap or the block's), so that a looping contract
	// cannot run for the whole JSON-RPC timeout.
	gas := p.b.CallGas(header, (*uint64)(args.Gas))
	out, err := p.s.Call(g, header, hash, public, from, *args.To, data, gas)
	if err != nil {
		if errors.Is(err, vm.ErrExecutionReverted) {
			return nil, &backend.RevertError{Data: out}
		}
		return nil, &backend.HaltError{Reason: chain.HaltReason(err)}
	}
	res := hexutil.Bytes(out)
	if res == nil {
		res = hexutil.Bytes{}
	}
	return &res, nil
}

// GetCode is priv_getCode: the code at addr in the group's private state at
// the block; null when the block does not exist.
func (p *Priv) GetCode(group string, addr common.Address, block BlockParam) (*hexutil.Bytes, error) {
	g, err := groupID(group)
	if err != nil {
		return nil, err
	}
	header, hash, err := headerFor(p.b, block)
	if header == nil || err != nil {
		return nil, err
	}
	code, err := p.s.Code(g, hash, addr)
	if err != nil {
		return nil, err
	}
	out := hexutil.Bytes(code)
	if out == nil {
		out = hexutil.Bytes{}
	}
	return &out, nil
}

// logQuery resolves a filter object's blocks for the service.
func (p *Priv) logQuery(args FilterArgs) privacy.LogQuery {
	head := p.s.Head()
	resolve := func(b *rpctypes.BlockNumber, def uint64) uint64 {
		switch {
		case b == nil:
			return def
		case b.Tag == rpctypes.TagEarliest:
			return 0
		case b.Tag != "":
			return head
		case b.Number < 0:
			return 0
		}
		return uint64(b.Number)
	}
	q := privacy.LogQuery{BlockHash: args.BlockHash, Addresses: args.Addresses, Topics: args.Topics}
	q.From, q.To = resolve(args.FromBlock, head), resolve(args.ToBlock, head)
	if q.To > head {
		q.To = head
	}
	return q
}

// GetLogs is priv_getLogs.
func (p *Priv) GetLogs(ctx context.Context, group string, args FilterArgs) ([]*LogJSON, error) {
	g, err := groupID(group)
	if err != nil {
		return nil, err
	}
	logs, err := p.s.Logs(ctx, g, p.logQuery(args))
	if err != nil {
		return nil, err
	}
	return logsJSON(logs), nil
}

// GetPrivacyPrecompileAddress is priv_getPrivacyPrecompileAddress.
func (p *Priv) GetPrivacyPrecompileAddress() common.Address { return p.s.PrecompileAddress() }

// privSubscription renders a priv_subscription notification.
func privSubscription(id string, result any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "priv_subscription",
		"params": map[string]any{"subscription": id, "result": result}})
	return b
}
