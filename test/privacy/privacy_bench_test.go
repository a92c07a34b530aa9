package privacy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/privacy"
)

// benchClient keeps connections to the signer and the nodes open across
// the benchmark's many requests.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024}, Timeout: 60 * time.Second}

// benchCall posts one JSON-RPC request and decodes its result into v.
func benchCall(url string, v any, method string, params ...any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := benchClient.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return err
	}
	if out.Error != nil {
		return fmt.Errorf("%s: %d %s", method, out.Error.Code, out.Error.Message)
	}
	if v != nil {
		return json.Unmarshal(out.Result, v)
	}
	return nil
}

// minedWatcher follows a node's chain and tells waiters when their
// transaction is in a canonical block.
type minedWatcher struct {
	mu      sync.Mutex
	mined   map[common.Hash]bool
	waiters map[common.Hash]chan struct{}
}

func (w *minedWatcher) wait(h common.Hash) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan struct{})
	if w.mined[h] {
		close(ch)
		return ch
	}
	w.waiters[h] = ch
	return ch
}

func (w *minedWatcher) run(url string, stop <-chan struct{}) {
	hashes := map[uint64]common.Hash{} // the blocks seen, to notice reorgs
	for {
		select {
		case <-stop:
			return
		case <-time.After(50 * time.Millisecond):
		}
		var head hexutil.Uint64
		if benchCall(url, &head, "eth_blockNumber") != nil {
			continue
		}
		// Blocks not seen yet, and the last few again: a Clique reorg may
		// have replaced them.
		from := uint64(1)
		if uint64(head) > 8 {
			from = uint64(head) - 8
		}
		for n := from; n <= uint64(head); n++ {
			var blk struct {
				Hash         common.Hash   `json:"hash"`
				Transactions []common.Hash `json:"transactions"`
			}
			if benchCall(url, &blk, "eth_getBlockByNumber", hexutil.EncodeUint64(n), false) != nil {
				break
			}
			if hashes[n] == blk.Hash {
				continue
			}
			hashes[n] = blk.Hash
			w.mu.Lock()
			for _, h := range blk.Transactions {
				w.mined[h] = true
				if ch := w.waiters[h]; ch != nil {
					close(ch)
					delete(w.waiters, h)
				}
			}
			w.mu.Unlock()
		}
	}
}

