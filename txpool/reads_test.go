package txpool

import (
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// TestConcurrentReads runs the TXPOOL methods' reads (Stats, Content,
// ContentFrom, Transactions) while transactions are added, for the race
// detector, and checks the reads agree once the writers are done.
func TestConcurrentReads(t *testing.T) {
	env := defaultEnv(t)
	accts := make([]account256, 4)
	for i := range accts {
		accts[i] = newAccount(t)
		env.state.set(accts[i].addr, 0, uint256.NewInt(1e18))
	}
	var wg sync.WaitGroup
	for i, a := range accts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := uint64(0); n < 20; n++ {
				nonce := n
				if n >= 16 {
					nonce += 84 // 100 to 103: queued behind a gap
				}
				tx := legacy(t, a, nonce, 2000)
				var err error
				if i%2 == 0 {
					err = env.pool.AddLocal(tx)
				} else {
					err = env.pool.AddRemotes([]*types.Transaction{tx})[0]
				}
				if err != nil {
					t.Errorf("add nonce %d: %v", nonce, err)
				}
			}
		}()
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 3 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				env.pool.Stats()
				env.pool.Content()
				env.pool.ContentFrom(accts[0].addr)
				env.pool.Transactions()
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()

	s := env.pool.Stats()
	pending, queued := env.pool.Content()
	infos := env.pool.Transactions()
	var np, nq, nPendInfo int
	for _, txs := range pending {
		np += len(txs)
	}
	for _, txs := range queued {
		nq += len(txs)
	}
	for _, in := range infos {
		if in.Pending {
			nPendInfo++
		}
	}
	if s.Pending != np || s.Queued != nq || len(infos) != np+nq || nPendInfo != np || s.LocalCount+s.RemoteCount != len(infos) ||
		np != 4*16 || nq != 4*4 || s.LocalCount != 40 {
		t.Fatalf("stats %+v, content %d/%d, infos %d (%d pending)", s, np, nq, len(infos), nPendInfo)
	}
}
