// Package txload offers a steady stream of signed transfers to a changing
// set of nodes during a fault or upgrade scenario, and then checks what
// production networks are promised: every transaction a node acknowledged
// (eth_sendRawTransaction answered its hash) is mined, exactly once, on
// the chain every node agrees on.
//
// Each sender account sends its transfers one at a time in nonce order, so
// a refused or unanswered send never leaves a nonce gap: the same signed
// transaction is offered again, to the next node, until one acknowledges
// it (or says it already has it, or that its nonce is used: mined).
package txload

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/testnode"
)

// SendersFor is the number of senders a stream of rate transfers per
// second uses: each sends at most 5 a second, one at a time, so none
// holds more than a few pending transactions in the pool.
func SendersFor(rate int) int { return max(10, (rate+4)/5) }

// Senders returns count deterministic sender keys (distinct per seed).
func Senders(seed string, count int) []*ecdsa.PrivateKey {
	out := make([]*ecdsa.PrivateKey, count)
	for i := range out {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("basalt-txload-%s-%d", seed, i))))
		if err != nil {
			panic(err)
		}
		out[i] = k
	}
	return out
}

// Alloc is the genesis alloc entries funding keys, in the form
// bftnet.OperatorConfig's extraAlloc takes (each followed by a comma).
func Alloc(keys []*ecdsa.PrivateKey) string {
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n      %q: {\"balance\": \"0xad78ebc5ac6200000000\"},", crypto.PubkeyToAddress(k.PublicKey).Hex()[2:])
	}
	return b.String()
}

// Stream sends transfers at a steady rate to its targets.
type Stream struct {
	chainID *big.Int
	keys    []*ecdsa.PrivateKey
	to      common.Address
	client  *http.Client

	mu      sync.Mutex
	targets []string // JSON-RPC URLs taking transactions
	next    int
	acked   map[common.Hash]bool // acknowledged transactions
	sent    int                  // signed transactions offered at least once
	refused int                  // sends refused or unanswered (then offered again)
	why     map[string]int       // refusals by reason
	// mined is, per sender, the account nonce that shows all its
	// acknowledged transactions mined: one above the highest acknowledged.
	mined []uint64

	started time.Time
	stopped time.Time

	cancel context.CancelFunc
	done   sync.WaitGroup
	stop   sync.Once
}

// Start starts sending rate transfers per second in all (spread over the
// keys, each key's one at a time) to nodes, until Stop.
func Start(chainID int64, keys []*ecdsa.PrivateKey, rate int, nodes ...*testnode.P2PNode) *Stream {
	s := &Stream{
		chainID: big.NewInt(chainID),
		keys:    keys,
		to:      common.HexToAddress("0x00000000000000000000000000000000000000cc"),
		client:  &http.Client{Timeout: 5 * time.Second},
		acked:   map[common.Hash]bool{},
		why:     map[string]int{},
		mined:   make([]uint64, len(keys)),
		started: time.Now(),
	}
	s.SetTargets(nodes...)
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	interval := time.Duration(len(keys)) * time.Second / time.Duration(max(rate, 1))
	for i := range keys {
		s.done.Add(1)
		go func() {
			defer s.done.Done()
			// Spread the senders' first sends over one interval.
			select {
			case <-ctx.Done():
				return
			case <-time.After(interval * time.Duration(i) / time.Duration(len(keys))):
			}
			s.sender(ctx, i, interval)
		}()
	}
	return s
}

// SetTargets replaces the nodes offered transactions (a node about to be
// stopped is taken out first, as a load balancer drains it).
func (s *Stream) SetTargets(nodes ...*testnode.P2PNode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.targets = s.targets[:0]
	for _, n := range nodes {
		s.targets = append(s.targets, n.URL)
	}
}

func (s *Stream) target() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.targets) == 0 {
		return ""
	}
	s.next++
	return s.targets[s.next%len(s.targets)]
}

