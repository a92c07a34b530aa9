package ethash

import (
	"encoding/binary"
	"hash"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/crypto/keccak"
)

// Ethash parameters (Yellow Paper appendix J, ethash specification).
const (
	// EpochLength is the number of blocks sharing one cache and dataset.
	EpochLength = 30000

	wordBytes          = 4       // bytes in a word
	datasetInitBytes   = 1 << 30 // dataset size at genesis
	datasetGrowthBytes = 1 << 23 // dataset growth per epoch
	cacheInitBytes     = 1 << 24 // cache size at genesis
	cacheGrowthBytes   = 1 << 17 // cache growth per epoch
	mixBytes           = 128     // width of the mix
	hashBytes          = 64      // hash length in bytes (one dataset item, one cache row)
	hashWords          = hashBytes / wordBytes
	mixWords           = mixBytes / wordBytes
	datasetParents     = 256 // parents of each dataset item
	cacheRounds        = 3   // RandMemoHash rounds in cache generation
	loopAccesses       = 64  // dataset accesses in hashimoto

	// maxEpoch bounds the epochs this implementation serves (block 61,440,000);
	// it keeps a forged block number from asking for a cache of many gigabytes.
	maxEpoch = 2048
)

// CacheSize returns the size in bytes of the verification cache of the epoch
// holding block number: the largest multiple of 64 bytes not above
// 2^24 + 2^17·epoch − 64 whose row count is prime.
func CacheSize(number uint64) uint64 {
	return cacheSizeForEpoch(number / EpochLength)
}

// DatasetSize returns the size in bytes of the full dataset (DAG) of the
// epoch holding block number: the largest multiple of 128 bytes not above
// 2^30 + 2^23·epoch − 128 whose row count is prime.
func DatasetSize(number uint64) uint64 {
	return datasetSizeForEpoch(number / EpochLength)
}

func cacheSizeForEpoch(epoch uint64) uint64 {
	size := cacheInitBytes + cacheGrowthBytes*epoch - hashBytes
	for !isPrime(size / hashBytes) {
		size -= 2 * hashBytes
	}
	return size
}

func datasetSizeForEpoch(epoch uint64) uint64 {
	size := datasetInitBytes + datasetGrowthBytes*epoch - mixBytes
	for !isPrime(size / mixBytes) {
		size -= 2 * mixBytes
	}
	return size
}

// isPrime is trial division; the numbers tested are below 2^27, so at most a
// few thousand divisions.
func isPrime(n uint64) bool {
	if n < 2 {
		return false
	}
	if n%2 == 0 {
		return n == 2
	}
	for d := uint64(3); d*d <= n; d += 2 {
		if n%d == 0 {
			return false
		}
	}
	return true
}

// SeedHash returns the seed of the epoch holding block number: 32 zero bytes
// hashed with Keccak-256 once per epoch.
func SeedHash(number uint64) []byte {
	return seedHashForEpoch(number / EpochLength)
}

func seedHashForEpoch(epoch uint64) []byte {
	seed := make([]byte, 32)
	if epoch == 0 {
		return seed
	}
	h := crypto.NewKeccakState()
	for i := uint64(0); i < epoch; i++ {
		h.Reset()
		h.Write(seed)
		h.Read(seed)
	}
	return seed
}

// fnv is the non-associative mixing function ethash uses instead of XOR.
func fnv(a, b uint32) uint32 {
	return a*0x01000193 ^ b
}

// hasher holds the scratch state for one goroutine computing ethash: the
// Keccak sponges and byte buffers, so that the hot loops do not allocate.
// A hasher must not be shared between goroutines.
type hasher struct {
	k512 keccakState
	k256 keccakState
	buf  [hashBytes + 32]byte // keccak input/output bytes
}

type keccakState interface {
	hash.Hash
	Read([]byte) (int, error)
}

func newHasher() *hasher {
	return &hasher{
		k512: keccak.NewLegacyKeccak512().(keccakState),
		k256: keccak.NewLegacyKeccak256().(keccakState),
	}
}

// keccak512Words replaces the 16 words of w (little-endian) by their
// Keccak-512 hash.
func (h *hasher) keccak512Words(w []uint32) {
	w = w[:hashWords]
	b := h.buf[:hashBytes]
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[i*4:], v)
	}
	h.k512.Reset()
	h.k512.Write(b)
	h.k512.Read(b)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[i*4:])
	}
}

// keccak512Bytes hashes in into the 16 words of out.
func (h *hasher) keccak512Bytes(out []uint32, in []byte) {
	out = out[:hashWords]
	b := h.buf[:hashBytes]
	h.k512.Reset()
	h.k512.Write(in)
	h.k512.Read(b)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[i*4:])
	}
}

// generateCache fills cache (a whole number of 16-word rows) from seed:
// a sequential Keccak-512 chain followed by cacheRounds rounds of Sergio
// Demian Lerner's RandMemoHash, as the ethash specification defines.
func generateCache(cache []uint32, seed []byte) {
	h := newHasher()
	rows := uint32(len(cache) / hashWords)

	h.keccak512Bytes(cache[:hashWords], seed)
	for i := uint32(1); i < rows; i++ {
		row := cache[i*hashWords : (i+1)*hashWords]
		copy(row, cache[(i-1)*hashWords:i*hashWords])
		h.keccak512Words(row)
	}

	var tmp [hashWords]uint32
	for range cacheRounds {
		for i := uint32(0); i < rows; i++ {
			prev := (i + rows - 1) % rows
			other := cache[i*hashWords] % rows
			a := cache[prev*hashWords : prev*hashWords+hashWords]
			b := cache[other*hashWords : other*hashWords+hashWords]
			for k := range tmp {
				tmp[k] = a[k] ^ b[k]
			}
			h.keccak512Words(tmp[:])
			copy(cache[i*hashWords:(i+1)*hashWords], tmp[:])
		}
	}
}

