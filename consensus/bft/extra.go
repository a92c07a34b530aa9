package bft

import (
	"bytes"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// VanityLength is the size of extraData's vanity item in both protocols.
const VanityLength = 32

// Vote type bytes of extraData's vote item in both protocols (Besu's
// Vote.ADD_BYTE_VALUE and DROP_BYTE_VALUE).
const (
	VoteAdd  byte = 0xff
	VoteDrop byte = 0x00
)

// Vote is a proposer's vote to add (Add) or drop a validator, carried in the
// block it proposes.
type Vote struct {
	Recipient common.Address
	Add       bool
	// RawDrop records a drop vote whose type was read as the raw byte 00
	// (Besu's writeByte) rather than 80 (go-ethereum's encoding of the byte
	// 0, as GoQuorum writes QBFT's), so a codec that accepts both
	// re-encodes, and so hashes, the extraData exactly as received.
	RawDrop bool
}

// Extra is a BFT header's extraData as IBFT 2.0 and QBFT both lay it out:
// the RLP list [vanity32, [validators], vote, round, [seals]]. The two
// protocols differ only in how they write the vote and the round (and so
// in what they hash): packages ibft2 and qbft each define their ExtraData
// as this struct with their own encoding.
type Extra struct {
	Vanity [VanityLength]byte
	// Validators are the validators of the block that carries the extraData
	// (the set after its parent's vote was applied), in ascending order.
	Validators []common.Address
	// Vote is nil when the proposer casts none.
	Vote *Vote
	// Round is the round the block was committed in.
	Round uint32
	// Seals are the commit seals of a committed block.
	Seals [][]byte
}

// ExtraCodec reads and writes one protocol's extraData.
type ExtraCodec interface {
	DecodeExtra(extra []byte) (*Extra, error)
	EncodeExtra(e *Extra) []byte
}

// FormatError is a codec's decoding error: base (the codec's sentinel) with
// what was wrong and, when not nil, the underlying err. Both are wrapped, so
// a caller tells a bad signature (ErrBadSignature) from other malformed
// input.
func FormatError(base error, what string, err error) error {
	if err != nil {
		return fmt.Errorf("%w: %s: %w", base, what, err)
	}
	return fmt.Errorf("%w: %s", base, what)
}

// SplitRaw splits the first RLP item of b, returning its whole encoding.
func SplitRaw(b []byte) (item, rest []byte, err error) {
	_, _, rest, err = rlp.Split(b)
	if err != nil {
		return nil, nil, err
	}
	return b[:len(b)-len(rest)], rest, nil
}

// SplitExtra reads an extraData list of exactly five items and nothing
// after it: the three items both protocols write alike (a 32-byte vanity,
// 20-byte validators, 65-byte seals) into the returned Extra, and the vote
// and round items as their whole encodings, for the protocol to read. Errors
// wrap base.
func SplitExtra(b []byte, base error) (e *Extra, vote, round []byte, err error) {
	list, rest, err := rlp.SplitList(b)
	if err != nil {
		return nil, nil, nil, FormatError(base, "not an RLP list", err)
	}
	if len(rest) != 0 {
		return nil, nil, nil, FormatError(base, "trailing bytes", nil)
	}
	e = new(Extra)
	vanity, list, err := rlp.SplitString(list)
	if err != nil || len(vanity) != VanityLength {
		return nil, nil, nil, FormatError(base, "vanity must be 32 bytes", err)
	}
	copy(e.Vanity[:], vanity)
	vals, list, err := rlp.SplitList(list)
	if err != nil {
		return nil, nil, nil, FormatError(base, "validators must be a list", err)
	}
	for len(vals) > 0 {
		var a []byte
		if a, vals, err = rlp.SplitString(vals); err != nil || len(a) != common.AddressLength {
			return nil, nil, nil, FormatError(base, "validator must be 20 bytes", err)
		}
		e.Validators = append(e.Validators, common.BytesToAddress(a))
	}
	if vote, list, err = SplitRaw(list); err != nil {
		return nil, nil, nil, FormatError(base, "vote must be a canonical RLP item", err)
	}
	if round, list, err = SplitRaw(list); err != nil {
		return nil, nil, nil, FormatError(base, "round must be a canonical RLP item", err)
	}
	seals, list, err := rlp.SplitList(list)
	if err != nil {
		return nil, nil, nil, FormatError(base, "seals must be a list", err)
	}
	for len(seals) > 0 {
		var s []byte
		if s, seals, err = rlp.SplitString(seals); err != nil || len(s) != SealLength {
			return nil, nil, nil, FormatError(base, "commit seal must be 65 bytes", err)
		}
		e.Seals = append(e.Seals, bytes.Clone(s))
	}
	if len(list) != 0 {
		return nil, nil, nil, FormatError(base, "more than five items", nil)
	}
	return e, vote, round, nil
}

// WriteExtra writes the extraData list: vanity and validators, then what
// tail writes (the vote, the round and the seals, in the protocol's
// encoding).
func WriteExtra(e *Extra, tail func(w rlp.EncoderBuffer)) []byte {
	w := rlp.NewEncoderBuffer(nil)
	outer := w.List()
	w.WriteBytes(e.Vanity[:])
	vl := w.List()
	for _, v := range e.Validators {
		w.WriteBytes(v[:])
	}
	w.ListEnd(vl)
	tail(w)
	w.ListEnd(outer)
	out := w.ToBytes()
	w.Flush()
	return out
}

// WriteSeals writes the seal list.
func WriteSeals(w rlp.EncoderBuffer, seals [][]byte) {
	l := w.List()
	for _, s := range seals {
		w.WriteBytes(s)
	}
	w.ListEnd(l)
}

// WithRoundAndSeals returns a copy of header whose extraData, in codec c,
// carries round and seals.
func WithRoundAndSeals(c ExtraCodec, header *types.Header, round uint32, seals [][]byte) (*types.Header, error) {
	extra, err := c.DecodeExtra(header.Extra)
	if err != nil {
		return nil, err
	}
	extra.Round, extra.Seals = round, seals
	h := types.CopyHeader(header)
	h.Extra = c.EncodeExtra(extra)
	return h, nil
}

// RecoverSigners returns the signers of seals over digest, in seal order.
func RecoverSigners(digest common.Hash, seals [][]byte) ([]common.Address, error) {
	out := make([]common.Address, len(seals))
	for i, s := range seals {
		var err error
		if out[i], err = RecoverSigner(digest, s); err != nil {
			return nil, fmt.Errorf("commit seal %d: %w", i, err)
		}
	}
	return out, nil
}
