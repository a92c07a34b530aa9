package backend

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/txpool"
)

// The simulator runs a call object the way Besu's TransactionSimulator
// does — same defaults, same validation order, same error codes and
// messages — on go-ethereum's EVM. Besu's checks run here, before the EVM;
// go-ethereum's own checks are then switched off or cannot fire.

// SimMode is Besu's TransactionValidationParams for simulations. Future
// nonces, contract senders and gas limits above the block's are always
// allowed.
type SimMode struct {
	// AllowExceedingBalance prices the call at zero (gas price, fees, blob
	// fee and the block's base fees all 0), so no balance is needed.
	AllowExceedingBalance bool
	// AllowUnderpriced skips the base-fee and balance checks but keeps the
	// caller's prices (eth_estimateGas with strict pricing).
	AllowUnderpriced bool
}

// simTx is the transaction Besu builds from a call object.
type simTx struct {
	typ        byte
	from       common.Address
	to         *common.Address
	nonce      uint64
	gas        uint64
	value      *big.Int
	data       []byte
	gasPrice   *big.Int // legacy and access-list transactions
	maxFee     *big.Int // EIP-1559 and later types
	maxTip     *big.Int
	maxBlobFee *big.Int
	accessList types.AccessList
	blobHashes []common.Hash
	auths      []types.SetCodeAuthorization
	chainID    *big.Int
}

func (t *simTx) dynamic() bool { return t.typ >= types.DynamicFeeTxType }

// price is what the transaction pays per gas in a block with baseFee.
func (t *simTx) price(baseFee *big.Int) *big.Int {
	if !t.dynamic() {
		return t.gasPrice
	}
	if baseFee == nil {
		return t.maxFee
	}
	p := new(big.Int).Add(baseFee, t.maxTip)
	if p.Cmp(t.maxFee) > 0 {
		p.Set(t.maxFee)
	}
	return p
}

// maxGasPrice is the most the transaction may pay per gas.
func (t *simTx) maxGasPrice() *big.Int {
	if t.dynamic() {
		return t.maxFee
	}
	return t.gasPrice
}

// CallMsg is a call to simulate, in plain values; nil fields are absent
// and take Besu's simulator defaults (the sender's nonce, the block's gas
// and base fee, no value, no data).
type CallMsg struct {
	From                 *common.Address
	To                   *common.Address // nil: a contract creation
	Gas                  *uint64
	GasPrice             *big.Int
	MaxFeePerGas         *big.Int
	MaxPriorityFeePerGas *big.Int
	MaxFeePerBlobGas     *big.Int
	Value                *big.Int
	Nonce                *uint64
	Data                 []byte
	AccessList           *types.AccessList
	// BlobHashes are the blob versioned hashes; non-nil (even empty)
	// makes the call a blob transaction.
	BlobHashes        []common.Hash
	AuthorizationList []types.SetCodeAuthorization
	// ChainID is the chain the call names; nil means this one.
	ChainID *big.Int
}

// Sender is the call's sender, the zero address when it names none.
func (m *CallMsg) Sender() common.Address {
	if m.From == nil {
		return common.Address{}
	}
	return *m.From
}

func (m *CallMsg) to() *common.Address {
	if m.To == nil {
		return nil
	}
	to := *m.To
	return &to
}

// value is the value sent, 0 when none is named.
func (m *CallMsg) value() *big.Int {
	if m.Value == nil {
		return new(big.Int)
	}
	return m.Value
}

// noPricing reports that none of gasPrice, maxFeePerGas and
// maxPriorityFeePerGas is given.
func (m *CallMsg) noPricing() bool {
	return m.GasPrice == nil && m.MaxFeePerGas == nil && m.MaxPriorityFeePerGas == nil
}