// datasetItem computes dataset item index (16 words) from cache into out.
func (h *hasher) datasetItem(out []uint32, cache []uint32, index uint32) {
	out = out[:hashWords:hashWords]
	rows := uint32(len(cache) / hashWords)

	base := (index % rows) * hashWords
	copy(out, cache[base:base+hashWords])
	out[0] ^= index
	h.keccak512Words(out)

	for j := uint32(0); j < datasetParents; j++ {
		parent := fnv(index^j, out[j%hashWords]) % rows
		mixRow(out, cache[parent*hashWords:parent*hashWords+hashWords:parent*hashWords+hashWords])
	}
	h.keccak512Words(out)
}

// datasetItemPair computes dataset items index and index+1 into the 32 words
// of out. Hashimoto always reads items in such pairs; computing the two in
// lockstep gives the CPU two independent chains of cache reads to overlap,
// and light hashing is bound by the latency of those reads (256 random rows
// of a 16+ MiB cache per item).
func (h *hasher) datasetItemPair(out []uint32, cache []uint32, index uint32) {
	a := out[:hashWords:hashWords]
	b := out[hashWords : 2*hashWords : 2*hashWords]
	rows := uint32(len(cache) / hashWords)
	ia, ib := index, index+1

	baseA, baseB := (ia%rows)*hashWords, (ib%rows)*hashWords
	copy(a, cache[baseA:baseA+hashWords])
	copy(b, cache[baseB:baseB+hashWords])
	a[0] ^= ia
	b[0] ^= ib
	h.keccak512Words(a)
	h.keccak512Words(b)

	for j := uint32(0); j < datasetParents; j++ {
		pa := fnv(ia^j, a[j%hashWords]) % rows * hashWords
		pb := fnv(ib^j, b[j%hashWords]) % rows * hashWords
		mixRow(a, cache[pa:pa+hashWords:pa+hashWords])
		mixRow(b, cache[pb:pb+hashWords:pb+hashWords])
	}
	h.keccak512Words(a)
	h.keccak512Words(b)
}

// mixRow folds one 16-word cache row p into mix with fnv. Small enough to
// be inlined into the item loops, where light verification and mining spend
// their time.
func mixRow(mix, p []uint32) {
	p = p[:hashWords]
	mix = mix[:len(p)]
	for k, v := range p {
		mix[k] = fnv(mix[k], v)
	}
}

// generateDataset fills dataset (a whole number of 16-word items) from cache.
// Only tests and benchmarks use it: the full dataset of a real epoch is over
// a gigabyte, and this engine mines and verifies from the cache.
func generateDataset(dataset []uint32, cache []uint32) {
	h := newHasher()
	for i := 0; i < len(dataset)/hashWords; i++ {
		h.datasetItem(dataset[i*hashWords:(i+1)*hashWords], cache, uint32(i))
	}
}

// hashimoto runs the ethash main loop for (sealHash, nonce) over a dataset
// of datasetSize bytes and returns the 32-byte mix digest and the 32-byte
// result. Dataset items are read from dataset when it is non-nil and derived
// from cache otherwise.
func (h *hasher) hashimoto(sealHash []byte, nonce uint64, datasetSize uint64, cache, dataset []uint32) (digest, result [32]byte) {
	rows := uint32(datasetSize / mixBytes)

	// seed = Keccak-512(sealHash ‖ nonce as 8 little-endian bytes)
	var seed [hashWords]uint32
	in := h.buf[:40]
	copy(in, sealHash[:32])
	binary.LittleEndian.PutUint64(in[32:], nonce)
	h.keccak512Bytes(seed[:], in)

	var mix, data [mixWords]uint32
	copy(mix[:hashWords], seed[:])
	copy(mix[hashWords:], seed[:])

	for i := uint32(0); i < loopAccesses; i++ {
		item := 2 * (fnv(i^seed[0], mix[i%mixWords]) % rows)
		if dataset != nil {
			off := int(item) * hashWords // int: late epochs' datasets exceed 2^32 words
			copy(data[:], dataset[off:off+mixWords])
		} else {
			h.datasetItemPair(data[:], cache, item)
		}
		for k := range mix {
			mix[k] = fnv(mix[k], data[k])
		}
	}

	// Compress the mix to 8 words.
	for i := 0; i < mixWords/4; i++ {
		c := fnv(fnv(fnv(mix[4*i], mix[4*i+1]), mix[4*i+2]), mix[4*i+3])
		binary.LittleEndian.PutUint32(digest[4*i:], c)
	}

	// result = Keccak-256(seed ‖ digest)
	b := h.buf[:hashBytes+32]
	for i, v := range seed {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	copy(b[hashBytes:], digest[:])
	h.k256.Reset()
	h.k256.Write(b)
	h.k256.Read(b[:32]) // into the heap buffer: result[:] would escape
	copy(result[:], b[:32])
	return digest, result
}

// hashimotoLight computes the PoW of (sealHash, nonce) deriving the dataset
// items it needs from cache: 128 items, each from 256 cache rows.
func (h *hasher) hashimotoLight(cache []uint32, datasetSize uint64, sealHash []byte, nonce uint64) (digest, result [32]byte) {
	return h.hashimoto(sealHash, nonce, datasetSize, cache, nil)
}

// hashimotoFull computes the PoW of (sealHash, nonce) from a generated dataset.
func (h *hasher) hashimotoFull(dataset []uint32, sealHash []byte, nonce uint64) (digest, result [32]byte) {
	return h.hashimoto(sealHash, nonce, uint64(len(dataset))*wordBytes, nil, dataset)
}
