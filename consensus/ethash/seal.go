package ethash

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// meterBatch is how many hashes a mining goroutine computes between two
// updates of the hash-rate meter (about 10 ms of work).
const meterBatch = 16

type sealResult struct {
	nonce uint64
	mix   common.Hash
}

// Seal searches for a nonce that makes header's proof of work meet its
// difficulty, with Threads goroutines starting from a random nonce, and
// returns a copy of header with Nonce and MixDigest set. It returns
// ctx.Err() if ctx ends first. All its goroutines have stopped when it
// returns. The first Seal of an epoch waits for the epoch's cache.
func (e *Ethash) Seal(ctx context.Context, header *types.Header) (*types.Header, error) {
	if header.Number == nil || !header.Number.IsUint64() {
		return nil, fmt.Errorf("seal: invalid block number %v", header.Number)
	}
	if header.Difficulty == nil || header.Difficulty.Sign() <= 0 {
		return nil, fmt.Errorf("seal: non-positive difficulty %v", header.Difficulty)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sealed := types.CopyHeader(header)
	sh, err := sealHash(sealed)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	c, err := e.cache(sealed.Number.Uint64())
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	target, always := targetBytes(sealed.Difficulty)

	mineCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	found := make(chan sealResult, 1)
	var wg sync.WaitGroup
	start := rand.Uint64()
	step := uint64(e.threads)
	for i := range e.threads {
		wg.Go(func() {
			e.mine(mineCtx, c, sh, target, always, start+uint64(i), step, found)
		})
	}

	var (
		res sealResult
		ok  bool
	)
	select {
	case res = <-found:
		ok = true
	case <-mineCtx.Done():
	}
	cancel()
	wg.Wait()
	if !ok {
		// mineCtx ends before a result only when ctx does.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("seal: stopped without a result")
	}
	sealed.Nonce = types.EncodeNonce(res.nonce)
	sealed.MixDigest = res.mix
	return sealed, nil
}

// targetBytes returns Target(difficulty) as 32 big-endian bytes, or always
// when the target is 2^256 (difficulty 1), which every result meets.
func targetBytes(difficulty *big.Int) (target [32]byte, always bool) {
	t := Target(difficulty)
	if t.BitLen() > 256 {
		return target, true
	}
	t.FillBytes(target[:])
	return target, false
}

// mine tries nonce, nonce+step, nonce+2·step, … until one meets target or
// ctx ends; the first result found is offered on found (never blocking).
func (e *Ethash) mine(ctx context.Context, c *epochCache, sealHash common.Hash, target [32]byte, always bool, nonce, step uint64, found chan<- sealResult) {
	h := newHasher()
	var count uint64
	defer func() { e.meter.mark(count) }()
	for {
		select {
		case <-ctx.Done():
			return
		default:
		}
		digest, result := h.hashimotoLight(c.data, c.datasetSize, sealHash[:], nonce)
		count++
		// A light hash takes milliseconds; yielding after each lets the
		// node's other goroutines (JSON-RPC requests) run now rather than
		// at the next preemption, 10 ms away, which set their tail latency.
		runtime.Gosched()
		if always || bytes.Compare(result[:], target[:]) <= 0 {
			select {
			case found <- sealResult{nonce: nonce, mix: common.Hash(digest)}:
			default: // another goroutine was first
			}
			return
		}
		if count == meterBatch {
			e.meter.mark(count)
			count = 0
		}
		nonce += step
	}
}