// SimulateCall runs msg once on the post-state of the block (header, hash)
// and in that block's context, the way Besu's GraphQL call and estimateGas
// do (its transaction simulator, allowed to exceed the sender's balance):
// the result tells whether the call succeeded, what it returned and the gas
// it used (MaxUsedGas is the gas before refunds, Besu's gas estimate). A
// call that ran and failed is a result, not an error; a call Besu would
// refuse to run is an *InvalidTransactionError.
func (b *Backend) SimulateCall(ctx context.Context, msg CallMsg, header *types.Header, hash common.Hash) (*core.ExecutionResult, error) {
	st, err := b.StateOf(header, hash)
	if err != nil {
		return nil, err
	}
	sim := b.NewSimulation(header, st, SimMode{AllowExceedingBalance: true}, &msg)
	return sim.Run(ctx, b.CallGas(header, msg.Gas))
}

// messageTx is the transaction a simulated message stands for, as its
// tracer sees it (debug_traceCall): sender aside, the fields tracers read.
func messageTx(msg *core.Message) *types.Transaction {
	return types.NewTx(&types.DynamicFeeTx{
		Nonce:      msg.Nonce,
		GasTipCap:  msg.GasTipCap.ToBig(),
		GasFeeCap:  msg.GasFeeCap.ToBig(),
		Gas:        msg.GasLimit,
		To:         msg.To,
		Value:      msg.Value.ToBig(),
		Data:       msg.Data,
		AccessList: msg.AccessList,
	})
}

// txError classifies a state-transition failure that got past the
// simulator's own (Besu) checks: the nearest of Besu's transaction-invalid
// reasons, with go-ethereum's message as the detail.
func txError(err error) error {
	var known *InvalidTransactionError
	if errors.As(err, &known) {
		return err
	}
	reason := ReasonExecutionRefused
	switch {
	case errors.Is(err, core.ErrNonceTooLow):
		reason = txpool.NonceTooLow
	case errors.Is(err, core.ErrNonceTooHigh):
		reason = ReasonNonceTooHigh
	case errors.Is(err, core.ErrIntrinsicGas), errors.Is(err, core.ErrFloorDataGas):
		reason = txpool.IntrinsicGasExceedsGasLimit
	case errors.Is(err, core.ErrInsufficientFunds), errors.Is(err, core.ErrInsufficientFundsForTransfer):
		reason = txpool.UpfrontCostExceedsBalance
	case errors.Is(err, core.ErrGasLimitReached):
		reason = txpool.ExceedsBlockGasLimit
	case errors.Is(err, core.ErrTipAboveFeeCap):
		reason = txpool.MaxPriorityFeePerGasExceedsMaxFeePerGas
	case errors.Is(err, core.ErrFeeCapTooLow):
		reason = ReasonGasPriceBelowCurrentBaseFee
	}
	return &InvalidTransactionError{Reason: reason, Detail: err.Error()}
}

// CallMode is eth_call's (and debug_traceCall's) simulation mode as Besu
// chooses it: strict, when given, chooses whether the sender's balance is
// checked; without it the call may exceed the balance when it names no
// price — before London no (or a zero) gas price; after London no
// non-zero price, or a blob call without a blob fee.
func CallMode(m *CallMsg, strict *bool, header *types.Header) SimMode {
	if strict != nil {
		return SimMode{AllowExceedingBalance: !*strict}
	}
	isZero := func(n *big.Int) bool { return n == nil || n.Sign() == 0 }
	var free bool
	switch {
	case header.BaseFee == nil:
		free = isZero(m.GasPrice)
	case m.BlobHashes != nil && isZero(m.MaxFeePerBlobGas):
		free = true
	default:
		free = isZero(m.GasPrice) && isZero(m.MaxFeePerGas) && isZero(m.MaxPriorityFeePerGas)
	}
	return SimMode{AllowExceedingBalance: free}
}

// Simulation is one prepared run: the state, block and call. Build it with
// Backend.NewSimulation; Override, Tracer and Once may be set before Run.
type Simulation struct {
	b      *Backend
	header *types.Header // the block the call runs in
	st     *state.StateDB
	mode   SimMode
	// Msg is the call.
	Msg *CallMsg
	// Override is applied to a copy of the state before each run.
	Override StateOverrides
	// Tracer, when set, follows the run (debug_traceCall, access lists).
	Tracer *tracing.Hooks
	// Once marks a simulation run a single time, which may then use the
	// state itself instead of a copy.
	Once bool
}

