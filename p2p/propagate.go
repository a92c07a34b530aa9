package p2p

import (
	"context"
	"errors"
	"math"
	"math/big"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	gethp2p "github.com/ethereum/go-ethereum/p2p"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/p2p/eth"
	"github.com/basaltchain/basalt/txpool"
)

const (
	// farAhead is how far past the local head an announced block must be to
	// be synced rather than fetched on its own.
	farAhead = 32
	// fetchTimeout bounds the fetch of one announced block or transaction
	// batch.
	fetchTimeout = 15 * time.Second
	// maxTxFetch is the most transactions asked for in one request.
	maxTxFetch = 256
	// maxTxFetchQueue bounds the announced hashes waiting to be fetched
	// from one peer (go-ethereum's fetcher keeps as many per peer).
	maxTxFetchQueue = 4096
	// maxAnnouncedPool bounds the pool hashes announced to a new peer.
	maxAnnouncedPool = 4096
)

// blockJob is a block to import: propagated (td set) or fetched after an
// announcement (td nil).
type blockJob struct {
	peer  *eth.Peer
	block *types.Block
	td    *big.Int
}

// HandleNewBlock queues a propagated block for import.
func (s *Service) HandleNewBlock(p *eth.Peer, block *types.Block, td *big.Int) {
	hash := s.chain.Hash(block.Header())
	p.MarkBlock(hash)
	select {
	case s.blocks <- blockJob{peer: p, block: block, td: td}:
	default:
		s.log.Debug("Block import queue full, dropping block", "number", block.Number())
	}
}

// HandleBlockHashes fetches announced blocks that the local chain lacks;
// an announcement far ahead of the head starts a sync instead.
func (s *Service) HandleBlockHashes(p *eth.Peer, anns []eth.BlockAnnounce) {
	head := s.chain.CurrentHeader().Number.Uint64()
	for _, a := range anns {
		if s.chain.HasBlock(a.Hash, a.Number) {
			continue
		}
		if a.Number > head+farAhead {
			s.requestSync(p, a.Hash)
			continue
		}
		if !s.startFetch(s.fetchingBlock, a.Hash) {
			continue
		}
		s.spawnFetch(func(ctx context.Context) {
			s.fetchBlock(ctx, p, a)
		}, func() { s.endFetch(s.fetchingBlock, a.Hash) })
	}
}

// fetchBlock downloads one announced block and queues it for import.
func (s *Service) fetchBlock(ctx context.Context, p *eth.Peer, a eth.BlockAnnounce) {
	headers, err := p.RequestHeadersByHash(ctx, a.Hash, 1, 0, false)
	if err != nil || len(headers) == 0 {
		return
	}
	h := headers[0]
	if s.chain.Hash(h) != a.Hash || h.Number.Uint64() != a.Number {
		p.Penalize(eth.PenaltyUseless, "announced block served with another hash or number")
		return
	}
	body := &eth.BlockBody{}
	if h.WithdrawalsHash != nil {
		body.Withdrawals = []*types.Withdrawal{}
	}
	if h.TxHash != types.EmptyTxsHash || h.UncleHash != types.EmptyUncleHash ||
		(h.WithdrawalsHash != nil && *h.WithdrawalsHash != types.EmptyWithdrawalsHash) {
		bodies, err := p.RequestBodies(ctx, []common.Hash{a.Hash})
		if err != nil || len(bodies) != 1 {
			return
		}
		body = bodies[0]
	}
	block := types.NewBlockWithHeader(h).WithBody(types.Body{Transactions: body.Transactions, Uncles: body.Uncles, Withdrawals: body.Withdrawals})
	select {
	case s.blocks <- blockJob{peer: p, block: block}:
	case <-ctx.Done():
	}
}

// importLoop inserts queued blocks one at a time.
func (s *Service) importLoop() {
	for {
		select {
		case <-s.ctx.Done():
			return
		case job := <-s.blocks:
			s.importBlock(job)
		}
	}
}

