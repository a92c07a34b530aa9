// Package chainsync is full sync: it brings the local chain up to a peer's
// head by downloading the peer's headers from the newest common ancestor,
// then the bodies, and executing the blocks in order through the chain
// store, which verifies each with the consensus engine. Fork choice stays
// with the chain store (heaviest total difficulty), so syncing a heavier
// branch is a reorg and syncing a lighter one only stores side blocks.
//
// Downloading and execution overlap: one goroutine fetches headers and
// bodies (and recovers transaction senders) up to maxBatchesAhead batches
// ahead of the goroutine that inserts them.
//
// Blocks far behind the target are inserted as a bulk import (states
// written to disk every so many blocks, see chain.InsertOptions.NoSync) and
// the chain is flushed after every batch, so a crash during sync loses at
// most the unflushed batch and reopens consistently.
package chainsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/p2p/eth"
)

// Chain is the local chain (*chain.Chain).
type Chain interface {
	Config() *params.ChainConfig
	Hash(header *types.Header) common.Hash
	CurrentHeader() *types.Header
	HasBlock(hash common.Hash, number uint64) bool
	GetHeader(hash common.Hash, number uint64) *types.Header
	GetTD(hash common.Hash, number uint64) *big.Int
	EnsureState(hash common.Hash, header *types.Header) error
	InsertBlock(ctx context.Context, block *types.Block, opts chain.InsertOptions) (chain.InsertResult, error)
	Sync() error
}

// Peer is where blocks come from (*eth.Peer).
type Peer interface {
	ID() string
	RequestHeadersByHash(ctx context.Context, hash common.Hash, amount, skip int, reverse bool) ([]*types.Header, error)
	RequestHeadersByNumber(ctx context.Context, number uint64, amount, skip int, reverse bool) ([]*types.Header, error)
	RequestBodies(ctx context.Context, hashes []common.Hash) ([]*eth.BlockBody, error)
}

// ErrBadPeer wraps every failure that is the peer's fault: data that does
// not match what was asked or does not link up, and invalid blocks. The
// caller should disconnect the peer.
var ErrBadPeer = errors.New("peer sent invalid data")

// ErrHeadUnknown is returned when the peer does not serve the head it
// announced (it may have switched branches since).
var ErrHeadUnknown = errors.New("peer does not serve its head")

// Tuning.
const (
	// maxBatchesAhead is how many downloaded batches may wait for execution.
	maxBatchesAhead = 2
	// bulkDistance is how far behind the target a block must be for a bulk
	// insert; blocks near the head are inserted durably one by one.
	bulkDistance = 64
)

// Progress is the state of a running sync, for eth_syncing.
type Progress struct {
	// Starting is the local head number when the sync started.
	Starting uint64
	// Highest is the number of the block being synced to.
	Highest uint64
}

// Result is what a sync did.
type Result struct {
	// Imported is the number of blocks inserted.
	Imported int
	// Last is the hash of the last block of the peer's chain that is now
	// stored (the common ancestor if nothing was imported), and TD its total
	// difficulty: what the peer's head is known to weigh.
	Last common.Hash
	TD   *big.Int
}

// Syncer runs one sync at a time.
type Syncer struct {
	chain Chain
	log   *slog.Logger

	mu       sync.Mutex
	progress *Progress // nil when idle
}

// New returns a Syncer for c.
func New(c Chain, log *slog.Logger) *Syncer {
	if log == nil {
		log = slog.Default()
	}
	return &Syncer{chain: c, log: log}
}

// Progress returns the progress of the running sync, or nil.
func (s *Syncer) Progress() *Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progress == nil {
		return nil
	}
	p := *s.progress
	return &p
}

func (s *Syncer) setProgress(p *Progress) {
	s.mu.Lock()
	s.progress = p
	s.mu.Unlock()
}

