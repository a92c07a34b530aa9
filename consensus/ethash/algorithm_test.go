package ethash

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(strings.Join(strings.Fields(s), ""), "0x"))
	if err != nil {
		t.Fatalf("bad hex in test vector: %v", err)
	}
	return b
}

// wordsToBytes serialises ethash words little-endian, as the spec does.
func wordsToBytes(words []uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// Sizes from the ethash specification's prime-searching formulas, as listed
// in the lookup tables go-ethereum shipped (consensus/ethash/sizes.go).
func TestSizes(t *testing.T) {
	tests := []struct {
		epoch   uint64
		cache   uint64
		dataset uint64
	}{
		{0, 16776896, 1073739904},
		{1, 16907456, 1082130304},
		{2, 17039296, 1090514816},
		{3, 17170112, 1098906752},
		{4, 17301056, 1107293056},
		{5, 17432512, 1115684224},
		{6, 17563072, 1124070016},
		{7, 17693888, 1132461952},
		{8, 17824192, 1140849536},
		{9, 17955904, 1149232768},
		{10, 18087488, 1157627776},
	}
	for _, tt := range tests {
		number := tt.epoch * EpochLength
		if got := CacheSize(number); got != tt.cache {
			t.Errorf("epoch %d: cache size %d, want %d", tt.epoch, got, tt.cache)
		}
		if got := CacheSize(number + EpochLength - 1); got != tt.cache {
			t.Errorf("epoch %d last block: cache size %d, want %d", tt.epoch, got, tt.cache)
		}
		if got := DatasetSize(number); got != tt.dataset {
			t.Errorf("epoch %d: dataset size %d, want %d", tt.epoch, got, tt.dataset)
		}
	}
}

func TestSeedHash(t *testing.T) {
	epoch1 := "290decd9548b62a8d60345a988386fc84ba6bc95484008f6362f93160ef3e563" // keccak256(32 zero bytes)
	tests := []struct {
		number uint64
		want   string
	}{
		{0, strings.Repeat("00", 32)},
		{29999, strings.Repeat("00", 32)},
		{30000, epoch1},
		{59999, epoch1},
		{60000, hex.EncodeToString(crypto.Keccak256(mustHex(t, epoch1)))},
	}
	for _, tt := range tests {
		if got := hex.EncodeToString(SeedHash(tt.number)); got != tt.want {
			t.Errorf("SeedHash(%d) = %s, want %s", tt.number, got, tt.want)
		}
	}
}

// Cache vectors: 1024-byte caches from the seeds of epochs 0 and 1, as in
// go-ethereum's former consensus/ethash/algorithm_test.go.
func TestCacheGeneration(t *testing.T) {
	tests := []struct {
		epoch uint64
		want  string
	}{
		{0, `
7ce2991c951f7bf4c4c1bb119887ee07871eb5339d7b97b8588e85c742de90e5bafd5bbe6ce93a134fb6be9ad3e30db99d9528a2ea7846833f52e9ca119b6b54
8979480c46e19972bd0738779c932c1b43e665a2fd3122fc3ddb2691f353ceb0ed3e38b8f51fd55b6940290743563c9f8fa8822e611924657501a12aafab8a8d
88fb5fbae3a99d14792406672e783a06940a42799b1c38bc28715db6d37cb11f9f6b24e386dc52dd8c286bd8c36fa813dffe4448a9f56ebcbeea866b42f68d22
6c32aae4d695a23cab28fd74af53b0c2efcc180ceaaccc0b2e280103d097a03c1d1b0f0f26ce5f32a90238f9bc49f645db001ef9cd3d13d44743f841fad11a37
fa290c62c16042f703578921f30b9951465aae2af4a5dad43a7341d7b4a62750954965a47a1c3af638dc3495c4d62a9bab843168c9fc0114e79cffd1b2827b01
75d30ba054658f214e946cf24c43b40d3383fbb0493408e5c5392434ca21bbcf43200dfb876c713d201813934fa485f48767c5915745cf0986b1dc0f33e57748
bf483ee2aff4248dfe461ec0504a13628401020fc22638584a8f2f5206a13b2f233898c78359b21c8226024d0a7a93df5eb6c282bdbf005a4aab497e096f2847
76c71cee57932a8fb89f6d6b8743b60a4ea374899a94a2e0f218d5c55818cefb1790c8529a76dba31ebb0f4592d709b49587d2317970d39c086f18dd244291d9
eedb16705e53e3350591bd4ff4566a3595ac0f0ce24b5e112a3d033bc51b6fea0a92296dea7f5e20bf6ee6bc347d868fda193c395b9bb147e55e5a9f67cfe741
7eea7d699b155bd13804204df7ea91fa9249e4474dddf35188f77019c67d201e4c10d7079c5ad492a71afff9a23ca7e900ba7d1bdeaf3270514d8eb35eab8a0a
718bb7273aeb37768fa589ed8ab01fbf4027f4ebdbbae128d21e485f061c20183a9bc2e31edbda0727442e9d58eb0fe198440fe199e02e77c0f7b99973f1f74c
c9089a51ab96c94a84d66e6aa48b2d0a4543adb5a789039a2aa7b335ca85c91026c7d3c894da53ae364188c3fd92f78e01d080399884a47385aa792e38150cda
a8620b2ebeca41fbc773bb837b5e724d6eb2de570d99858df0d7d97067fb8103b21757873b735097b35d3bea8fd1c359a9e8a63c1540c76c9784cf8d975e995c
778401b94a2e66e6993ad67ad3ecdc2acb17779f1ea8606827ec92b11c728f8c3b6d3f04a3e6ed05ff81dd76d5dc5695a50377bc135aaf1671cf68b750315493
6c64510164d53312bf3c41740c7a237b05faf4a191bd8a95dafa068dbcf370255c725900ce5c934f36feadcfe55b687c440574c1f06f39d207a8553d39156a24
845f64fd8324bb85312979dead74f764c9677aab89801ad4f927f1c00f12e28f22422bb44200d1969d9ab377dd6b099dc6dbc3222e9321b2c1e84f8e2f07731c`},
		{1, `
1f56855d59cc5a085720899b4377a0198f1abe948d85fe5820dc0e346b7c0931b9cde8e541d751de3b2b3275d0aabfae316209d5879297d8bd99f8a033c9d4df
35add1029f4e6404a022d504fb8023e42989aba985a65933b0109c7218854356f9284983c9e7de97de591828ae348b63d1fc78d8db58157344d4e06530ffd422
5c7f6080d451ff94961ec2dd9e28e6d81b49102451676dbdcb6ef1094c1e8b29e7e808d47b2ba5aeb52dabf00d5f0ee08c116289cbf56d8132e5ca557c3d6220
5ba3a48539acabfd4ca3c89e3aaa668e24ffeaeb9eb0136a9fc5a8a676b6d5ad76175eeda0a1fa44b5ff5591079e4b7f581569b6c82416adcb82d7e92980df67
2248c4024013e7be52cf91a82491627d9e6d80eda2770ab82badc5e120cd33a4c84495f718b57396a8f397e797087fad81fa50f0e2f5da71e40816a85de35a96
3cd351364905c45b3116ff25851d43a2ca1d2aa5cdb408440dabef8c57778fc18608bf431d0c7ffd37649a21a7bb9d90def39c821669dbaf165c0262434dfb08
5d057a12de4a7a59fd2dfc931c29c20371abf748b69b618a9bd485b3fb3166cad4d3d27edf0197aabeceb28b96670bdf020f26d1bb9b564aaf82d866bdffd6d4
1aea89e20b15a5d1264ab01d1556bfc2a266081609d60928216bd9646038f07de9fedcc9f2b86ab1b07d7bd88ba1df08b3d89b2ac789001b48a723f217debcb7
090303a3ef50c1d5d99a75c640ec2b401ab149e06511753d8c49cafdde2929ae61e09cc0f0319d262869d21ead9e0cf5ff2de3dbedfb994f32432d2e4aa44c82
7c42781d1477fe03ea0772998e776d63363c6c3edd2d52c89b4d2c9d89cdd90fa33b2b41c8e3f78ef06fe90bcf5cc5756d33a032f16b744141aaa8852bb4cb3a
40792b93489c6d6e56c235ec4aa36c263e9b766a4daaff34b2ea709f9f811aef498a65bfbc1deffd36fcc4d1a123345fac7bf57a1fb50394843cd28976a6c7ff
fe70f7b8d8f384aa06e2c9964c92a8788cef397fffdd35181b42a35d5d98cd7244bbd09e802888d7efc0311ae58e0961e3656205df4bdc553f317df4b6ede4ca
846294a32aec830ab1aa5aac4e78b821c35c70fd752fec353e373bf9be656e775a0111bcbeffdfebd3bd5251d27b9f6971aa561a2bd27a99d61b2ce3965c3726
1e114353e6a31b09340f4078b8a8c6ce6ff4213067a8f21020f78aff4f8b472b701ef730aacb8ce7806ea31b14abe8f8efdd6357ca299d339abc4e43ba324ad1
efe6eb1a5a6e137daa6ec9f6be30931ca368a944cfcf2a0a29f9a9664188f0466e6f078c347f9fe26a9a89d2029462b19245f24ace47aecace6ef85a4e96b31b
5f470eb0165c6375eb8f245d50a25d521d1e569e3b2dccce626752bb26eae624a24511e831a81fab6898a791579f462574ca4851e6588116493dbccc3072e0c5`},
	}
	for _, tt := range tests {
		cache := make([]uint32, 1024/4)
		generateCache(cache, SeedHash(tt.epoch*EpochLength+1))
		want := mustHex(t, tt.want)
		if got := wordsToBytes(cache); !bytes.Equal(got, want) {
			t.Errorf("epoch %d: cache mismatch\nhave %x\nwant %x", tt.epoch, got, want)
		}
	}
}

// ethereum/tests PoWTests/ethash_tests.json, test "first": Keccak-256 of a
// 131072-byte cache and of a 131072-byte dataset generated from the epoch-0
// seed.
func TestCacheAndDatasetHash(t *testing.T) {
	const (
		size        = 131072
		cacheHash   = "57e1ce45602dabf21a12c750872b2db8ee6437fff8ad0e1326e3af62653be7c4"
		datasetHash = "e22e2d9d1d3b150c1aa5f1670fba8664317903ea1e7f09928bfcb141a8d72468"
	)
	cache := make([]uint32, size/4)
	generateCache(cache, SeedHash(0))
	if got := hex.EncodeToString(crypto.Keccak256(wordsToBytes(cache))); got != cacheHash {
		t.Errorf("cache hash %s, want %s", got, cacheHash)
	}
	dataset := make([]uint32, size/4)
	generateDataset(dataset, cache)
	if got := hex.EncodeToString(crypto.Keccak256(wordsToBytes(dataset))); got != datasetHash {
		t.Errorf("dataset hash %s, want %s", got, datasetHash)
	}
}

// Hashimoto vector from go-ethereum's former algorithm_test.go: a 1024-byte
// cache and a 32 KiB dataset from the epoch-0 seed.
func TestHashimoto(t *testing.T) {
	cache := make([]uint32, 1024/4)
	generateCache(cache, make([]byte, 32))
	dataset := make([]uint32, 32*1024/4)
	generateDataset(dataset, cache)

	sealHash := mustHex(t, "c9149cc0386e689d789a1c2f3d5d169a61a6218ed30e74414dc736e442ef3d1f")
	wantDigest := "e4073cffaef931d37117cefd9afd27ea0f1cad6a981dd2605c4a1ac97c519800"
	wantResult := "d3539235ee2e6f8db665c0a72169f55b7f6c605712330b778ec3944f0eb5a557"

	h := newHasher()
	digest, result := h.hashimotoLight(cache, 32*1024, sealHash, 0)
	if got := hex.EncodeToString(digest[:]); got != wantDigest {
		t.Errorf("light digest %s, want %s", got, wantDigest)
	}
	if got := hex.EncodeToString(result[:]); got != wantResult {
		t.Errorf("light result %s, want %s", got, wantResult)
	}
	digest, result = h.hashimotoFull(dataset, sealHash, 0)
	if got := hex.EncodeToString(digest[:]); got != wantDigest {
		t.Errorf("full digest %s, want %s", got, wantDigest)
	}
	if got := hex.EncodeToString(result[:]); got != wantResult {
		t.Errorf("full result %s, want %s", got, wantResult)
	}
	// Another nonce must give another result.
	if _, other := h.hashimotoLight(cache, 32*1024, sealHash, 1); other == result {
		t.Error("nonce 1 gave the same result as nonce 0")
	}
}

func TestIsPrime(t *testing.T) {
	primes := map[uint64]bool{0: false, 1: false, 2: true, 3: true, 4: false, 9: false, 262139: true, 262141: false, 8388593: true}
	for n, want := range primes {
		if got := isPrime(n); got != want {
			t.Errorf("isPrime(%d) = %v, want %v", n, got, want)
		}
	}
}

func BenchmarkCacheGeneration(b *testing.B) {
	cache := make([]uint32, CacheSize(0)/4)
	seed := SeedHash(0)
	b.SetBytes(int64(len(cache) * 4))
	for b.Loop() {
		generateCache(cache, seed)
	}
}

func BenchmarkDatasetItem(b *testing.B) {
	cache := make([]uint32, CacheSize(0)/4)
	generateCache(cache, SeedHash(0))
	h := newHasher()
	var item [hashWords]uint32
	b.ReportAllocs()
	i := uint32(0)
	for b.Loop() {
		h.datasetItem(item[:], cache, i)
		i++
	}
}

func BenchmarkHashimotoLight(b *testing.B) {
	cache := make([]uint32, CacheSize(0)/4)
	generateCache(cache, SeedHash(0))
	size := DatasetSize(0)
	sealHash := common.HexToHash("c9149cc0386e689d789a1c2f3d5d169a61a6218ed30e74414dc736e442ef3d1f")
	h := newHasher()
	b.ReportAllocs()
	nonce := uint64(0)
	for b.Loop() {
		h.hashimotoLight(cache, size, sealHash[:], nonce)
		nonce++
	}
}
