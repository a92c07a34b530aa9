package privacy

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/internal/fanout"
	"github.com/basaltchain/basalt/privacy/enclave"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/privacy/privtx"
)

// Retry intervals while the manager cannot answer /receive.
const (
	retryFirst = 200 * time.Millisecond
	retryMax   = 5 * time.Second
)

// Processor is the chain's BlockHook on a privacy-enabled node: for every
// privacy marker transaction of an inserted block it asks the manager for
// the private transaction and, when this node is a party, executes it on
// its group's private state (reference §9).
//
// The manager's 4xx answer to /receive means "not ours": the PMT is a plain
// public transaction here and leaves no private state. Any other failure
// (5xx, the manager unreachable) stops the block: ProcessBlock retries
// until the manager answers or ctx ends, and the block is not stored
// before — the node never computes a private state without a payload it
// should have.
type Processor struct {
	store       *privstate.Store
	enclave     *enclave.Client
	address     common.Address
	nonceAlways bool
	log         *slog.Logger

	// stop ends every wait for the manager (Stop): the miner inserts the
	// blocks it sealed with a context that never ends.
	stop     chan struct{}
	stopOnce sync.Once
}

// NewProcessor returns the processor of the PMTs sent to the precompile at
// address, which keeps the private state in store and asks client for the
// payloads. It is given to chain.Open (chain.WithBlockHook) and to New.
func NewProcessor(store *privstate.Store, client *enclave.Client, address common.Address, nonceAlways bool, log *slog.Logger) *Processor {
	if log == nil {
		log = slog.Default()
	}
	return &Processor{store: store, enclave: client, address: address, nonceAlways: nonceAlways, log: log, stop: make(chan struct{})}
}

// Stop makes blocks waiting for the manager, now or later, fail instead
// (the node is shutting down). It is safe to call more than once.
func (p *Processor) Stop() { p.stopOnce.Do(func() { close(p.stop) }) }

// fetchWorkers bounds the concurrent /receive requests of one block.
const fetchWorkers = 16

// Prepare implements chain.BlockHook: it fetches the payloads of the
// block's markers, concurrently, before the chain's insert lock is taken.
// A marker's receipt is not known yet, so the payloads of markers that
// fail publicly are fetched too and then left unused.
func (p *Processor) Prepare(ctx context.Context, block *types.Block) (chain.PreparedBlock, error) {
	var markers []int
	for i, tx := range block.Transactions() {
		if p.IsMarker(tx) {
			markers = append(markers, i)
		}
	}
	payloads, err := p.fetch(ctx, block.Transactions(), markers, block.NumberU64())
	if err != nil {
		return nil, err
	}
	return &preparedBlock{p: p, block: block, markers: markers, payloads: payloads}, nil
}

// preparedBlock is a block with its markers' payloads (nil: not ours).
type preparedBlock struct {
	p        *Processor
	block    *types.Block
	markers  []int
	payloads []*enclave.Received
}

// ProcessBlock runs the block's private transactions in block order; each
// group touched is committed once, at the end of the block. It asks the
// manager nothing.
func (b *preparedBlock) ProcessBlock(ctx context.Context, hb *chain.HookBlock) error {
	x, hash, receipts, post := hb.Exec, hb.Hash, hb.Receipts, hb.Post
	p, block := b.p, b.block
	parent, err := p.store.Roots(block.ParentHash())
	if err != nil {
		return err
	}
	header := block.Header()
	number := header.Number.Uint64()
	var markers []int
	var payloads []*enclave.Received
	for k, i := range b.markers {
		if i < len(receipts) && receipts[i].Status == types.ReceiptStatusSuccessful {
			markers = append(markers, i)
			payloads = append(payloads, b.payloads[k])
		}
	}
	if len(markers) == 0 && len(parent.Roots) == 0 {
		return nil // no private state yet: nothing to record
	}
	rec := &privstate.Record{Roots: slices.Clone(parent.Roots)}
	rules := chain.Rules(x.Config(), header)
	blockCtx := x.BlockContext(header)
	open := map[common.Hash]*state.StateDB{} // groups this block changes, at their running state
	for k, i := range markers {
		got := payloads[k]
		if got == nil {
			continue // not ours
		}
		tx := block.Transactions()[i]
		ptx, err := privtx.Decode(got.Payload)
		if err != nil {
			p.log.Warn("Private transaction undecodable: skipped", "pmt", tx.Hash().Hex(), "err", err)
			continue
		}
		if got.SenderKey != "" && got.SenderKey != base64.StdEncoding.EncodeToString(ptx.PrivateFrom) {
			// Later Besu: the manager's sender must be the transaction's
			// privateFrom, or anyone could send in another's name.
			p.log.Warn("Private transaction's privateFrom is not its sender at the manager: skipped", "pmt", tx.Hash().Hex())
			continue
		}
		group, err := groupHash(got.PrivacyGroupID)
		if err != nil {
			p.log.Warn("Privacy group ID invalid: private transaction skipped", "pmt", tx.Hash().Hex(), "group", got.PrivacyGroupID)
			continue
		}
		sender, err := ptx.Sender()
		if err != nil {
			p.log.Warn("Private transaction signature invalid: skipped", "pmt", tx.Hash().Hex(), "err", err)
			continue
		}
		st := open[group]
		if st == nil {
			if st, err = p.store.StateAt(rec.Root(group)); err != nil {
				return fmt.Errorf("private state of group %s: %w", got.PrivacyGroupID, err)
			}
			open[group] = st
		}
		privHash := crypto.Keccak256Hash(got.Payload)
		out := run(x, blockCtx, st, post, ptx, sender, group, privHash, p.nonceAlways)
		root := rec.Root(group)
		if out.changed {
			root = st.IntermediateRoot(rules)
		}
		r := privstate.Receipt{PMT: tx.Hash(), PMTIndex: uint64(i), TxHash: privHash, Group: group, From: sender,
			Status: out.status, Output: out.output, Revert: out.revert, Logs: out.logs, RawTx: got.Payload, StateRoot: root,
			Failure: out.failure}
		if ptx.To != nil {
			r.To = ptx.To.Bytes()
		}
		if out.contract != nil && out.status == 1 {
			r.Contract = out.contract.Bytes()
		}
		rec.Receipts = append(rec.Receipts, r)
	}
	for group, st := range open {
		root, err := p.store.CommitState(st, rules, number)
		if err != nil {
			return fmt.Errorf("commit private state: %w", err)
		}
		setRoot(rec, group, root)
	}
	return p.store.WriteRecord(hash, rec)
}

