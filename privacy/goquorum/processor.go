// Package goquorum makes a Basalt node a GoQuorum party: on a GoQuorum
// chain (genesis isQuorum) it runs GoQuorum private transactions (legacy,
// V 37/38, package quorumtx) whose payload its privacy manager holds into
// the node's one private state, as GoQuorum 24.4.1 does with a single
// private state (reference/goquorum-privacy.md §2), and answers the reads
// GoQuorum users make of it.
//
// The manager is reached over its Tessera Q2T API (basalt-privacy's, on
// --ptm-url), as GoQuorum reaches Tessera: GET /transaction/{key} gives the
// payload, or 404 to a node that is not a party. The private state lives in
// the chain's database (privstate, its own prefix), one root per block,
// keyed by block hash: GoQuorum keys it by the block's public state root,
// which names the same block.
package goquorum

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/internal/fanout"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/quorumtx"
)

// Retry intervals while the manager cannot answer a receive.
const (
	retryFirst = 200 * time.Millisecond
	retryMax   = 5 * time.Second
)

// fetchWorkers bounds the concurrent receives of one block.
const fetchWorkers = 16

// group is the one private state's key in privstate's records (GoQuorum's
// single private state has no group).
var group common.Hash

// Processor is the chain's BlockHook on a GoQuorum party (chain.BlockHook):
// Prepare fetches, before the insert lock, the payloads of a block's
// GoQuorum private transactions; ProcessBlock runs them, under the lock,
// on the private state and writes the block's private root and receipts
// before the block is stored.
//
// A 404 from the manager means this node is not a party: the transaction
// runs with an empty payload, which is GoQuorum's non-party rule (a
// creation leaves an empty account, a call does nothing). Any other
// failure (the manager down, 5xx) stops the block: Prepare retries until
// the manager answers or the insert is given up, so a node never computes
// a private state without a payload it should have (GoQuorum exits with
// 112 instead).
type Processor struct {
	store  *privstate.Store
	client *Client
	log    *slog.Logger

	stop     chan struct{}
	stopOnce sync.Once
}

// NewProcessor returns the processor keeping private state in store and
// asking client for payloads.
func NewProcessor(store *privstate.Store, client *Client, log *slog.Logger) *Processor {
	if log == nil {
		log = slog.Default()
	}
	return &Processor{store: store, client: client, log: log, stop: make(chan struct{})}
}

// Store is the private state store.
func (p *Processor) Store() *privstate.Store { return p.store }

// Client is the manager's client.
func (p *Processor) Client() *Client { return p.client }

// Stop makes blocks waiting for the manager, now or later, fail instead
// (the node is shutting down). It is safe to call more than once.
func (p *Processor) Stop() { p.stopOnce.Do(func() { close(p.stop) }) }

// payload is what the manager gave for one private transaction: nil data
// for a non-party.
type payload struct {
	data  []byte
	party bool
}

// Prepare implements chain.BlockHook.
func (p *Processor) Prepare(ctx context.Context, block *types.Block) (chain.PreparedBlock, error) {
	var idx []int
	for i, tx := range block.Transactions() {
		if quorumtx.IsPrivate(tx) {
			idx = append(idx, i)
		}
	}
	got, err := p.fetch(ctx, block.Transactions(), idx, block.NumberU64())
	if err != nil {
		return nil, err
	}
	payloads := make(map[int]payload, len(idx))
	for k, i := range idx {
		payloads[i] = got[k]
	}
	return &prepared{p: p, block: block, payloads: payloads}, nil
}

// PayloadKey is the manager key a private transaction's data names: 64
// bytes, a shorter data left-padded, a longer one cut to its last 64 (as
// GoQuorum's BytesToEncryptedPayloadHash).
func PayloadKey(data []byte) []byte {
	k := make([]byte, quorumtx.KeySize)
	if len(data) > quorumtx.KeySize {
		data = data[len(data)-quorumtx.KeySize:]
	}
	copy(k[quorumtx.KeySize-len(data):], data)
	return k
}

func (p *Processor) fetch(ctx context.Context, txs types.Transactions, idx []int, number uint64) ([]payload, error) {
	out, err := fanout.Each(ctx, p.stop, len(idx), fetchWorkers, func(ctx context.Context, k int) (payload, error) {
		return p.receive(ctx, txs[idx[k]], number)
	})
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("private transactions of block %d: %w", number, err)
	}
	return out, err
}