func (s *Service) importBlock(job blockJob) {
	p, block := job.peer, job.block
	header := block.Header()
	hash, number := s.chain.Hash(header), header.Number.Uint64()
	if td := s.tdOf(hash, number); td != nil {
		s.notePeerHead(p, hash, td)
		return
	}
	parent := s.chain.GetHeader(header.ParentHash, number-1)
	if parent == nil {
		// The block does not connect: the peer is on a chain we lack.
		if job.td == nil || job.td.Cmp(s.chain.CurrentTD()) > 0 {
			if job.td != nil {
				s.notePeerHead(p, hash, job.td)
			}
			s.requestSync(p, hash)
		}
		return
	}
	if txs, uncles := len(block.Transactions()), len(block.Uncles()); txs > 0 || uncles > 0 {
		// Cheap check before execution: the body must be the header's.
		if err := chain.ValidateBody(block); err != nil {
			s.badBlock(p, number, err)
			return
		}
	}
	if err := s.chain.EnsureState(header.ParentHash, parent); err != nil {
		s.log.Warn("Parent state unavailable for propagated block", "number", number, "err", err)
		return
	}
	res, err := s.chain.InsertBlock(s.ctx, block, chain.InsertOptions{})
	switch {
	case errors.Is(err, chain.ErrKnownBlock):
		return
	case errors.Is(err, consensus.ErrFutureBlock):
		p.Penalize(eth.PenaltyUseless, "block from the future")
		return
	case err != nil:
		if s.ctx.Err() == nil {
			s.badBlock(p, number, err)
		}
		return
	}
	td := s.tdOf(hash, number)
	s.notePeerHead(p, hash, td)
	s.log.Debug("Imported propagated block", "number", number, "hash", hash.Hex(), "head", res.NewHead)
	if !res.NewHead {
		// Side blocks are relayed here; new heads by the head loop.
		s.broadcastBlock(block, hash, td)
	}
}

// badBlock disconnects a peer that sent an invalid block.
func (s *Service) badBlock(p *eth.Peer, number uint64, err error) {
	s.log.Warn("Invalid block from peer, disconnecting it", "peer", p.ID()[:16], "number", number, "err", err)
	p.Disconnect(gethp2p.DiscProtocolError)
}

// notePeerHead raises what we know of a peer's head.
func (s *Service) notePeerHead(p *eth.Peer, hash common.Hash, td *big.Int) {
	if td == nil {
		return
	}
	if _, cur := p.Head(); td.Cmp(cur) > 0 {
		p.SetHead(hash, td)
	}
}

// broadcastBlock sends a block to every peer that has not announced it. A
// peer the consensus engine believes holds it (Config.PeerHasBlock: a
// validator that sent a commit for it) gets its hash only: it has the
// proposal, but a commit sent is not a commit reached, and a validator
// that missed the others' commits learns of the block only this way (with
// no announcement at all, two of four validators stuck one height behind
// halted a network under load). Every other peer gets the
// whole block, as Besu does, while there are at most
// wholeBlockPeers of them (every peer getting the whole block at once makes
// forks resolve fastest); beyond that the whole block to √n of them and its
// hash to the others, as go-ethereum did before the merge, which fetch it
// if they lack it. A hundred BFT validators all commit each block
// themselves: each sending it whole to the 99 others was 9,900 copies of
// a block with 100 seals a block period. Post-merge blocks are not
// gossiped.
func (s *Service) broadcastBlock(block *types.Block, hash common.Hash, td *big.Int) {
	if block.Difficulty().Sign() == 0 || td == nil {
		return
	}
	var lacking []*eth.Peer
	for _, p := range s.peerList() {
		if p.KnowsBlock(hash) {
			continue
		}
		if s.cfg.PeerHasBlock != nil && s.cfg.PeerHasBlock(p.NodeID(), hash) {
			p.AsyncSendNewBlockHash(hash, block.NumberU64())
			continue
		}
		lacking = append(lacking, p)
	}
	whole := wholeBlockSends(len(lacking))
	for i, p := range lacking {
		if i < whole {
			p.AsyncSendNewBlock(block, hash, td)
		} else {
			p.AsyncSendNewBlockHash(hash, block.NumberU64())
		}
	}
}

// wholeBlockPeers is how many peers lacking a block may all be sent it
// whole (Besu's default --max-peers is 25).
const wholeBlockPeers = 25

// wholeBlockSends is how many of n peers lacking a block get it whole.
func wholeBlockSends(n int) int {
	if n <= wholeBlockPeers {
		return n
	}
	return int(math.Ceil(math.Sqrt(float64(n))))
}

// headLoop announces every new head, unless a sync is importing a batch
// (the sync announces its last block when done).
func (s *Service) headLoop() {
	heads := make(chan chain.HeadEvent, 64)
	sub := s.chain.SubscribeHead(heads)
	defer sub.Unsubscribe()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-sub.Err():
			return
		case ev := <-heads:
			if s.syncer.Progress() != nil || len(ev.Added) == 0 {
				continue
			}
			block := ev.Added[len(ev.Added)-1]
			s.broadcastBlock(block, ev.Hash, s.tdOf(ev.Hash, block.NumberU64()))
		}
	}
}