// Sync downloads and inserts the peer's chain up to the block target (the
// head the peer announced). onStart, if not nil, is called once the target
// is known, before any block is inserted, with the progress to report.
func (s *Syncer) Sync(ctx context.Context, p Peer, target common.Hash, onStart func(Progress)) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer s.setProgress(nil)

	headers, err := p.RequestHeadersByHash(ctx, target, 1, 0, false)
	if err != nil {
		return Result{}, err
	}
	if len(headers) == 0 {
		return Result{}, ErrHeadUnknown
	}
	if s.chain.Hash(headers[0]) != target {
		return Result{}, fmt.Errorf("%w: asked for header %s, got %s", ErrBadPeer, target.Hex(), s.chain.Hash(headers[0]).Hex())
	}
	targetNumber := headers[0].Number.Uint64()

	ancestor, ancestorHash, err := s.findAncestor(ctx, p, targetNumber)
	if err != nil {
		return Result{}, err
	}
	res := Result{Last: ancestorHash, TD: s.chain.GetTD(ancestorHash, ancestor.Number.Uint64())}
	if ancestor.Number.Uint64() >= targetNumber {
		return res, nil
	}
	// Side branches start from states that bulk inserts may not have kept.
	if err := s.chain.EnsureState(ancestorHash, ancestor); err != nil {
		return res, fmt.Errorf("state of common ancestor %d: %w", ancestor.Number, err)
	}
	prog := Progress{Starting: s.chain.CurrentHeader().Number.Uint64(), Highest: targetNumber}
	s.setProgress(&prog)
	if onStart != nil {
		onStart(prog)
	}
	s.log.Info("Syncing", "peer", p.ID()[:16], "from", ancestor.Number.Uint64()+1, "to", targetNumber)

	batches := make(chan []*types.Block, maxBatchesAhead)
	fetchErr := make(chan error, 1)
	go func() {
		defer close(batches)
		fetchErr <- s.fetch(ctx, p, ancestor, ancestorHash, targetNumber, batches)
	}()
	err = s.execute(ctx, batches, targetNumber, &res)
	cancel()
	for range batches { // let the fetcher finish
	}
	if ferr := <-fetchErr; err == nil && ferr != nil && !errors.Is(ferr, context.Canceled) {
		err = ferr
	}
	if err == nil {
		s.log.Info("Sync finished", "peer", p.ID()[:16], "imported", res.Imported, "head", s.chain.CurrentHeader().Number)
	}
	return res, err
}

