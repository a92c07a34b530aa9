package fault

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/config"
)

// chainID is the chain ID of bftnet's operator configuration.
const chainID = 2018

// Stream is a steady stream of value transfers from one dev account, sent
// in turn to each running node of a network, each sent until a node
// acknowledges it (answers its hash). It records the acknowledged
// transactions, which the network must mine exactly once.
type Stream struct {
	net    *Network
	key    *ecdsa.PrivateKey
	every  time.Duration
	client *http.Client

	mu    sync.Mutex
	acked []common.Hash
	errs  int // answers other than an acknowledgement

	stop chan struct{}
	done chan struct{}
}

// StartStream starts sending a transfer every interval from dev account
// account (0-2) until Stop (called at the latest when the test ends).
func (n *Network) StartStream(account int, every time.Duration) *Stream {
	n.t.Helper()
	key, err := crypto.HexToECDSA(config.DevAccounts[account].PrivateKey)
	if err != nil {
		n.t.Fatal(err)
	}
	s := &Stream{net: n, key: key, every: every, client: &http.Client{Timeout: 5 * time.Second},
		stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	n.t.Cleanup(s.Stop)
	return s
}

// Stop stops the stream and waits for its last send to finish.
func (s *Stream) Stop() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
}

// Acked is the number of acknowledged transactions so far.
func (s *Stream) Acked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.acked)
}

// Hashes returns acknowledged transactions from..to-1 (indexes of Acked).
func (s *Stream) Hashes(from, to int) []common.Hash {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]common.Hash(nil), s.acked[from:to]...)
}

// Refused is the number of sends no node acknowledged (each retried).
func (s *Stream) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errs
}

func (s *Stream) run() {
	defer close(s.done)
	signer := types.LatestSignerForChainID(big.NewInt(chainID))
	to := common.HexToAddress("0x00000000000000000000000000000000000fa017")
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	next := 0 // the node to send to first
	for nonce := uint64(0); ; nonce++ {
		tx := types.MustSignNewTx(s.key, signer, &types.DynamicFeeTx{
			ChainID: big.NewInt(chainID), Nonce: nonce, GasTipCap: big.NewInt(0), GasFeeCap: big.NewInt(100e9),
			Gas: 21000, To: &to, Value: big.NewInt(1),
		})
		raw, _ := tx.MarshalBinary()
		// The same signed transaction until a node acknowledges it: a
		// transaction no node took is not the network's to mine.
		for acked := false; !acked; {
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
			for try := range len(s.net.Nodes) {
				node := s.net.Nodes[(next+try)%len(s.net.Nodes)]
				if !node.Running() {
					continue
				}
				if s.send(node, raw) {
					next = (node.Index + 1) % len(s.net.Nodes)
					acked = true
					break
				}
			}
		}
		s.mu.Lock()
		s.acked = append(s.acked, tx.Hash())
		s.mu.Unlock()
	}
}

// send posts raw to node and reports whether the node holds it: its hash
// as the answer, or an error saying it knows it already or its nonce is
// used (an earlier send whose answer was lost on a killed node's
// connection was taken).
func (s *Stream) send(node *Node, raw []byte) bool {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_sendRawTransaction",
		"params": []any{hexutil.Encode(raw)}})
	resp, err := s.client.Post(node.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		s.refused()
		return false
	}
	defer resp.Body.Close()
	var out struct {
		Result *common.Hash `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		s.refused()
		return false
	}
	if out.Error != nil {
		m := strings.ToLower(out.Error.Message)
		if strings.Contains(m, "known") || strings.Contains(m, "nonce too low") {
			return true
		}
		s.refused()
		return false
	}
	return out.Result != nil
}

func (s *Stream) refused() {
	s.mu.Lock()
	s.errs++
	s.mu.Unlock()
}

// String sums the stream up, for logs.
func (s *Stream) String() string {
	return fmt.Sprintf("%d acknowledged, %d sends refused", s.Acked(), s.Refused())
}
