package ethash

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus"
)

// Positions of the seal fields in the RLP list of a header.
const (
	mixDigestField = 13
	nonceField     = 14
)

var two256 = new(big.Int).Lsh(big.NewInt(1), 256)

// SealHash returns the hash the proof of work commits to: Keccak-256 of the
// RLP list of every header field except mixDigest and nonce, in header order.
// Optional fields (baseFee, withdrawalsRoot, blobGasUsed, excessBlobGas,
// parentBeaconBlockRoot, requestsHash, …) are included exactly as the header
// encoding includes them, because the list is cut out of that encoding.
// A header that cannot be encoded (a negative big integer field) gets the
// zero hash.
func SealHash(header *types.Header) common.Hash {
	h, err := sealHash(header)
	if err != nil {
		// Only a negative big integer field makes the encoding fail;
		// VerifyPoW rejects such headers instead of hashing them.
		return common.Hash{}
	}
	return h
}

func sealHash(header *types.Header) (common.Hash, error) {
	enc, err := rlp.EncodeToBytes(header)
	if err != nil {
		return common.Hash{}, fmt.Errorf("encode header: %w", err)
	}
	fields, err := rlp.SplitListValues(enc)
	if err != nil {
		return common.Hash{}, fmt.Errorf("split header encoding: %w", err)
	}
	if len(fields) <= nonceField {
		return common.Hash{}, fmt.Errorf("header encoding has %d fields", len(fields))
	}
	kept := make([][]byte, 0, len(fields)-2)
	kept = append(kept, fields[:mixDigestField]...)
	kept = append(kept, fields[nonceField+1:]...)
	list, err := rlp.MergeListValues(kept)
	if err != nil {
		return common.Hash{}, err
	}
	return crypto.Keccak256Hash(list), nil
}

// Target returns the largest PoW result valid at difficulty: 2^256 / difficulty.
// A non-positive difficulty gets target 0, which no real hash meets.
func Target(difficulty *big.Int) *big.Int {
	if difficulty == nil || difficulty.Sign() <= 0 {
		return new(big.Int)
	}
	return new(big.Int).Div(two256, difficulty)
}

// Compute runs hashimoto light for the epoch of block number and returns the
// mix digest and the result (to be compared with Target). The first call for
// an epoch generates its cache. Beyond the supported epochs (block
// 61,440,000 and later) it returns a zero mix and an all-ones result, which
// meets no target.
func (e *Ethash) Compute(number uint64, sealHash common.Hash, nonce uint64) (mix common.Hash, result common.Hash) {
	c, err := e.cache(number)
	if err != nil {
		for i := range result {
			result[i] = 0xff
		}
		return common.Hash{}, result
	}
	h := e.hashers.Get().(*hasher)
	defer e.hashers.Put(h)
	digest, res := h.hashimotoLight(c.data, c.datasetSize, sealHash[:], nonce)
	return common.Hash(digest), common.Hash(res)
}

// VerifyPoW checks the header's seal: the mix digest hashimoto computes from
// SealHash(header) and header.Nonce must equal header.MixDigest, and the
// result must not exceed Target(header.Difficulty). Errors wrap
// consensus.ErrInvalidSeal.
func (e *Ethash) VerifyPoW(header *types.Header) error {
	if header.Number == nil || !header.Number.IsUint64() {
		return fmt.Errorf("%w: invalid block number %v", consensus.ErrInvalidSeal, header.Number)
	}
	if header.Difficulty == nil || header.Difficulty.Sign() <= 0 {
		return fmt.Errorf("%w: non-positive difficulty %v", consensus.ErrInvalidSeal, header.Difficulty)
	}
	number := header.Number.Uint64()
	c, err := e.cache(number)
	if err != nil {
		return fmt.Errorf("%w: %v", consensus.ErrInvalidSeal, err)
	}
	h := e.hashers.Get().(*hasher)
	defer e.hashers.Put(h)
	sh, err := sealHash(header)
	if err != nil {
		return fmt.Errorf("%w: %v", consensus.ErrInvalidSeal, err)
	}
	digest, result := h.hashimotoLight(c.data, c.datasetSize, sh[:], header.Nonce.Uint64())
	if common.Hash(digest) != header.MixDigest {
		return fmt.Errorf("%w: mix digest %x, want %x", consensus.ErrInvalidSeal, header.MixDigest, digest)
	}
	if new(big.Int).SetBytes(result[:]).Cmp(Target(header.Difficulty)) > 0 {
		return fmt.Errorf("%w: PoW result %x above target for difficulty %v", consensus.ErrInvalidSeal, result, header.Difficulty)
	}
	return nil
}
