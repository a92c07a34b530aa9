package signer

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/privacy/privtx"
)

// privateNode makes node follow a Basalt node's private nonce rule: per
// sender and group, priv_get*TransactionCount answers the pending private
// nonce and eea_sendRawTransaction takes exactly that nonce (Nonce too low
// below, Nonce too high above). Each accepted transaction is recorded in
// arrival order per group; with slow, the node takes a while to answer a
// send, so that concurrent sends overlap.
type privateNode struct {
	mu      sync.Mutex
	pending map[string]uint64                 // sender+group → pending private nonce
	order   map[string][]uint64               // group → nonces in arrival order
	lost    func(group string, n uint64) bool // nonces whose "marker" the node drops
}

func groupOf(tx *privtx.Transaction) string {
	if tx.PrivacyGroupID != nil {
		return base64.StdEncoding.EncodeToString(tx.PrivacyGroupID)
	}
	return base64.StdEncoding.EncodeToString(tx.PrivateFor[0])
}

func (p *privateNode) hook(slow time.Duration) func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
	return func(w http.ResponseWriter, r *http.Request, method string, body []byte) bool {
		var env struct {
			ID     json.RawMessage
			Params []json.RawMessage
		}
		json.Unmarshal(body, &env)
		switch method {
		case "priv_getTransactionCount", "priv_getEeaTransactionCount":
			var from, group string
			json.Unmarshal(env.Params[0], &from)
			json.Unmarshal(env.Params[1], &group)
			if method == "priv_getEeaTransactionCount" {
				var to []string
				json.Unmarshal(env.Params[2], &to)
				group = to[0]
			}
			p.mu.Lock()
			n := p.pending[common.HexToAddress(from).Hex()+group]
			p.mu.Unlock()
			w.Write(result(env.ID, hexutil.Uint64(n)))
			return true
		case "eea_sendRawTransaction":
			var raw hexutil.Bytes
			json.Unmarshal(env.Params[0], &raw)
			tx, err := privtx.Decode(raw)
			if err != nil {
				w.Write(rpcErr(env.ID, -50100, "Unable to decode the private signed raw transaction"))
				return true
			}
			from, _ := tx.Sender()
			group := groupOf(tx)
			time.Sleep(slow)
			p.mu.Lock()
			defer p.mu.Unlock()
			k := from.Hex() + group
			switch {
			case tx.Nonce < p.pending[k]:
				w.Write(rpcErr(env.ID, -32001, "Nonce too low"))
			case tx.Nonce > p.pending[k]:
				w.Write(rpcErr(env.ID, -32006, "Nonce too high"))
			default:
				if p.lost == nil || !p.lost(group, tx.Nonce) {
					p.pending[k]++
				}
				p.order[group] = append(p.order[group], tx.Nonce)
				w.Write(result(env.ID, crypto.Keccak256Hash(raw)))
			}
			return true
		}
		return false
	}
}

// TestConcurrentPrivateSends: concurrent eea_sendTransaction calls without
// a nonce, for one group and over three (by privacyGroupId and by
// privateFor), each get their own private nonce, reach the node in nonce
// order per group, and none is refused.
func TestConcurrentPrivateSends(t *testing.T) {
	node := newFakeNode(t)
	pn := &privateNode{pending: map[string]uint64{}, order: map[string][]uint64{}}
	node.setHook(pn.hook(200 * time.Microsecond))
	s := signerFor(t, node)
	groups := []map[string]any{
		{"privacyGroupId": groupB64},
		{"privateFor": []string{keyB64b}},
		{"privacyGroupId": keyB64},
	}
	var wg sync.WaitGroup
	const perGroup = 40
	for i := range 3 * perGroup {
		wg.Go(func() {
			req := map[string]any{"from": dev1.Hex(), "to": dev2.Hex(), "privateFrom": keyB64, "restriction": "restricted"}
			for k, v := range groups[i%3] {
				req[k] = v
			}
			call(t, s.URL, "eea_sendTransaction", req).str(t)
		})
	}
	wg.Wait()
	if len(pn.order) != 3 {
		t.Fatalf("groups at the node: %v", pn.order)
	}
	for g, order := range pn.order {
		if len(order) != perGroup {
			t.Errorf("group %s: %d sent, want %d", g, len(order), perGroup)
		}
		for i, n := range order {
			if n != uint64(i) {
				t.Fatalf("group %s: nonces in arrival order %v", g, order)
			}
		}
	}
	if c := node.count("eea_sendRawTransaction"); c != 3*perGroup {
		t.Errorf("%d sends for %d transactions: some were refused and retried", c, 3*perGroup)
	}

	// A node whose count falls behind the signer's (a pooled transaction
	// left its pool unmined): Nonce too high, and the signer takes the
	// node's count again.
	pn.mu.Lock()
	lostOnce := false
	pn.lost = func(group string, n uint64) bool {
		if group == groupB64 && n == perGroup && !lostOnce {
			lostOnce = true
			return true
		}
		return false
	}
	pn.mu.Unlock()
	var hold sync.WaitGroup
	for range 3 {
		hold.Go(func() {
			call(t, s.URL, "eea_sendTransaction", map[string]any{"from": dev1.Hex(), "to": dev2.Hex(), "privateFrom": keyB64,
				"restriction": "restricted", "privacyGroupId": groupB64}).str(t)
		})
	}
	hold.Wait()
	if got := pn.order[groupB64][perGroup:]; len(got) != 3 || got[0] != perGroup || got[1] != perGroup || got[2] != perGroup+1 {
		t.Errorf("after a lost transaction: %v", got)
	}
}