// fetch receives the payloads of the markers at the given indexes of txs,
// concurrently; a nil entry is a payload that is not ours.
func (p *Processor) fetch(ctx context.Context, txs types.Transactions, markers []int, number uint64) ([]*enclave.Received, error) {
	out, err := fanout.Each(ctx, p.stop, len(markers), fetchWorkers, func(ctx context.Context, k int) (*enclave.Received, error) {
		return p.receive(ctx, txs[markers[k]].Data(), number)
	})
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("private transactions of block %d: %w", number, err)
	}
	return out, err
}

// IsMarker reports whether tx is a privacy marker transaction: sent to the
// precompile with a 32-byte payload key.
func (p *Processor) IsMarker(tx *types.Transaction) bool {
	to := tx.To()
	return to != nil && *to == p.address && len(tx.Data()) == privtx.KeySize
}

// receive fetches the payload under key, nil when it is not ours or its
// privateFrom is not a member of its group, waiting out a manager that
// cannot answer.
func (p *Processor) receive(ctx context.Context, key []byte, number uint64) (*enclave.Received, error) {
	var got *enclave.Received
	err := p.waitManager(ctx, number, func() (err error) {
		got, err = p.enclave.Receive(ctx, key)
		return err
	})
	if enclave.IsNotOurs(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	member, err := p.fromMember(ctx, got, number)
	if err != nil {
		return nil, err
	}
	if !member {
		p.log.Warn("Private transaction's privateFrom is not a member of its privacy group: skipped", "block", number,
			"group", got.PrivacyGroupID)
		return nil, nil
	}
	return got, nil
}

// waitManager runs call until it succeeds or the manager answers 4xx
// (returned as is), retrying with backoff while the manager cannot answer
// and ctx lasts.
func (p *Processor) waitManager(ctx context.Context, number uint64, call func() error) error {
	wait := retryFirst
	warned := false
	for {
		err := call()
		switch {
		case err == nil:
			if warned {
				p.log.Info("Privacy manager answers again: processing resumes", "block", number)
			}
			return nil
		case enclave.IsNotOurs(err):
			return err
		case ctx.Err() != nil:
			return fmt.Errorf("private transaction of block %d: %w", number, err)
		}
		if !warned {
			p.log.Warn("Privacy manager cannot give a private transaction: block processing waits for it", "block", number,
				"url", p.enclave.URL(), "err", err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("private transaction of block %d: %w", number, err)
		case <-time.After(wait):
		}
		wait = min(2*wait, retryMax)
	}
}

func setRoot(r *privstate.Record, group, root common.Hash) {
	for i := range r.Roots {
		if r.Roots[i].Group == group {
			r.Roots[i].Root = root
			return
		}
	}
	r.Roots = append(r.Roots, privstate.GroupRoot{Group: group, Root: root})
	slices.SortFunc(r.Roots, func(a, b privstate.GroupRoot) int { return a.Group.Cmp(b.Group) })
}

// groupHash decodes a Base64 privacy group ID.
func groupHash(id string) (common.Hash, error) {
	b, err := base64.StdEncoding.DecodeString(id)
	if err != nil || len(b) != common.HashLength {
		return common.Hash{}, fmt.Errorf("privacy group ID %q is not 32 bytes in Base64", id)
	}
	return common.BytesToHash(b), nil
}