// NewSimulation prepares msg to run in the block of header on st (that
// block's post-state, or its parent's for a pending block) under mode.
func (b *Backend) NewSimulation(header *types.Header, st *state.StateDB, mode SimMode, msg *CallMsg) *Simulation {
	return &Simulation{b: b, header: header, st: st, mode: mode, Msg: msg}
}

// Run executes the call on a copy of the state. A transaction Besu would
// refuse answers a *InvalidTransactionError; an executed one answers its
// result (successful, reverted or halted).
func (s *Simulation) Run(ctx context.Context, gas uint64) (*core.ExecutionResult, error) {
	c := s.b.Chain
	exec := c.Executor()
	st := s.st
	if !s.Once {
		st = st.Copy()
	}
	rules := chain.Rules(c.Config(), s.header)
	var precompiles vm.PrecompiledContracts // nil: the executor's own
	if len(s.Override) > 0 {
		precompiles = exec.Precompiles(s.header)
		if err := s.Override.Apply(st, precompiles); err != nil {
			return nil, err
		}
	}
	tx := s.build(st, gas)
	blobPrice := s.blobGasPrice()
	baseFee := s.header.BaseFee
	if s.mode.AllowExceedingBalance && baseFee != nil {
		baseFee = new(big.Int)
	}
	if err := s.validate(st, tx, rules, baseFee, blobPrice); err != nil {
		return nil, err
	}

	msg := &core.Message{
		From:                  tx.from,
		To:                    tx.to,
		Nonce:                 tx.nonce,
		Value:                 uint256.MustFromBig(tx.value),
		GasLimit:              tx.gas,
		Data:                  tx.data,
		AccessList:            tx.accessList,
		BlobHashes:            tx.blobHashes,
		SetCodeAuthorizations: tx.auths,
	}
	price := tx.price(baseFee)
	msg.GasPrice = uint256.MustFromBig(price)
	if tx.dynamic() {
		msg.GasFeeCap = uint256.MustFromBig(tx.maxFee)
		msg.GasTipCap = uint256.MustFromBig(tx.maxTip)
	} else {
		msg.GasFeeCap = uint256.MustFromBig(tx.gasPrice)
		msg.GasTipCap = uint256.MustFromBig(tx.gasPrice)
	}
	if tx.typ == types.BlobTxType {
		msg.BlobGasFeeCap = uint256.MustFromBig(tx.maxBlobFee)
	}
	msg.SkipNonceCheck().SkipEOACheck().SkipGasLimitCapCheck()

	opts := chain.CallOptions{Tracer: s.Tracer, Precompiles: precompiles}
	if s.Tracer != nil {
		opts.Tx = messageTx(msg) // debug_traceCall's tracers start from the transaction
	}
	if s.mode.AllowExceedingBalance {
		// A free call runs in a block whose fees read zero.
		opts.ZeroBaseFee, opts.ZeroBlobBaseFee = true, true
	}
	if s.mode.AllowUnderpriced && !s.affordable(st, tx, price, blobPrice, baseFee) {
		// Besu lets an underpriced simulation run without charging for gas
		// it cannot pay; so does a zero-priced message.
		zero := new(uint256.Int)
		msg.GasPrice, msg.GasFeeCap, msg.GasTipCap = zero, zero, zero
		if msg.BlobGasFeeCap != nil {
			msg.BlobGasFeeCap = zero
		}
		opts.ZeroBlobBaseFee, opts.NoBaseFee = true, true
	}
	res, err := exec.ApplyMessage(ctx, s.header, st, msg, max(tx.gas, s.header.GasLimit), opts)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err // stopped: the front end answers its timeout
	}
	if err != nil {
		return nil, txError(err)
	}
	return res, nil
}