// findAncestor returns the newest block of the peer's chain (at or below
// the target) that the local chain also has. It asks for the
// eth.MaxHeaderFetch headers below the lower of the two heads first (a
// short fork or a plain catch-up), then binary-searches the rest.
func (s *Syncer) findAncestor(ctx context.Context, p Peer, targetNumber uint64) (*types.Header, common.Hash, error) {
	top := min(s.chain.CurrentHeader().Number.Uint64(), targetNumber)
	from := uint64(0)
	if top >= eth.MaxHeaderFetch {
		from = top - eth.MaxHeaderFetch + 1
	}
	headers, err := p.RequestHeadersByNumber(ctx, from, int(top-from+1), 0, false)
	if err != nil {
		return nil, common.Hash{}, err
	}
	if len(headers) == 0 {
		return nil, common.Hash{}, fmt.Errorf("%w: no headers from %d, below its head %d", ErrBadPeer, from, targetNumber)
	}
	for i := len(headers) - 1; i >= 0; i-- {
		h := headers[i]
		if h.Number.Uint64() != from+uint64(i) {
			return nil, common.Hash{}, fmt.Errorf("%w: header %d where %d was expected", ErrBadPeer, h.Number, from+uint64(i))
		}
	}
	for i := len(headers) - 1; i >= 0; i-- {
		h := headers[i]
		if hash := s.chain.Hash(h); s.chain.HasBlock(hash, h.Number.Uint64()) {
			return s.chain.GetHeader(hash, h.Number.Uint64()), hash, nil
		}
	}
	if from == 0 {
		return nil, common.Hash{}, fmt.Errorf("%w: no common block, not even the genesis", ErrBadPeer)
	}
	// Binary search: lo is known to be common (the genesis at first), hi
	// known not to be.
	lo, hi := uint64(0), from
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		hs, err := p.RequestHeadersByNumber(ctx, mid, 1, 0, false)
		if err != nil {
			return nil, common.Hash{}, err
		}
		if len(hs) != 1 || hs[0].Number.Uint64() != mid {
			return nil, common.Hash{}, fmt.Errorf("%w: bad answer for header %d", ErrBadPeer, mid)
		}
		if s.chain.HasBlock(s.chain.Hash(hs[0]), mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	hs, err := p.RequestHeadersByNumber(ctx, lo, 1, 0, false)
	if err != nil {
		return nil, common.Hash{}, err
	}
	if len(hs) != 1 {
		return nil, common.Hash{}, fmt.Errorf("%w: bad answer for header %d", ErrBadPeer, lo)
	}
	hash := s.chain.Hash(hs[0])
	header := s.chain.GetHeader(hash, lo)
	if header == nil {
		return nil, common.Hash{}, fmt.Errorf("%w: header %d changed during the ancestor search", ErrBadPeer, lo)
	}
	return header, hash, nil
}

// fetch downloads the blocks after the ancestor up to targetNumber and sends
// them in batches, senders recovered.
func (s *Syncer) fetch(ctx context.Context, p Peer, ancestor *types.Header, ancestorHash common.Hash, targetNumber uint64, out chan<- []*types.Block) error {
	parentHash := ancestorHash
	next := ancestor.Number.Uint64() + 1
	cfg := s.chain.Config()
	for next <= targetNumber {
		amount := min(uint64(eth.MaxHeaderFetch), targetNumber-next+1)
		headers, err := p.RequestHeadersByNumber(ctx, next, int(amount), 0, false)
		if err != nil {
			return err
		}
		if len(headers) == 0 {
			return fmt.Errorf("%w: no headers from %d, below its head %d", ErrBadPeer, next, targetNumber)
		}
		hashes := make([]common.Hash, len(headers))
		for i, h := range headers {
			if h.Number.Uint64() != next+uint64(i) {
				return fmt.Errorf("%w: header %d where %d was expected", ErrBadPeer, h.Number, next+uint64(i))
			}
			if h.ParentHash != parentHash {
				return fmt.Errorf("%w: header %d does not link to its parent", ErrBadPeer, h.Number)
			}
			hashes[i] = s.chain.Hash(h)
			parentHash = hashes[i]
		}
		bodies, err := s.fetchBodies(ctx, p, headers, hashes)
		if err != nil {
			return err
		}
		blocks := make([]*types.Block, len(headers))
		for i, h := range headers {
			blocks[i] = types.NewBlockWithHeader(h).WithBody(*bodies[i])
			signer := types.MakeSigner(cfg, h.Number, h.Time)
			for _, tx := range bodies[i].Transactions {
				types.Sender(signer, tx) // caches; an invalid one fails in execution
			}
		}
		select {
		case out <- blocks:
		case <-ctx.Done():
			return ctx.Err()
		}
		next += uint64(len(headers))
	}
	return nil
}

// fetchBodies returns the body of every header, asking the peer only for
// the non-empty ones and checking each answer against its header.
func (s *Syncer) fetchBodies(ctx context.Context, p Peer, headers []*types.Header, hashes []common.Hash) ([]*types.Body, error) {
	bodies := make([]*types.Body, len(headers))
	var want []int // indexes of headers whose body must be downloaded
	for i, h := range headers {
		if isEmpty(h) {
			b := &types.Body{}
			if h.WithdrawalsHash != nil {
				b.Withdrawals = []*types.Withdrawal{}
			}
			bodies[i] = b
		} else {
			want = append(want, i)
		}
	}
	for len(want) > 0 {
		n := min(len(want), eth.MaxBodyFetch)
		req := make([]common.Hash, n)
		for j := range n {
			req[j] = hashes[want[j]]
		}
		got, err := p.RequestBodies(ctx, req)
		if err != nil {
			return nil, err
		}
		if len(got) == 0 {
			return nil, fmt.Errorf("%w: no bodies for blocks %d and on", ErrBadPeer, headers[want[0]].Number)
		}
		for j, b := range got {
			h := headers[want[j]]
			if err := matchBody(h, b); err != nil {
				return nil, fmt.Errorf("%w: body of block %d: %v", ErrBadPeer, h.Number, err)
			}
			bodies[want[j]] = &types.Body{Transactions: b.Transactions, Uncles: b.Uncles, Withdrawals: b.Withdrawals}
		}
		want = want[len(got):]
	}
	return bodies, nil
}

// isEmpty reports whether a header's body is empty, so it need not be asked
// for.
func isEmpty(h *types.Header) bool {
	return h.TxHash == types.EmptyTxsHash && h.UncleHash == types.EmptyUncleHash &&
		(h.WithdrawalsHash == nil || *h.WithdrawalsHash == types.EmptyWithdrawalsHash)
}

// matchBody checks that body is the one h commits to.
func matchBody(h *types.Header, b *eth.BlockBody) error {
	if types.DeriveSha(types.Transactions(b.Transactions), trie.NewStackTrie(nil)) != h.TxHash {
		return errors.New("transactions root mismatch")
	}
	if types.CalcUncleHash(b.Uncles) != h.UncleHash {
		return errors.New("uncles hash mismatch")
	}
	switch {
	case h.WithdrawalsHash == nil && b.Withdrawals != nil:
		return errors.New("unexpected withdrawals")
	case h.WithdrawalsHash != nil && b.Withdrawals == nil:
		return errors.New("missing withdrawals")
	case h.WithdrawalsHash != nil && types.DeriveSha(types.Withdrawals(b.Withdrawals), trie.NewStackTrie(nil)) != *h.WithdrawalsHash:
		return errors.New("withdrawals root mismatch")
	}
	return nil
}

// execute inserts the downloaded batches in order.
func (s *Syncer) execute(ctx context.Context, batches <-chan []*types.Block, targetNumber uint64, res *Result) error {
	for batch := range batches {
		bulk := false
		for _, b := range batch {
			n := b.NumberU64()
			opts := chain.InsertOptions{NoSync: targetNumber-n > bulkDistance}
			r, err := s.chain.InsertBlock(ctx, b, opts)
			switch {
			case errors.Is(err, chain.ErrKnownBlock):
			case err != nil:
				if bulk {
					s.chain.Sync()
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("%w: %v", ErrBadPeer, err)
			default:
				res.Imported++
				bulk = bulk || opts.NoSync
			}
			res.Last = r.Hash
			res.TD = s.chain.GetTD(r.Hash, n)
		}
		if bulk {
			if err := s.chain.Sync(); err != nil {
				return err
			}
		}
	}
	return nil
}