// HandleTransactions adds propagated transactions to the pool; the pool
// drops those it has.
func (s *Service) HandleTransactions(_ *eth.Peer, txs []*types.Transaction) {
	s.pool.AddRemotes(txs)
}

// HandleTxHashes queues announced transactions the pool lacks for fetching
// from the announcing peer. Blob transactions are not fetched: the pool
// does not take them. Each peer has one queue of at most maxTxFetchQueue
// hashes (the rest of an announcement beyond it is dropped) and at most one
// goroutine that fetches it, maxTxFetch hashes a request, in the order
// announced: a peer that announces its pool sender by sender in nonce
// order (see pooledForAnnouncement) is fetched in that order. A hash
// already being fetched from some peer is not queued again.
func (s *Service) HandleTxHashes(p *eth.Peer, ann *eth.PooledHashes) {
	want := make([]common.Hash, 0, len(ann.Hashes))
	for i, h := range ann.Hashes {
		if ann.Types != nil && ann.Types[i] == types.BlobTxType {
			continue
		}
		if !s.pool.Has(h) {
			want = append(want, h)
		}
	}
	if len(want) == 0 || s.ctx.Err() != nil {
		return
	}
	s.fetchMu.Lock()
	q := s.txQueues[p]
	if q == nil {
		q = &txFetchQueue{}
		s.txQueues[p] = q
	}
	for _, h := range want {
		if len(q.hashes) >= maxTxFetchQueue {
			break
		}
		if _, busy := s.fetchingTxs[h]; busy {
			continue
		}
		s.fetchingTxs[h] = struct{}{}
		q.hashes = append(q.hashes, h)
	}
	start := !q.running && len(q.hashes) > 0
	if start {
		q.running = true
	}
	s.fetchMu.Unlock()
	if start {
		s.wg.Add(1)
		go s.fetchTxs(p, q)
	}
}

// txFetchQueue is what is still to be fetched from one peer. Guarded by
// Service.fetchMu.
type txFetchQueue struct {
	hashes  []common.Hash
	running bool // a fetchTxs goroutine serves the queue
	gone    bool // the peer disconnected
}

// fetchTxs fetches q's hashes from p, a batch at a time, until the queue
// is empty, the peer is gone or the service stops; then it releases what
// is left.
func (s *Service) fetchTxs(p *eth.Peer, q *txFetchQueue) {
	defer s.wg.Done()
	for {
		s.fetchMu.Lock()
		if len(q.hashes) == 0 || s.ctx.Err() != nil || q.gone {
			for _, h := range q.hashes {
				delete(s.fetchingTxs, h)
			}
			q.hashes, q.running = nil, false
			if q.gone {
				delete(s.txQueues, p)
			}
			s.fetchMu.Unlock()
			return
		}
		n := min(len(q.hashes), maxTxFetch)
		batch := slices.Clone(q.hashes[:n])
		q.hashes = append(q.hashes[:0], q.hashes[n:]...)
		s.fetchMu.Unlock()

		ctx, cancel := context.WithTimeout(s.ctx, fetchTimeout)
		txs, err := p.RequestPooledTransactions(ctx, batch)
		cancel()
		if err == nil {
			s.addFetched(p, batch, txs)
		}
		s.endFetch(s.fetchingTxs, batch...)
		if errors.Is(err, eth.ErrPeerGone) {
			s.fetchMu.Lock()
			q.gone = true
			s.fetchMu.Unlock()
		}
	}
}

// addFetched adds the transactions p sent for the hashes asked; one that
// was not asked for costs p reputation and the answer is dropped.
func (s *Service) addFetched(p *eth.Peer, asked []common.Hash, txs []*types.Transaction) {
	set := make(map[common.Hash]bool, len(asked))
	for _, h := range asked {
		set[h] = true
	}
	for _, tx := range txs {
		if !set[tx.Hash()] {
			p.Penalize(eth.PenaltyUseless, "pooled transaction not asked for")
			return
		}
	}
	s.pool.AddRemotes(txs)
}