// build turns the call into the transaction Besu's simulator builds.
func (s *Simulation) build(st *state.StateDB, gas uint64) *simTx {
	a := s.Msg
	cfg := s.b.Chain.Config()
	tx := &simTx{
		from:       a.Sender(),
		to:         a.to(),
		gas:        gas,
		value:      a.value(),
		data:       a.Data,
		blobHashes: a.BlobHashes,
		auths:      a.AuthorizationList,
	}
	if a.Nonce != nil {
		tx.nonce = *a.Nonce
	} else {
		tx.nonce = st.GetNonce(tx.from)
	}
	if a.AccessList != nil {
		tx.accessList = *a.AccessList
	}
	baseFee := s.header.BaseFee
	zero := new(big.Int)
	var gasPrice, maxFee, maxTip, maxBlobFee *big.Int
	switch {
	case s.mode.AllowExceedingBalance:
		gasPrice, maxFee, maxTip, maxBlobFee = zero, zero, zero, zero
	default:
		switch {
		case a.noPricing() && baseFee != nil:
			gasPrice = baseFee
		case a.GasPrice != nil:
			gasPrice = a.GasPrice
		default:
			gasPrice = zero
		}
		maxFee, maxTip, maxBlobFee = gasPrice, gasPrice, s.blobGasPrice()
		if a.MaxFeePerGas != nil {
			maxFee = a.MaxFeePerGas
		}
		if a.MaxPriorityFeePerGas != nil {
			maxTip = a.MaxPriorityFeePerGas
		}
		if a.MaxFeePerBlobGas != nil {
			maxBlobFee = a.MaxFeePerBlobGas
		}
	}
	isBlob := a.BlobHashes != nil
	setGasPrice := baseFee == nil || (a.MaxPriorityFeePerGas == nil && a.MaxFeePerGas == nil)
	setMaxFee := baseFee != nil && (isBlob || a.noPricing() || a.MaxPriorityFeePerGas != nil || a.MaxFeePerGas != nil)
	if setGasPrice {
		tx.gasPrice = gasPrice
	} else {
		tx.gasPrice = zero
	}
	if setMaxFee {
		tx.maxFee, tx.maxTip = maxFee, maxTip
	}
	if isBlob {
		tx.maxBlobFee = maxBlobFee
	}
	switch {
	case len(tx.auths) > 0:
		tx.typ = types.SetCodeTxType
	case len(tx.blobHashes) > 0:
		tx.typ = types.BlobTxType
	case setMaxFee:
		tx.typ = types.DynamicFeeTxType
	case a.AccessList != nil:
		tx.typ = types.AccessListTxType
	default:
		tx.typ = types.LegacyTxType
	}
	if tx.dynamic() && tx.maxFee == nil {
		// A typed transaction before London: Besu prices it by gasPrice.
		tx.maxFee, tx.maxTip = gasPrice, gasPrice
	}
	if tx.typ != types.LegacyTxType {
		tx.chainID = cfg.ChainID
		if a.ChainID != nil {
			tx.chainID = a.ChainID
		}
	}
	if tx.typ < types.AccessListTxType {
		tx.accessList = nil
	}
	if tx.maxBlobFee == nil {
		tx.maxBlobFee = zero
	}
	return tx
}

// blobGasPrice is the blob base fee the call pays: zero for a free call,
// else the block's.
func (s *Simulation) blobGasPrice() *big.Int {
	if s.mode.AllowExceedingBalance || s.header.ExcessBlobGas == nil {
		return new(big.Int)
	}
	return eip4844.CalcBlobFee(s.b.Chain.Config(), s.header)
}

// affordable reports whether the sender can pay for the call's gas.
func (s *Simulation) affordable(st *state.StateDB, tx *simTx, price, blobPrice, baseFee *big.Int) bool {
	if baseFee != nil && price.Cmp(baseFee) < 0 {
		return false
	}
	return upfrontCost(tx).Cmp(st.GetBalance(tx.from).ToBig()) <= 0
}

