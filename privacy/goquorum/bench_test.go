package goquorum

import (
	"context"
	"log/slog"
	"math/big"
	"net/http/httptest"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/privacy/privstate"
)

// benchBlock is a block of 200 GoQuorum private transactions on a party:
// a creation of the store contract, then calls writing to it.
func benchBlock(b *testing.B) (*testChain, *Processor, func() error, func() error) {
	tc := openChain(b)
	m := &q2tManager{payloads: map[string][]byte{}, failures: map[string]int{}}
	const n = 200
	keys := make([][]byte, n)
	to := make([]*common.Address, n)
	store := crypto.CreateAddress(tc.from, 0)
	for i := range n {
		keys[i] = key64(byte(i))
		keys[i][1] = byte(i >> 8)
		if i == 0 {
			m.payloads[b64(keys[i])] = deployCode(storeRuntime)
			continue
		}
		m.payloads[b64(keys[i])] = common.BigToHash(big.NewInt(int64(i))).Bytes()
		to[i] = &store
	}
	srv := httptest.NewServer(m)
	b.Cleanup(srv.Close)
	client, _ := NewClient(srv.URL)
	p := NewProcessor(privstate.OpenPrefix(tc.db, privstate.GoQuorumPrefix), client, slog.New(slog.DiscardHandler))
	block := tc.block(b, keys, to)
	parent := tc.c.CurrentHeader()
	public := func() error {
		st, err := tc.c.StateAt(parent.Root)
		if err != nil {
			return err
		}
		_, err = tc.c.Executor().Process(context.Background(), block, common.Hash{0xaa}, st)
		return err
	}
	prepared, err := p.Prepare(context.Background(), block)
	if err != nil {
		b.Fatal(err)
	}
	private := func() error {
		return prepared.ProcessBlock(context.Background(), tc.hookBlock(common.Hash{0xaa}))
	}
	return tc, p, public, private
}

// BenchmarkGoQuorumBlock: the public execution of a block of 200 GoQuorum
// private transactions (every node), against a party's private part of it
// (the block replayed and the private transactions run and committed;
// payloads already fetched). The ratio is the extra insert time of a party.
//
//	go test ./privacy/goquorum -run '^$' -bench GoQuorumBlock -benchtime 200x -count 3
func BenchmarkGoQuorumBlock(b *testing.B) {
	_, _, public, private := benchBlock(b)
	b.Run("public", func(b *testing.B) {
		for b.Loop() {
			if err := public(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("party", func(b *testing.B) {
		for b.Loop() {
			if err := private(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
