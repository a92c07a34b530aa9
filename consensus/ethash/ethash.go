// Package ethash is Basalt's proof-of-work consensus engine: the Ethash
// algorithm (Yellow Paper appendix J) written for this project, with header
// and uncle validation, difficulty, block rewards and a mining loop.
//
// Verification and mining both work from the per-epoch verification cache
// (16 MiB at epoch 0, generated in about a second and kept in a small LRU):
// each hash derives the 128 dataset items it touches from the cache
// ("hashimoto light"). The full dataset (over 1 GiB) is never generated; for
// the difficulties Basalt mines at (the dev network's fixed difficulty 100,
// private test networks) light hashing is fast enough and needs no
// minutes-long DAG generation.
//
// Difficulty is either fixed (Besu's genesis option ethash.fixeddifficulty)
// or follows mainnet's rules per fork, computed by go-ethereum's calculator.
//
// Headers may carry post-London fields when timestamp forks are configured on
// a PoW chain (Basalt's dev network runs every fork through Osaka on ethash):
// those fields are required exactly when their fork is active, see
// VerifyHeader.
package ethash

import (
	"math/big"
	"runtime"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/consensus"
)

// Config configures an Ethash engine.
type Config struct {
	// FixedDifficulty, when set, is the difficulty of every block (Besu's
	// genesis config ethash.fixeddifficulty; the dev network uses 100).
	// nil means the dynamic difficulty rules of the active fork.
	FixedDifficulty *big.Int
	// Threads is the number of goroutines Seal searches nonces with;
	// 0 (or negative) means runtime.NumCPU().
	Threads int
}

// Ethash is the proof-of-work engine. It is safe for concurrent use.
type Ethash struct {
	fixedDifficulty *big.Int
	threads         int

	caches  *cacheLRU
	hashers sync.Pool // *hasher for verification
	meter   *hashMeter
	now     func() time.Time // wall clock; replaced in tests
}

var (
	_ consensus.Engine = (*Ethash)(nil)
	_ consensus.PoW    = (*Ethash)(nil) // remote mining and eth_hashrate
)

// New returns an Ethash engine.
func New(cfg Config) *Ethash {
	threads := cfg.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	var fixed *big.Int
	if cfg.FixedDifficulty != nil {
		fixed = new(big.Int).Set(cfg.FixedDifficulty)
	}
	e := &Ethash{
		fixedDifficulty: fixed,
		threads:         threads,
		caches:          newCacheLRU(cacheLRUSize),
		now:             time.Now,
	}
	e.hashers.New = func() any { return newHasher() }
	e.meter = newHashMeter(func() time.Time { return e.now() })
	return e
}

// Hash returns the block hash: Keccak-256 of the RLP-encoded header.
func (e *Ethash) Hash(header *types.Header) common.Hash {
	return header.Hash()
}

// Author returns the header's coinbase, which receives the block reward.
func (e *Ethash) Author(header *types.Header) (common.Address, error) {
	return header.Coinbase, nil
}

// Close releases nothing: Seal's goroutines end before Seal returns, and the
// caches are ordinary memory.
func (e *Ethash) Close() error {
	return nil
}

// Threads returns the number of goroutines Seal uses.
func (e *Ethash) Threads() int {
	return e.threads
}

// Hashrate returns the hashes per second of this engine's Seal calls (a
// moving average over about 10 seconds; 0 once no Seal has hashed for 3
// seconds) plus the rates remote miners reported with SubmitHashrate in the
// last 10 seconds.
func (e *Ethash) Hashrate() float64 {
	return e.meter.total()
}

// SubmitHashrate records the hash rate a remote miner (eth_submitHashrate)
// reports under its id. A report counts towards Hashrate for 10 seconds; a
// newer report from the same id replaces it.
func (e *Ethash) SubmitHashrate(id common.Hash, rate uint64) {
	e.meter.submit(id, rate)
}

// SealHash is the hash the proof of work of header is computed over (the
// package's SealHash; a method so the node finds it through consensus.PoW).
func (e *Ethash) SealHash(header *types.Header) common.Hash {
	return SealHash(header)
}

// SeedHash is the seed hash of the epoch of block number (the package's
// SeedHash, as a method for consensus.PoW).
func (e *Ethash) SeedHash(number uint64) []byte {
	return SeedHash(number)
}

// cache returns the verification cache for block number.
func (e *Ethash) cache(number uint64) (*epochCache, error) {
	return e.caches.get(number / EpochLength)
}
