package goquorum

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/quorumtx"
)

// Service answers the reads and sends of a GoQuorum party for the node's
// front ends (JSON-RPC): its private state, private receipts, payloads,
// and the distribution of privately signed transactions.
type Service struct {
	proc  *Processor
	chain *chain.Chain
	log   *slog.Logger
}

// NewService returns the service over the chain's processor.
func NewService(p *Processor, c *chain.Chain, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{proc: p, chain: c, log: log}
}

// Processor is the chain's block hook.
func (s *Service) Processor() *Processor { return s.proc }

// StateAt opens the private state after the block with the given hash (a
// copy the caller may change).
func (s *Service) StateAt(block common.Hash) (*state.StateDB, error) {
	rec, err := s.proc.store.Roots(block)
	if err != nil {
		return nil, err
	}
	return s.proc.store.StateAt(rec.Root(group))
}

// Receipt returns this node's private receipt of the transaction tx in
// the block with the given hash; nil when it is not a party to it.
func (s *Service) Receipt(block, tx common.Hash) (*privstate.Receipt, error) {
	rec, err := s.proc.store.Record(block)
	if err != nil {
		return nil, err
	}
	return rec.Receipt(tx), nil
}

// PrivateLogs returns the private logs of the block with the given hash
// and number, in transaction order, numbered across the block's private
// logs (GoQuorum numbers a private state's logs apart from the public
// ones). It serves log queries and subscriptions (filters.PrivateLogs).
func (s *Service) PrivateLogs(block common.Hash, number uint64) []*types.Log {
	rec, err := s.proc.store.Record(block)
	if err != nil {
		s.log.Error("Cannot read a block's private receipts", "number", number, "hash", block, "err", err)
		return nil
	}
	if len(rec.Receipts) == 0 {
		return nil
	}
	var time uint64
	if h := s.chain.GetHeader(block, number); h != nil {
		time = h.Time
	}
	var out []*types.Log
	for _, r := range rec.Receipts {
		for _, l := range r.Logs {
			out = append(out, &types.Log{Address: l.Address, Topics: l.Topics, Data: l.Data, BlockNumber: number, TxHash: r.PMT,
				TxIndex: uint(r.PMTIndex), BlockHash: block, BlockTimestamp: time, Index: uint(len(out))})
		}
	}
	return out
}

// Payload returns the payload the manager holds under key for this node,
// nil when it holds none (not a party).
func (s *Service) Payload(ctx context.Context, key []byte) ([]byte, error) {
	got, err := s.proc.client.Receive(ctx, key, false)
	if errors.Is(err, ErrNotParty) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrManager, err)
	}
	if got.Payload == nil {
		return []byte{}, nil
	}
	return got.Payload, nil
}

// ErrManager wraps a failure of the privacy manager.
var ErrManager = errors.New("privacy manager failure")

// Errors of DistributeSigned for a transaction GoQuorum would refuse too.
var (
	ErrNotPrivate     = errors.New("transaction is not private")
	ErrUnknownPayload = errors.New("the privacy manager holds no raw payload under the transaction's data: store the payload with /storeraw first")
)

// DistributeSigned hands a privately signed transaction's payload to its
// recipients, as GoQuorum's eth_sendRawPrivateTransaction does before
// pooling it: the manager must hold the payload stored by /storeraw under
// the transaction's data, and /sendsignedtx sends it to privateFor.
func (s *Service) DistributeSigned(ctx context.Context, tx *types.Transaction, privateFor []string) error {
	if !quorumtx.IsPrivate(tx) {
		return ErrNotPrivate
	}
	if _, err := quorumtx.Sender(tx); err != nil {
		return err
	}
	key := PayloadKey(tx.Data())
	if len(tx.Data()) != quorumtx.KeySize {
		return fmt.Errorf("%w (data of %d bytes, want the %d-byte key)", ErrUnknownPayload, len(tx.Data()), quorumtx.KeySize)
	}
	if _, err := s.proc.client.Receive(ctx, key, true); err != nil {
		if errors.Is(err, ErrNotParty) {
			return ErrUnknownPayload
		}
		return fmt.Errorf("%w: %v", ErrManager, err)
	}
	if _, err := s.proc.client.SendSigned(ctx, key, privateFor); err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.Status >= 400 && se.Status < 500 {
			return fmt.Errorf("privacy manager refused the recipients: %s", se.Body)
		}
		return fmt.Errorf("%w: %v", ErrManager, err)
	}
	return nil
}

// Call runs a read-only call to a contract of the private state priv
// (after the block of header), GoQuorum's eth_call on a private contract:
// the call starts on the private state, public contracts it calls are read
// from public, read-only. It returns the EVM's result.
func (s *Service) Call(header *types.Header, priv, public *state.StateDB, from, to common.Address, data []byte, gas uint64, value *uint256.Int) *core.ExecutionResult {
	x := s.chain.Executor()
	d := newDualState(priv, public, from, public.GetNonce(from))
	evm := x.NewEVM(x.BlockContext(header), d, vm.Config{Tracer: d.hooks(), NoBaseFee: true})
	defer evm.Release()
	evm.SetTxContext(vm.TxContext{Origin: from, GasPrice: new(uint256.Int)})
	if value == nil {
		value = new(uint256.Int)
	}
	ret, left, err := evm.Call(from, to, data, vm.NewGasBudget(gas, 0), value)
	if err == nil && d.violated {
		err = errReadOnly
	}
	return &core.ExecutionResult{UsedGas: gas - left.ExecutionGas, Err: err, ReturnData: ret}
}