// upfrontCost is Besu's Transaction.getUpfrontCost: the most the
// transaction can cost its sender.
func upfrontCost(tx *simTx) *big.Int {
	cost := new(big.Int).Mul(new(big.Int).SetUint64(tx.gas), tx.maxGasPrice())
	if tx.typ == types.BlobTxType {
		blobGas := new(big.Int).SetUint64(uint64(len(tx.blobHashes)) * params.BlobTxBlobGasPerBlob)
		cost.Add(cost, blobGas.Mul(blobGas, tx.maxBlobFee))
	}
	return cost.Add(cost, tx.value)
}

// acceptedTypes lists the transaction types a fork accepts, in Besu's
// order and naming.
func acceptedTypes(rules params.Rules) []string {
	out := []string{"FRONTIER"}
	if rules.IsBerlin {
		out = append(out, "ACCESS_LIST")
	}
	if rules.IsLondon {
		out = append(out, "EIP1559")
	}
	if rules.IsCancun {
		out = append(out, "BLOB")
	}
	if rules.IsPrague {
		out = append(out, "DELEGATE_CODE")
	}
	return out
}

var besuTypeNames = map[byte]string{
	types.LegacyTxType:     "FRONTIER",
	types.AccessListTxType: "ACCESS_LIST",
	types.DynamicFeeTxType: "EIP1559",
	types.BlobTxType:       "BLOB",
	types.SetCodeTxType:    "DELEGATE_CODE",
}

// validate is Besu's MainnetTransactionValidator.validate followed by
// validateForSender, with Besu's messages.
func (s *Simulation) validate(st *state.StateDB, tx *simTx, rules params.Rules, baseFee, blobPrice *big.Int) error {
	cfg := s.b.Chain.Config()
	if tx.chainID != nil && tx.chainID.Cmp(cfg.ChainID) != 0 {
		return InvalidTx(txpool.WrongChainID, "transaction was meant for chain id %s and not this chain id %s", tx.chainID, cfg.ChainID)
	}
	accepted := acceptedTypes(rules)
	name := besuTypeNames[tx.typ]
	ok := false
	for _, t := range accepted {
		ok = ok || t == name
	}
	if !ok {
		return InvalidTx(txpool.InvalidTransactionFormat, "Transaction type %s is invalid, accepted transaction types are [%s]", name, strings.Join(accepted, ", "))
	}
	if tx.typ == types.BlobTxType {
		if tx.to == nil {
			return InvalidTx(txpool.InvalidTransactionFormat, "transaction blob transactions must have a to address")
		}
		if len(tx.blobHashes) == 0 {
			return InvalidTx(ReasonInvalidBlobs, "transaction blob transactions must specify one or more versioned hashes")
		}
		maxBlobs := eip4844.MaxBlobsPerBlock(cfg, s.header.Time)
		if rules.IsOsaka {
			maxBlobs = min(maxBlobs, params.BlobTxMaxBlobs)
		}
		if len(tx.blobHashes) > maxBlobs {
			return InvalidTx(ReasonTotalBlobGasTooHigh, "Blob transaction has too many blobs: %d", len(tx.blobHashes))
		}
	}
	if tx.to == nil && rules.IsShanghai {
		limit := params.MaxInitCodeSize
		if rules.IsAmsterdam {
			limit = params.MaxInitCodeSizeAmsterdam
		}
		if len(tx.data) > limit {
			return InvalidTx(txpool.InitcodeTooLarge, "Initcode size of %d exceeds maximum size of %d", len(tx.data), limit)
		}
	}
	if tx.typ == types.SetCodeTxType && tx.to == nil {
		return InvalidTx(txpool.InvalidTransactionFormat, "transaction code delegation transactions must have a to address")
	}
	if baseFee != nil {
		if !s.mode.AllowUnderpriced && tx.price(baseFee).Cmp(baseFee) < 0 {
			return InvalidTx(ReasonGasPriceBelowCurrentBaseFee, "gasPrice is less than the current BaseFee")
		}
		if tx.dynamic() && tx.maxTip.Cmp(tx.maxFee) > 0 {
			return InvalidTx(txpool.MaxPriorityFeePerGasExceedsMaxFeePerGas, "max priority fee per gas cannot be greater than max fee per gas")
		}
	}
	if tx.typ == types.BlobTxType && !s.mode.AllowUnderpriced && blobPrice.Cmp(tx.maxBlobFee) > 0 {
		return InvalidTx(ReasonBlobGasPriceBelowCurrentBlobBaseFee, "tx max fee per blob gas less than block blob gas fee: address %s blobGasFeeCap: %s, blobBaseFee: %s",
			lowerHex(tx.from), humanWei(tx.maxBlobFee), humanWei(blobPrice))
	}
	intrinsic, err := core.IntrinsicGas(tx.data, tx.accessList, tx.auths, tx.from, tx.to, uint256.MustFromBig(tx.value), rules)
	if err != nil {
		return InvalidTx(txpool.IntrinsicGasExceedsGasLimit, "%s", err.Error())
	}
	if rules.IsPrague {
		floor, err := core.FloorDataGas(rules, tx.from, tx.to, uint256.MustFromBig(tx.value), tx.data, tx.accessList)
		if err == nil {
			intrinsic = max(intrinsic, floor)
		}
	}
	if intrinsic > tx.gas {
		return InvalidTx(txpool.IntrinsicGasExceedsGasLimit, "intrinsic gas cost %d exceeds gas limit %d", intrinsic, tx.gas)
	}

	balance := st.GetBalance(tx.from).ToBig()
	if cost := upfrontCost(tx); !s.mode.AllowUnderpriced && cost.Cmp(balance) > 0 {
		return InvalidTx(txpool.UpfrontCostExceedsBalance, "transaction up-front cost %s exceeds transaction sender account balance %s for sender %s",
			hexQuantity(cost), hexQuantity(balance), lowerHex(tx.from))
	}
	if nonce := st.GetNonce(tx.from); tx.nonce < nonce {
		return InvalidTx(txpool.NonceTooLow, "transaction nonce %d below sender account nonce %d for sender %s", tx.nonce, nonce, lowerHex(tx.from))
	}
	return nil
}

