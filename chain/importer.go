package chain

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// ImportStats summarises an import run.
type ImportStats struct {
	Imported uint64 // blocks executed and stored
	Skipped  uint64 // genesis and already-known blocks
	Gas      uint64 // gas of imported blocks
	Txs      uint64
}

// ImportOptions tune Import.
type ImportOptions struct {
	SkipSeal bool
	// Progress is called after every block (from the importing goroutine).
	Progress func(ImportStats, *types.Header)
}

// Import reads concatenated RLP blocks from r and inserts them in order.
// The genesis block and blocks already stored are skipped. It stops between
// blocks when ctx is cancelled; every inserted block is durable on its own,
// so an interrupted import leaves a consistent chain.
//
// Decoding and sender recovery run ahead of execution on the other cores.
func (c *Chain) Import(ctx context.Context, r io.Reader, opts ImportOptions) (ImportStats, error) {
	var stats ImportStats
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer c.Sync()

	blocks, errc := decodeBlocks(ctx, r, c.exec.Signer)
	for d := range blocks {
		if ctx.Err() != nil {
			break
		}
		block := d.block
		if block.NumberU64() == 0 {
			stats.Skipped++
			continue
		}
		d.senders.finish()
		res, err := c.InsertBlock(ctx, block, InsertOptions{SkipSeal: opts.SkipSeal, NoSync: true, SendersRecovered: true})
		switch {
		case errors.Is(err, ErrKnownBlock):
			stats.Skipped++
		case err != nil:
			return stats, err
		default:
			stats.Imported++
			stats.Gas += res.GasUsed
			stats.Txs += uint64(len(block.Transactions()))
		}
		if opts.Progress != nil {
			opts.Progress(stats, block.Header())
		}
	}
	if err := <-errc; err != nil {
		return stats, err
	}
	return stats, ctx.Err()
}

// decodedBlock is a block on its way to execution with the recovery of
// its transactions' senders.
type decodedBlock struct {
	block   *types.Block
	senders *senderRecovery
}

// senderRecovery recovers a block's senders (caching each in its
// transaction), shared by a recovery worker running ahead and the
// importer: each claims the next unrecovered transaction, so no signature
// is recovered twice and the importer, reaching a block the workers have
// not finished, recovers the rest itself instead of waiting.
type senderRecovery struct {
	signer  types.Signer
	txs     types.Transactions
	next    atomic.Int64
	pending sync.WaitGroup // one per transaction, done once recovered
}

func newSenderRecovery(signer types.Signer, block *types.Block) *senderRecovery {
	r := &senderRecovery{signer: signer, txs: block.Transactions()}
	r.pending.Add(len(r.txs))
	return r
}

// run recovers unclaimed senders until none is left.
func (r *senderRecovery) run() {
	for {
		i := r.next.Add(1) - 1
		if i >= int64(len(r.txs)) {
			return
		}
		types.Sender(r.signer, r.txs[i]) // caches; an invalid signature fails later, in execution
		r.pending.Done()
	}
}

// finish recovers what no worker has claimed and waits for the rest.
func (r *senderRecovery) finish() {
	r.run()
	r.pending.Wait()
}

// decodeBlocks streams blocks from r in order, recovering transaction
// senders ahead of execution on the other cores.
func decodeBlocks(ctx context.Context, r io.Reader, signerFor func(*types.Header) types.Signer) (<-chan decodedBlock, <-chan error) {
	var (
		out     = make(chan decodedBlock, 64)
		errc    = make(chan error, 1)
		work    = make(chan *senderRecovery, 256)
		workers = max(runtime.GOMAXPROCS(0)-1, 1)
		wg      sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rec := range work {
				rec.run()
			}
		}()
	}
	go func() {
		defer func() {
			close(work)
			wg.Wait()
			close(out)
			select {
			case errc <- nil:
			default:
			}
		}()
		stream := rlp.NewStream(bufio.NewReaderSize(r, 1<<20), 0)
		for n := 0; ; n++ {
			block := new(types.Block)
			if err := stream.Decode(block); err != nil {
				if err != io.EOF {
					errc <- fmt.Errorf("decode block at position %d: %w", n, err)
				}
				return
			}
			d := decodedBlock{block: block, senders: newSenderRecovery(signerFor(block.Header()), block)}
			select {
			case work <- d.senders:
			case <-ctx.Done():
				return
			}
			select {
			case out <- d:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, errc
}