// forgetTxQueue drops a disconnected peer's fetch queue (its goroutine, if
// one runs, drops it when it ends).
func (s *Service) forgetTxQueue(p *eth.Peer) {
	s.fetchMu.Lock()
	defer s.fetchMu.Unlock()
	q := s.txQueues[p]
	if q == nil {
		return
	}
	q.gone = true
	if !q.running {
		delete(s.txQueues, p)
	}
}

// txLoop relays what the pool accepts: whole transactions to the square
// root of the peers, hashes to the others (as go-ethereum and Besu do),
// queued ones too (as Besu does: a sender's nonces submitted round-robin to
// several nodes meet on every node). Transactions that become executable
// are announced again, by hash, to every peer (announcePromoted).
func (s *Service) txLoop() {
	ch := make(chan txpool.NewTxsEvent, 256)
	sub := s.pool.SubscribeNewTxs(ch)
	defer sub.Unsubscribe()
	promoted := make(chan txpool.PromotedTxsEvent, 256)
	psub := s.pool.SubscribePromotedTxs(promoted)
	defer psub.Unsubscribe()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-sub.Err():
			return
		case <-psub.Err():
			return
		case ev := <-ch:
			s.broadcastTxs(ev.Txs)
		case ev := <-promoted:
			s.announcePromoted(ev.Txs)
		}
	}
}

func (s *Service) broadcastTxs(txs []*types.Transaction) {
	peers := s.peerList()
	direct := int(math.Ceil(math.Sqrt(float64(len(peers)))))
	for i, p := range peers {
		var unknown []*types.Transaction
		for _, tx := range txs {
			if !p.KnowsTx(tx.Hash()) {
				unknown = append(unknown, tx)
			}
		}
		if len(unknown) == 0 {
			continue
		}
		if i < direct {
			p.AsyncSendTransactions(unknown)
		} else {
			p.AsyncSendPooledHashes(unknown)
		}
	}
}

// announcePromoted announces transactions that just became executable to
// every peer by hash, including peers thought to have them: a peer told of
// a transaction while it was queued may have refused it (a nonce gap wider
// than its limit, a full pool) and would otherwise never hear of it again
// (go-ethereum announces only executable transactions, and so at this
// point). A peer that has it drops the announcement; one that lacks it
// fetches it. Each promotion is announced once per peer, so this is
// bounded by the pool's own promotions.
func (s *Service) announcePromoted(txs []*types.Transaction) {
	for _, p := range s.peerList() {
		p.AsyncSendPooledHashes(txs)
	}
}

// pooledForAnnouncement lists the pool's transactions to announce to a new
// peer: the executable ones, then the queued ones (behind a nonce gap),
// each sender's in nonce order, at most maxAnnouncedPool. go-ethereum
// announces only executable transactions; Basalt, as Besu, announces the
// queued ones too, so that the nonces of a sender who submitted to several
// nodes meet on every node after a restart (each node's journal replays
// only what that node acknowledged) and a gap one node has is filled from
// another.
func (s *Service) pooledForAnnouncement() []*types.Transaction {
	pending, queued := s.pool.Content()
	var out []*types.Transaction
	for _, set := range []map[common.Address][]*types.Transaction{pending, queued} {
		for _, txs := range set {
			if n := maxAnnouncedPool - len(out); len(txs) > n {
				return append(out, txs[:n]...)
			}
			out = append(out, txs...)
		}
	}
	return out
}

// startFetch marks hash as being fetched; false if it already is.
func (s *Service) startFetch(set map[common.Hash]struct{}, hash common.Hash) bool {
	s.fetchMu.Lock()
	defer s.fetchMu.Unlock()
	if _, busy := set[hash]; busy {
		return false
	}
	set[hash] = struct{}{}
	return true
}

func (s *Service) endFetch(set map[common.Hash]struct{}, hashes ...common.Hash) {
	s.fetchMu.Lock()
	defer s.fetchMu.Unlock()
	for _, h := range hashes {
		delete(set, h)
	}
}

// spawnFetch runs f in a goroutine the service waits for on Stop, with at
// most cap(fetchSlots) running at once; when all slots are busy the fetch
// is skipped (the item will be announced again). done runs in either case
// when the fetch is over.
func (s *Service) spawnFetch(f func(ctx context.Context), done func()) {
	select {
	case s.fetchSlots <- struct{}{}:
	default:
		done()
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.fetchSlots }()
		defer done()
		ctx, cancel := context.WithTimeout(s.ctx, fetchTimeout)
		defer cancel()
		f(ctx)
	}()
}
