package chain

import (
	"runtime"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// WithKnownTxs gives the chain a lookup of transactions whose senders are
// already recovered, by hash: the node's pool. A block from a peer carries
// fresh copies of transactions the pool has usually recovered when they
// were gossiped; with this the chain reuses those senders instead of
// recovering each signature again, which on a validator of a busy network
// is the largest cost of a transfer block after the pool's own recovery.
// known must be safe for concurrent use and may return nil.
func WithKnownTxs(known func(common.Hash) *types.Transaction) ExecOption {
	return func(o *execOptions) { o.knownTx = known }
}

// RecoverSenders recovers (and caches in each transaction) the senders of a
// block's transactions on all cores, with signer (the executor's,
// Executor.Signer, so that execution finds them cached). Signature
// recovery is most of the cost of a transfer-heavy block. A transaction
// known gives (nil: none) is not recovered again: its sender is taken from
// the known copy, which has the same hash and so the same signature.
func RecoverSenders(signer types.Signer, block *types.Block, known func(common.Hash) *types.Transaction) {
	txs := block.Transactions()
	senderOf := func(tx *types.Transaction) {
		if known != nil {
			if k := known(tx.Hash()); k != nil && k != tx {
				if from, err := types.Sender(signer, k); err == nil {
					types.Sender(knownSender{signer, from}, tx) // caches from in tx
					return
				}
			}
		}
		types.Sender(signer, tx) // an invalid signature fails later, in execution
	}
	workers := min(runtime.GOMAXPROCS(0), len(txs)/16)
	if workers < 2 {
		if known != nil {
			for _, tx := range txs {
				senderOf(tx)
			}
		}
		return // else not worth the goroutines: execution recovers them inline
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(txs); i += workers {
				senderOf(txs[i])
			}
		}()
	}
	wg.Wait()
}

// knownSender is signer with one transaction's sender already known.
// types.Sender caches the answer in the transaction together with the
// signer that gave it, and later calls with a signer Equal to it hit that
// cache: Equal is the wrapped signer's, so the executor's signer finds
// the sender cached.
type knownSender struct {
	types.Signer
	from common.Address
}

func (s knownSender) Sender(*types.Transaction) (common.Address, error) { return s.from, nil }

func (s knownSender) Equal(other types.Signer) bool { return s.Signer.Equal(other) }