// sender sends key i's transfers, one every interval, each until a node
// takes it.
func (s *Stream) sender(ctx context.Context, i int, interval time.Duration) {
	signer := types.LatestSignerForChainID(s.chainID)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for nonce := uint64(0); ; nonce++ {
		tx := types.MustSignNewTx(s.keys[i], signer, &types.DynamicFeeTx{
			ChainID: s.chainID, Nonce: nonce, GasTipCap: big.NewInt(0), GasFeeCap: big.NewInt(100e9),
			Gas: 21000, To: &s.to, Value: big.NewInt(1),
		})
		raw, _ := tx.MarshalBinary()
		s.mu.Lock()
		s.sent++
		s.mu.Unlock()
		for {
			url := s.target()
			if url != "" {
				acked, done, why := s.send(ctx, url, raw, tx.Hash())
				if acked {
					s.mu.Lock()
					s.acked[tx.Hash()] = true
					s.mined[i] = nonce + 1
					s.mu.Unlock()
				}
				if done {
					break
				}
				s.mu.Lock()
				s.refused++
				s.why[why]++
				s.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// send offers raw to url. acked: the node answered the hash, or says it
// has the transaction already (an earlier, unanswered, send reached it);
// done: the transaction needs no further send (acked, or its nonce is
// used, so it was mined); why: the reason it is not done.
func (s *Stream) send(ctx context.Context, url string, raw []byte, hash common.Hash) (acked, done bool, why string) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["%s"]}`, hexutil.Encode(raw))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return false, false, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		// Not the whole error: it names the URL and ports.
		return false, false, "transport: " + transportReason(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result common.Hash `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return false, false, fmt.Sprintf("HTTP %d, not JSON-RPC", resp.StatusCode)
	}
	if out.Error != nil {
		m := strings.ToLower(out.Error.Message)
		switch {
		case strings.Contains(m, "known transaction"):
			return true, true, ""
		case strings.Contains(m, "nonce too low"):
			return false, true, ""
		}
		return false, false, out.Error.Message
	}
	if out.Result != hash {
		return false, false, "answered another hash"
	}
	return true, true, ""
}

// transportReason is the kind of a failed HTTP exchange.
func transportReason(err error) string {
	m := err.Error()
	for _, k := range []string{"connection refused", "connection reset", "EOF", "Client.Timeout", "context canceled"} {
		if strings.Contains(m, k) {
			return k
		}
	}
	return "other"
}

// Stop stops sending and waits for the senders to return (once; later
// calls return at once).
func (s *Stream) Stop() {
	s.stop.Do(func() {
		s.cancel()
		s.done.Wait()
		s.mu.Lock()
		s.stopped = time.Now()
		s.mu.Unlock()
	})
}

// Figures are what a stream did.
type Figures struct {
	Sent, Acknowledged, Refused, Mined int
	// Why counts the refused sends by reason (a JSON-RPC error message,
	// or "transport: …" when no answer came).
	Why map[string]int
	// Duration is how long the stream ran (Start to Stop).
	Duration time.Duration
}

// AckRate is the acknowledged transactions per second of stream time.
func (f Figures) AckRate() float64 { return float64(f.Acknowledged) / f.Duration.Seconds() }

func (f Figures) String() string {
	return fmt.Sprintf("%d transactions acknowledged, %d mined (%d signed, %d sends refused or unanswered and offered again %v; %.0f acknowledged/s over %.0f s)",
		f.Acknowledged, f.Mined, f.Sent, f.Refused, f.Why, f.AckRate(), f.Duration.Seconds())
}

// Check waits (up to timeout) until every acknowledged transaction is
// mined as node sees the chain, then reads every block up to node's head:
// each acknowledged transaction is in exactly one block, and no
// transaction of the stream's senders is in the chain twice. Call it
// after Stop.
func (s *Stream) Check(t testing.TB, node *testnode.Node, timeout time.Duration) Figures {
	t.Helper()
	s.mu.Lock()
	f := Figures{Sent: s.sent, Acknowledged: len(s.acked), Refused: s.refused, Duration: s.stopped.Sub(s.started), Why: maps.Clone(s.why)}
	acked := make([]common.Hash, 0, len(s.acked))
	for h := range s.acked {
		acked = append(acked, h)
	}
	// Once every sender's account nonce passed its last acknowledged
	// transaction, all are in blocks (nonce order).
	want := append([]uint64(nil), s.mined...)
	s.mu.Unlock()
	testnode.WaitFor(t, timeout, fmt.Sprintf("%d acknowledged transactions mined", len(acked)), func() bool {
		for i, k := range s.keys {
			var n hexutil.Uint64
			node.MustCall(&n, "eth_getTransactionCount", crypto.PubkeyToAddress(k.PublicKey), "latest")
			if uint64(n) < want[i] {
				return false
			}
		}
		return true
	})
	seen := map[common.Hash]uint64{}
	var top hexutil.Uint64
	node.MustCall(&top, "eth_blockNumber")
	head := uint64(top)
	senders := map[common.Address]bool{}
	for _, k := range s.keys {
		senders[crypto.PubkeyToAddress(k.PublicKey)] = true
	}
	for h := uint64(1); h <= head; h++ {
		var b struct {
			Transactions []struct {
				Hash common.Hash    `json:"hash"`
				From common.Address `json:"from"`
			} `json:"transactions"`
		}
		node.MustCall(&b, "eth_getBlockByNumber", hexutil.EncodeUint64(h), true)
		for _, tx := range b.Transactions {
			if !senders[tx.From] {
				continue
			}
			if at, dup := seen[tx.Hash]; dup {
				t.Fatalf("transaction %s mined twice: blocks %d and %d", tx.Hash, at, h)
			}
			seen[tx.Hash] = h
		}
	}
	for _, h := range acked {
		if _, ok := seen[h]; !ok {
			t.Fatalf("acknowledged transaction %s is not in the chain (head %d)", h, head)
		}
	}
	f.Mined = len(seen)
	return f
}