// ResultError is the error of a call that ran and failed: a RevertError
// with the revert data, or a HaltError with Besu's description of the
// halt.
func ResultError(res *core.ExecutionResult) error {
	if errors.Is(res.Err, vm.ErrExecutionReverted) {
		return &RevertError{Data: res.Revert()}
	}
	return &HaltError{Reason: chain.HaltReason(res.Err)}
}

// lowerHex renders an address the way Besu's messages do.
func lowerHex(a common.Address) string { return strings.ToLower(a.Hex()) }

// hexQuantity renders n as a 0x quantity.
func hexQuantity(n *big.Int) string { return "0x" + n.Text(16) }

// humanWei is Besu's Wei.toHumanReadableString: the value in the largest
// unit that keeps at most three integer digits, e.g. "1 wei", "1.50 gwei".
func humanWei(v *big.Int) string {
	units := []struct {
		name string
		pow  int
	}{{"wei", 0}, {"kwei", 3}, {"mwei", 6}, {"gwei", 9}, {"szabo", 12}, {"finney", 15},
		{"ether", 18}, {"kether", 21}, {"mether", 24}, {"gether", 27}, {"tether", 30}}
	digits := len(v.String())
	u := units[len(units)-1]
	for _, cand := range units {
		if digits <= cand.pow+3 {
			u = cand
			break
		}
	}
	f, _ := new(big.Float).SetInt(v).Float64()
	res := f / math.Pow(10, float64(u.pow))
	if u.pow == 0 {
		return fmt.Sprintf("%.0f %s", res, u.name)
	}
	return fmt.Sprintf("%.2f %s", res, u.name)
}
