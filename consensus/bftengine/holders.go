package bftengine

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/p2p/enode"
)

// holderDigests is how many recent block digests holders remembers: a
// block is announced right after its commit, so a few heights (and a few
// rounds of each) are enough.
const holderDigests = 16

// holders remembers, for the most recent block digests, the validators a
// commit for the digest came from. A validator that sent a commit for a
// block has the block (its proposal) and receives the same commits this
// node did, so it usually commits the block itself: the p2p service sends
// it the block's hash only, once committed here (PeerHasBlock). A
// validator that missed the commits fetches the block from that hash; it
// must be told, since without it there may be no quorum for a next block.
type holders struct {
	mu    sync.Mutex
	by    map[common.Hash]map[common.Address]struct{}
	ring  [holderDigests]common.Hash
	used  int
	next  int
	limit int
}

func newHolders() *holders {
	return &holders{by: make(map[common.Hash]map[common.Address]struct{}), limit: holderDigests}
}

// add records that author sent a commit for digest.
func (h *holders) add(digest common.Hash, author common.Address) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set, ok := h.by[digest]
	if !ok {
		if h.used == h.limit {
			delete(h.by, h.ring[h.next])
		} else {
			h.used++
		}
		h.ring[h.next] = digest
		h.next = (h.next + 1) % h.limit
		set = make(map[common.Address]struct{})
		h.by[digest] = set
	}
	set[author] = struct{}{}
}

// has reports whether author sent a commit for digest.
func (h *holders) has(digest common.Hash, author common.Address) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.by[digest][author]
	return ok
}

// digests returns how many digests are remembered.
func (h *holders) digests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.by)
}

// PeerHasBlock implements consensus.BlockHolders: peer has block hash when
// the validator it runs sent this node a commit for it.
func (e *Engine) PeerHasBlock(peer enode.ID, hash common.Hash) bool {
	for _, n := range e.nets {
		if addr, ok := n.transport.PeerAddress(peer); ok && e.holders.has(hash, addr) {
			return true
		}
	}
	return false
}
