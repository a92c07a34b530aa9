package p2p

import (
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common"
	gethp2p "github.com/ethereum/go-ethereum/p2p"

	"github.com/basaltchain/basalt/p2p/chainsync"
	"github.com/basaltchain/basalt/p2p/eth"
)

const (
	// syncCheckInterval is how often the sync loop looks for a heavier
	// peer without being asked.
	syncCheckInterval = 10 * time.Second
	// syncTolerance is how far behind its target a sync must start to count
	// as synchronising (eth_syncing, paused mining): catching up a block or
	// two after a missed announcement or a short fork does not. Besu uses
	// the same tolerance of 5 blocks.
	syncTolerance = 5
)

// syncRequest asks the sync loop to sync: to hash from peer, or, with a nil
// peer, from the heaviest peer to its head.
type syncRequest struct {
	peer *eth.Peer
	hash common.Hash
}

// requestSync asks for a sync without waiting; a request arriving while
// the queue is full is dropped (the periodic check catches up).
func (s *Service) requestSync(p *eth.Peer, hash common.Hash) {
	select {
	case s.syncReqs <- syncRequest{peer: p, hash: hash}:
	default:
	}
}

func (s *Service) syncLoop() {
	ticker := time.NewTicker(syncCheckInterval)
	defer ticker.Stop()
	for {
		var req syncRequest
		select {
		case <-s.ctx.Done():
			return
		case <-ticker.C:
		case req = <-s.syncReqs:
		}
		s.runSync(req)
	}
}

// runSync syncs as asked, then keeps syncing from the heaviest peer while
// one is heavier than the local chain.
func (s *Service) runSync(req syncRequest) {
	for s.ctx.Err() == nil {
		p, target := req.peer, req.hash
		req = syncRequest{}
		if p == nil {
			if p, target = s.heaviestPeer(); p == nil {
				return
			}
		}
		select {
		case <-p.Done():
			continue
		default:
		}
		headBefore := s.chain.CurrentHash()
		res, err := s.syncer.Sync(s.ctx, p, target, func(pr chainsync.Progress) {
			s.notePeerNumber(p, pr.Highest)
			s.onSyncStart(pr)
		})
		s.setSyncing(nil)
		if head := s.chain.CurrentHash(); head != headBefore {
			// The head loop stays quiet during a sync: announce where it ended.
			header := s.chain.CurrentHeader()
			if block := s.chain.GetBlock(head, header.Number.Uint64()); block != nil {
				s.broadcastBlock(block, head, s.tdOf(head, header.Number.Uint64()))
			}
		}
		switch {
		case errors.Is(err, chainsync.ErrBadPeer):
			s.log.Warn("Peer sent invalid chain data, disconnecting it", "peer", p.ID()[:16], "err", err)
			p.Disconnect(gethp2p.DiscProtocolError)
			return
		case errors.Is(err, chainsync.ErrHeadUnknown):
			s.forgetPeerNumber(p)
			p.Penalize(eth.PenaltyUseless, "does not serve its head")
			p.SetHead(target, s.chain.CurrentTD())
			return
		case err != nil:
			if s.ctx.Err() == nil {
				s.log.Debug("Sync stopped", "peer", p.ID()[:16], "err", err)
			}
			return
		}
		// What the peer's chain weighs is now known, whatever it claimed.
		if res.TD != nil {
			p.SetHead(res.Last, res.TD)
		}
		if res.Imported == 0 {
			return
		}
	}
}

// heaviestPeer returns the peer with the greatest total difficulty, if it
// is greater than the local chain's, and its head.
func (s *Service) heaviestPeer() (*eth.Peer, common.Hash) {
	local := s.chain.CurrentTD()
	var (
		best     *eth.Peer
		bestHead common.Hash
	)
	for _, p := range s.peerList() {
		head, td := p.Head()
		if td.Cmp(local) <= 0 {
			continue
		}
		if best == nil {
			best, bestHead = p, head
			continue
		}
		_, bestTD := best.Head()
		if c := td.Cmp(bestTD); c > 0 || (c == 0 && p.Reputation() > best.Reputation()) {
			best, bestHead = p, head
		}
	}
	return best, bestHead
}

// onSyncStart reports the node as synchronising when the target is more
// than syncTolerance blocks ahead.
func (s *Service) onSyncStart(p chainsync.Progress) {
	if p.Highest > s.chain.CurrentHeader().Number.Uint64()+syncTolerance {
		s.setSyncing(&SyncStatus{StartingBlock: p.Starting, HighestBlock: p.Highest})
	}
}

// setSyncing records the sync state and pauses or resumes the miner.
func (s *Service) setSyncing(st *SyncStatus) {
	old := s.syncStatus.Swap(st)
	if s.miner == nil || (old == nil) == (st == nil) {
		return
	}
	s.miner.SetPaused(st != nil)
	if st != nil {
		s.log.Info("Synchronising, mining paused", "from", st.StartingBlock, "to", st.HighestBlock)
	} else {
		s.log.Info("Synchronised", "head", s.chain.CurrentHeader().Number)
	}
}

// Syncing returns the progress of a running sync: the head when it
// started, the current head, and the highest block known among peers (at
// least the current head). ok is false when the node is not synchronising.
func (s *Service) Syncing() (starting, current, highest uint64, ok bool) {
	st := s.syncStatus.Load()
	if st == nil {
		return 0, 0, 0, false
	}
	current = s.chain.CurrentHeader().Number.Uint64()
	return st.StartingBlock, current, max(st.HighestBlock, current), true
}
