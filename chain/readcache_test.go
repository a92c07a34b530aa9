package chain

import (
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

var (
	viewAddr = common.HexToAddress("0x00000000000000000000000000000000000c0de1")
	viewCode = common.FromHex("602a60005260206000f3")
)

// readChain is a chain whose genesis holds a funded account and a contract
// with code and a storage slot.
func readChain(tb testing.TB) *Chain {
	g := testGenesis()
	g.Alloc[viewAddr] = types.Account{Code: viewCode, Balance: big.NewInt(7), Nonce: 3,
		Storage: map[common.Hash]common.Hash{{1}: {42}}}
	c, err := Open(NewMemoryDatabase(), g, testEngine{})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestReadStateMatches: ReadState reads what StateAt reads, and what one
// caller changes in its StateDB neither reaches the shared cache nor
// another caller, at once or later.
func TestReadStateMatches(t *testing.T) {
	c := readChain(t)
	root := c.CurrentHeader().Root
	ref, err := c.StateAt(root)
	if err != nil {
		t.Fatal(err)
	}
	// The reference values, read once: a StateDB is not for concurrent use.
	type acct struct {
		balance string
		nonce   uint64
		code    string
		exist   bool
	}
	addrs := []common.Address{viewAddr, testAddr, {9}}
	want := map[common.Address]acct{}
	for _, a := range addrs {
		want[a] = acct{ref.GetBalance(a).String(), ref.GetNonce(a), string(ref.GetCode(a)), ref.Exist(a)}
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				st, err := c.ReadState(root)
				if err != nil {
					t.Error(err)
					return
				}
				for _, a := range addrs {
					got := acct{st.GetBalance(a).String(), st.GetNonce(a), string(st.GetCode(a)), st.Exist(a)}
					if got != want[a] || st.GetCodeSize(a) != len(want[a].code) {
						t.Errorf("account %s differs", a.Hex())
					}
				}
				if st.GetState(viewAddr, common.Hash{1}) != (common.Hash{42}) || st.GetState(viewAddr, common.Hash{2}) != (common.Hash{}) {
					t.Error("storage differs")
				}
				// Changes stay private to this StateDB.
				st.SetBalance(viewAddr, uint256.NewInt(uint64(i)+1000), tracing.BalanceChangeUnspecified)
				st.SetNonce(testAddr, 99, tracing.NonceChangeUnspecified)
				st.SetState(viewAddr, common.Hash{1}, common.Hash{byte(i)})
				st.SetCode(viewAddr, []byte{byte(i)}, tracing.CodeChangeUnspecified)
				st.CreateAccount(common.Address{9})
			}
		}()
	}
	wg.Wait()
	st, _ := c.ReadState(root)
	if st.GetBalance(viewAddr).Uint64() != 7 || st.GetNonce(testAddr) != 0 || st.GetState(viewAddr, common.Hash{1}) != (common.Hash{42}) ||
		string(st.GetCode(viewAddr)) != string(viewCode) || st.Exist(common.Address{9}) {
		t.Error("a caller's change leaked into the shared reader")
	}
}

// BenchmarkStateReads measures what an eth_call of a view function reads
// (the caller's account, the contract's account, code and one slot) on a
// fresh StateDB per call, from concurrent callers as the JSON-RPC server
// runs them: StateAt opens a new reader per call, ReadState shares the
// root's cached one.
//
//	go test -run '^$' -bench StateReads -cpu 1,2 ./chain/
func BenchmarkStateReads(b *testing.B) {
	c := readChain(b)
	root := c.CurrentHeader().Root
	for _, tc := range []struct {
		name string
		open func(common.Hash) (interface {
			GetBalance(common.Address) *uint256.Int
			GetNonce(common.Address) uint64
			GetCode(common.Address) []byte
			GetState(common.Address, common.Hash) common.Hash
		}, error)
	}{
		{"StateAt", func(r common.Hash) (interface {
			GetBalance(common.Address) *uint256.Int
			GetNonce(common.Address) uint64
			GetCode(common.Address) []byte
			GetState(common.Address, common.Hash) common.Hash
		}, error) {
			return c.StateAt(r)
		}},
		{"ReadState", func(r common.Hash) (interface {
			GetBalance(common.Address) *uint256.Int
			GetNonce(common.Address) uint64
			GetCode(common.Address) []byte
			GetState(common.Address, common.Hash) common.Hash
		}, error) {
			return c.ReadState(r)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					st, err := tc.open(root)
					if err != nil {
						b.Error(err)
						return
					}
					st.GetBalance(testAddr)
					st.GetNonce(testAddr)
					st.GetCode(viewAddr)
					st.GetState(viewAddr, common.Hash{1})
				}
			})
		})
	}
}

// TestSharedReaderBound: a full reader still answers, from the underlying
// reader, without caching more.
func TestSharedReaderBound(t *testing.T) {
	c := readChain(t)
	root := c.CurrentHeader().Root
	r, err := c.readers.get(root, c.stateDB.Reader)
	if err != nil {
		t.Fatal(err)
	}
	r.entries.Store(sharedEntries)
	a, err := r.Account(viewAddr)
	if err != nil || a == nil || a.Nonce != 3 {
		t.Fatalf("account %+v, %v", a, err)
	}
	if _, cached := r.accounts.Load(viewAddr); cached {
		t.Error("a full reader cached another account")
	}
	if v, _ := r.Storage(viewAddr, common.Hash{1}); v != (common.Hash{42}) {
		t.Errorf("slot %x", v)
	}
	if r.entries.Load() != sharedEntries {
		t.Errorf("entries %d", r.entries.Load())
	}
	// Another root gets a reader of its own; the same root the same one.
	if again, _ := c.readers.get(root, c.stateDB.Reader); again != r {
		t.Error("same root, new reader")
	}
}