// receive fetches one transaction's payload, waiting out a manager that
// cannot answer.
func (p *Processor) receive(ctx context.Context, tx *types.Transaction, number uint64) (payload, error) {
	key := PayloadKey(tx.Data())
	wait := retryFirst
	warned := false
	for {
		got, err := p.client.Receive(ctx, key, false)
		switch {
		case err == nil:
			if warned {
				p.log.Info("Privacy manager answers again: processing resumes", "block", number)
			}
			if got.PrivacyFlag != 0 {
				// Not sent by basalt-privacy, which refuses privacy
				// enhancements: their checks are not run here.
				p.log.Warn("Private transaction with privacy enhancements (privacyFlag > 0) not supported: this node is not a party to it",
					"block", number, "tx", tx.Hash().Hex(), "privacyFlag", got.PrivacyFlag)
				return payload{}, nil
			}
			return payload{data: got.Payload, party: true}, nil
		case errors.Is(err, ErrNotParty):
			return payload{}, nil
		case ctx.Err() != nil:
			return payload{}, fmt.Errorf("private transaction %s of block %d: %w: %w", tx.Hash().Hex(), number, ctx.Err(), err)
		}
		if !warned {
			p.log.Warn("Privacy manager cannot give a private transaction: block processing waits for it", "block", number,
				"tx", tx.Hash().Hex(), "url", p.client.URL(), "err", err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return payload{}, fmt.Errorf("private transaction %s of block %d: %w: %w", tx.Hash().Hex(), number, ctx.Err(), err)
		case <-time.After(wait):
		}
		wait = min(2*wait, retryMax)
	}
}

type prepared struct {
	p        *Processor
	block    *types.Block
	payloads map[int]payload // by transaction index
}

// ProcessBlock implements chain.PreparedBlock: it runs the block's private
// transactions in order, each against the public state as it stands at
// that transaction (the block replayed), and writes the block's private
// root and the receipts of those this node is a party to.
func (b *prepared) ProcessBlock(ctx context.Context, hb *chain.HookBlock) error {
	x, hash := hb.Exec, hb.Hash
	p, block := b.p, b.block
	parentRec, err := p.store.Roots(block.ParentHash())
	if err != nil {
		return err
	}
	if len(b.payloads) == 0 {
		if len(parentRec.Roots) == 0 {
			return nil // no private state yet: nothing to record
		}
		return p.store.WriteRecord(hash, &privstate.Record{Roots: parentRec.Roots})
	}
	header := block.Header()
	number := header.Number.Uint64()
	public := hb.Parent
	priv, err := p.store.StateAt(parentRec.Root(group))
	if err != nil {
		return fmt.Errorf("GoQuorum private state of block %d: %w", number-1, err)
	}
	rules := chain.Rules(x.Config(), header)
	blockCtx := x.BlockContext(header)
	rec := &privstate.Record{}
	err = x.ReplayGoQuorumPrivate(ctx, block, hash, public, func(i int, tx *types.Transaction, from common.Address, pub *state.StateDB) error {
		r := p.run(x, blockCtx, header, hash, i, tx, from, b.payloads[i], priv, pub)
		if r != nil {
			rec.Receipts = append(rec.Receipts, *r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("GoQuorum private transactions of block %d: %w", number, err)
	}
	root, err := p.store.CommitState(priv, rules, number)
	if err != nil {
		return fmt.Errorf("commit GoQuorum private state: %w", err)
	}
	rec.Roots = []privstate.GroupRoot{{Group: group, Root: root}}
	return p.store.WriteRecord(hash, rec)
}

// run applies one private transaction to priv, as GoQuorum's
// TransitionDb does on a node with a single private state: the payload as
// the input (none for a non-party), the gas left after the intrinsic gas
// of the 64-byte key, a creation at CreateAddress(sender, public nonce). It
// returns the private receipt for a party, nil otherwise.
func (p *Processor) run(x *chain.Executor, blockCtx vm.BlockContext, header *types.Header, hash common.Hash, i int,
	tx *types.Transaction, from common.Address, pl payload, priv, public *state.StateDB) *privstate.Receipt {
	rules := chain.Rules(x.Config(), header)
	value, overflow := uint256.FromBig(tx.Value())
	if overflow {
		return nil // the public run refuses the block
	}
	intrinsic, err := core.IntrinsicGas(tx.Data(), nil, nil, from, tx.To(), value, rules)
	if err != nil || tx.Gas() < intrinsic {
		return nil // likewise
	}
	if tx.To() != nil && len(pl.data) == 0 {
		// GoQuorum: a call with no payload (a non-party) runs nothing.
		return nil
	}
	txHash := tx.Hash()
	priv.SetTxContext(txHash, i, uint32(i+1))
	d := newDualState(priv, public, from, tx.Nonce())
	evm := x.NewEVM(blockCtx, d, vm.Config{Tracer: d.hooks()})
	defer evm.Release()
	price, _ := uint256.FromBig(tx.GasPrice())
	evm.SetTxContext(vm.TxContext{Origin: from, GasPrice: price})
	snap := priv.Snapshot()
	gas := vm.NewGasBudget(tx.Gas()-intrinsic, 0)
	var (
		ret  []byte
		verr error
	)
	if tx.To() == nil {
		ret, _, _, verr = evm.Create(from, pl.data, gas, value)
	} else {
		ret, _, verr = evm.Call(from, *tx.To(), pl.data, gas, value)
	}
	if d.violated {
		priv.RevertToSnapshot(snap)
		verr = errReadOnly
		p.log.Warn("GoQuorum private transaction wrote through a public contract (GoQuorum fails that call read-only): its private effects are undone",
			"block", header.Number, "tx", txHash.Hex())
	}
	priv.Finalise(rules)
	if !pl.party {
		return nil
	}
	r := &privstate.Receipt{PMT: txHash, PMTIndex: uint64(i), TxHash: txHash, From: from, Status: types.ReceiptStatusSuccessful, Output: ret}
	if tx.To() != nil {
		r.To = tx.To().Bytes()
	} else {
		r.Contract = crypto.CreateAddress(from, tx.Nonce()).Bytes()
		r.Output = nil
	}
	if verr != nil {
		r.Status = types.ReceiptStatusFailed
		r.Failure = verr.Error()
		if errors.Is(verr, vm.ErrExecutionReverted) {
			r.Revert = ret
		}
	}
	for _, l := range priv.GetLogs(txHash, header.Number.Uint64(), hash, header.Time) {
		r.Logs = append(r.Logs, privstate.Log{Address: l.Address, Topics: l.Topics, Data: l.Data})
	}
	return r
}

// errReadOnly is GoQuorum's error for a write in a read-only frame.
var errReadOnly = errors.New("VM in read-only mode. Value transfer prohibited.")