// BenchmarkPrivateTransactions measures private transactions per second end
// to end on the 3+3+1 setup: eea_sendTransaction to basalt-signer, which
// signs and sends eea_sendRawTransaction to node A, which has its manager
// store and push the payload to B's and pools the marker; the marker is
// mined (one-second Clique blocks) and both members execute the private
// transaction. A sender's next private transaction in a group must wait
// for the previous one to be mined (Besu's nonce rule), so the load is
// spread over BASALT_BENCH_PRIVACY_GROUPS privacy groups of A and B
// (default 512), each sending its transactions one after the other: the
// first deploys a contract, the others store a word in it. The clock stops
// when every transaction has been executed on both A and B (their private
// nonces in every group are complete). Run with -benchtime=<n>x.
func BenchmarkPrivateTransactions(b *testing.B) {
	groups := 512
	if v, err := strconv.Atoi(os.Getenv("BASALT_BENCH_PRIVACY_GROUPS")); err == nil && v > 0 {
		groups = v
	}
	groups = min(groups, b.N)
	// The signer keeps a connection per request in flight.
	nodes := startPrivacyNetwork(b, "--rpc-http-max-active-connections=1000")
	a, bNode := nodes[0], nodes[1]
	signer := startPrivacySigner(b, a.URL)
	dev1 := config.DevAccounts[1].Address

	ids := make([]string, groups)
	var wg sync.WaitGroup
	var failed atomic.Value
	sem := make(chan struct{}, 16)
	for i := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := benchCall(a.URL, &ids[i], "priv_createPrivacyGroup", map[string]any{"addresses": []string{a.key, bNode.key}}); err != nil {
				failed.Store(err)
			}
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	w := &minedWatcher{mined: map[common.Hash]bool{}, waiters: map[common.Hash]chan struct{}{}}
	stop := make(chan struct{})
	defer close(stop)
	go w.run(a.URL, stop)

	b.ResetTimer()
	start := time.Now()
	// At most 128 requests in flight, as a pool of clients would.
	sends := make(chan struct{}, 128)
	quota := make([]int, groups)
	for i := 0; i < b.N; i++ {
		quota[i%groups]++
	}
	for g := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gid, _ := base64.StdEncoding.DecodeString(ids[g])
			contract := privacy.ContractAddress(dev1, 0, common.BytesToHash(gid))
			for n := 0; n < quota[g]; n++ {
				tx := map[string]any{"from": dev1, "gas": "0x100000", "gasPrice": "0x0", "nonce": hexutil.EncodeUint64(uint64(n)),
					"privateFrom": a.key, "privacyGroupId": ids[g], "restriction": "restricted", "data": storeInit}
				if n > 0 {
					tx["to"], tx["data"] = contract, privWord(uint64(n))
				}
				var pmt common.Hash
				sends <- struct{}{}
				err := benchCall(signer, &pmt, "eea_sendTransaction", tx)
				<-sends
				if err != nil {
					failed.Store(fmt.Errorf("group %d, transaction %d: %w", g, n, err))
					return
				}
				select {
				case <-w.wait(pmt):
				case <-time.After(60 * time.Second):
					failed.Store(fmt.Errorf("group %d: marker %s not mined", g, pmt.Hex()))
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	// Every transaction executed on both members.
	for _, n := range []*privNode{a, bNode} {
		for g, id := range ids {
			deadline := time.Now().Add(60 * time.Second)
			for {
				var count hexutil.Uint64
				if err := benchCall(n.URL, &count, "priv_getTransactionCount", dev1, id); err == nil && int(count) == quota[g] {
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("group %d on %s: private nonce not %d", g, n.URL, quota[g])
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "privtx/s")
	b.ReportMetric(float64(groups), "groups")
}

// BenchmarkPrivateBurst measures private transactions per second end to
// end when one sender sends to BASALT_BENCH_PRIVACY_GROUPS groups of A and
// B (default 1) without nonces, 128 requests in flight, none waiting for
// the previous to be mined: the signer manages the private nonces and
// sends one transaction per group at a time, and node A counts the pooled
// ones in the pending private nonce. Each transaction adds 1 to a counter
// deployed first; the clock stops when every counter on A and B holds its
// group's share. Compare with BenchmarkPrivateTransactions (one in flight
// per group, waiting for each to be mined). Run with -benchtime=<n>x.
func BenchmarkPrivateBurst(b *testing.B) {
	groups := 1
	if v, err := strconv.Atoi(os.Getenv("BASALT_BENCH_PRIVACY_GROUPS")); err == nil && v > 0 {
		groups = v
	}
	groups = min(groups, b.N)
	nodes := startPrivacyNetwork(b, "--rpc-http-max-active-connections=1000")
	a, bNode := nodes[0], nodes[1]
	signer := startPrivacySigner(b, a.URL)
	dev1 := config.DevAccounts[1].Address
	ids := make([]string, groups)
	contracts := make([]common.Address, groups)
	for g := range ids {
		if err := benchCall(a.URL, &ids[g], "priv_createPrivacyGroup", map[string]any{"addresses": []string{a.key, bNode.key}}); err != nil {
			b.Fatal(err)
		}
		var pmt common.Hash
		if err := benchCall(signer, &pmt, "eea_sendTransaction", map[string]any{"from": dev1, "gas": "0x100000",
			"privateFrom": a.key, "privacyGroupId": ids[g], "restriction": "restricted", "data": counterInit}); err != nil {
			b.Fatal(err)
		}
		gid, _ := base64.StdEncoding.DecodeString(ids[g])
		contracts[g] = privacy.ContractAddress(dev1, 0, common.BytesToHash(gid))
	}
	quota := make([]int, groups)
	for i := 0; i < b.N; i++ {
		quota[i%groups]++
	}
	b.ResetTimer()
	start := time.Now()
	var (
		wg     sync.WaitGroup
		failed atomic.Value
	)
	sends := make(chan struct{}, 128)
	for i := 0; i < b.N; i++ {
		g := i % groups
		sends <- struct{}{}
		wg.Go(func() {
			defer func() { <-sends }()
			var pmt common.Hash
			if err := benchCall(signer, &pmt, "eea_sendTransaction", map[string]any{"from": dev1, "gas": "0x100000", "to": contracts[g],
				"privateFrom": a.key, "privacyGroupId": ids[g], "restriction": "restricted", "data": "0x01"}); err != nil {
				failed.Store(err)
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	for _, n := range []*privNode{a, bNode} {
		for g, id := range ids {
			want := privWord(uint64(quota[g]))
			deadline := time.Now().Add(120 * time.Second)
			for {
				var got string
				if benchCall(n.URL, &got, "priv_call", id, map[string]any{"to": contracts[g]}, "latest") == nil && got == want {
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("group %d on %s: counter not %d", g, n.URL, quota[g])
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "privtx/s")
	b.ReportMetric(float64(groups), "groups")
}
