package chain

import (
	"runtime"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"
)

// RecoverSenders recovers (and caches in each transaction) the senders of a
// block's transactions on all cores, with signer (the executor's,
// Executor.Signer, so that execution finds them cached), so execution finds them ready. Signature
// recovery is most of the cost of a transfer-heavy block.
func RecoverSenders(signer types.Signer, block *types.Block) {
	txs := block.Transactions()
	workers := min(runtime.GOMAXPROCS(0), len(txs)/16)
	if workers < 2 {
		return // not worth the goroutines; execution recovers them inline
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(txs); i += workers {
				types.Sender(signer, txs[i]) // an invalid signature fails later, in execution
			}
		}()
	}
	wg.Wait()
}
