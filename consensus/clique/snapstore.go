package clique

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus"
)

// snapshotKeyPrefix starts the database key of a persisted snapshot,
// followed by the block hash. The chain store's keys start with "bc" and
// go-ethereum's state keys with other prefixes, so they cannot collide.
var snapshotKeyPrefix = []byte("cliqueSnap-")

func snapshotKey(hash common.Hash) []byte {
	return append(append([]byte{}, snapshotKeyPrefix...), hash[:]...)
}

// snapshot returns the signer state after block (number, hash). It starts
// from the nearest snapshot it has: one in memory, one persisted at a
// multiple of 1,024 blocks, or the genesis block's signer list, and
// replays the headers after it. The result is cached; one whose block
// number is a multiple of 1,024 is also persisted, so a restart replays at
// most 1,023 headers.
//
// The walk reads headers by hash, so it works for side chains as well as
// the canonical one. This is the only place the engine reads storage; the
// rules themselves are Snapshot.apply.
func (e *Engine) snapshot(chain consensus.ChainReader, number uint64, hash common.Hash) (*Snapshot, error) {
	if s, ok := e.snaps.Get(hash); ok {
		return s, nil
	}
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	var (
		headers []*types.Header
		base    *Snapshot
		source  string
	)
	for base == nil {
		if s, ok := e.snaps.Get(hash); ok {
			base, source = s, "memory"
			break
		}
		if number%checkpointInterval == 0 {
			if s := e.loadSnapshot(hash); s != nil {
				base, source = s, "disk"
				break
			}
		}
		if number == 0 {
			genesis := chain.GetHeader(hash, 0)
			if genesis == nil {
				return nil, fmt.Errorf("clique: genesis %s: %w", hash.Hex(), consensus.ErrUnknownAncestor)
			}
			ex, err := ParseExtra(genesis.Extra)
			if err != nil {
				return nil, fmt.Errorf("clique: genesis extraData: %w", err)
			}
			base, source = newSnapshot(0, hash, ex.Signers), "genesis"
			e.storeSnapshot(base)
			break
		}
		h := chain.GetHeader(hash, number)
		if h == nil {
			return nil, fmt.Errorf("clique: block %d %s: %w", number, hash.Hex(), consensus.ErrUnknownAncestor)
		}
		headers = append(headers, h)
		number, hash = number-1, h.ParentHash
	}
	if len(headers) == 0 {
		return base, nil
	}
	start := time.Now()
	slices.Reverse(headers)
	snap, err := e.replay(base, headers)
	if err != nil {
		return nil, err
	}
	level := slog.LevelDebug
	if len(headers) > replayLogThreshold {
		level = slog.LevelInfo
	}
	e.log.Log(context.Background(), level, "Clique signer state rebuilt", "number", snap.Number, "from", base.Number,
		"source", source, "headers", len(headers), "signers", len(snap.Signers), "elapsed", time.Since(start))
	return snap, nil
}

// snapshotAfter returns the signer state after header, which need not be
// stored (fork choice asks about blocks being inserted).
func (e *Engine) snapshotAfter(chain consensus.ChainReader, header *types.Header) (*Snapshot, error) {
	hash := header.Hash()
	if s, ok := e.snaps.Get(hash); ok {
		return s, nil
	}
	parent, err := e.snapshot(chain, header.Number.Uint64()-1, header.ParentHash)
	if err != nil {
		return nil, err
	}
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	return e.replay(parent, []*types.Header{header})
}

// cacheAfter caches the state after header (hash, sealed by signer) given
// parent, the state before it, unless it is cached already. header has
// passed verification, so applying it cannot fail; if it did, nothing is
// cached and the state is rebuilt when asked for.
func (e *Engine) cacheAfter(parent *Snapshot, header *types.Header, hash common.Hash, signer common.Address) {
	if e.snaps.Contains(hash) {
		return
	}
	snap, err := parent.apply([]*types.Header{header}, []common.Address{signer}, []common.Hash{hash}, e.cfg.Epoch)
	if err != nil {
		return
	}
	e.snaps.Add(hash, snap)
	if snap.Number%checkpointInterval == 0 {
		e.storeSnapshot(snap)
	}
}

// replay applies headers to base, caching (and at checkpoints persisting)
// the result.
func (e *Engine) replay(base *Snapshot, headers []*types.Header) (*Snapshot, error) {
	signers := make([]common.Address, len(headers))
	hashes := make([]common.Hash, len(headers))
	for i, h := range headers {
		hashes[i] = h.Hash()
		s, err := e.signerOfHash(h, hashes[i])
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", h.Number, err)
		}
		signers[i] = s
	}
	snap, err := base.apply(headers, signers, hashes, e.cfg.Epoch)
	if err != nil {
		return nil, err
	}
	e.snaps.Add(snap.Hash, snap)
	if snap.Number%checkpointInterval == 0 {
		e.storeSnapshot(snap)
	}
	return snap, nil
}

// loadSnapshot reads a persisted snapshot, nil if there is none (or no
// database).
func (e *Engine) loadSnapshot(hash common.Hash) *Snapshot {
	if e.db == nil {
		return nil
	}
	data, err := e.db.Get(snapshotKey(hash))
	if err != nil || len(data) == 0 {
		return nil
	}
	s, err := unmarshalSnapshot(data)
	if err != nil || s.Hash != hash {
		e.log.Warn("Ignoring unreadable clique snapshot", "hash", hash.Hex(), "err", err)
		return nil
	}
	e.snaps.Add(hash, s)
	return s
}

// storeSnapshot persists s and caches it. A failed write only costs a
// longer replay after a restart, so it is logged, not returned. Snapshots
// are keyed by block hash, so one written for a block that never makes it
// into the chain (a crash between verification and insertion) is harmless.
func (e *Engine) storeSnapshot(s *Snapshot) {
	e.snaps.Add(s.Hash, s)
	if e.db == nil {
		return
	}
	data, err := s.marshal()
	if err == nil {
		err = e.db.Put(snapshotKey(s.Hash), data)
	}
	if err != nil {
		e.log.Warn("Cannot persist clique snapshot", "number", s.Number, "err", err)
	}
}
