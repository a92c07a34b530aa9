package ibft2

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus/bft"
)

// VanityLength is the size of extraData's vanity item.
const VanityLength = 32

// SealLength is the size of a commit seal or message signature.
const SealLength = bft.SealLength

// Vote byte values of extraData's vote item (Besu's Vote.ADD_BYTE_VALUE and
// DROP_BYTE_VALUE).
const (
	VoteAdd  byte = 0xff
	VoteDrop byte = 0x00
)

// Vote is a proposer's vote to add (Add) or drop a validator, carried in the
// block it proposes.
type Vote struct {
	Recipient common.Address
	Add       bool
}

// ExtraData is the IBFT 2.0 header extraData: the RLP list
// [vanity32, [validators], vote | empty, round (4 bytes), [seals]].
type ExtraData struct {
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

// Encoding layouts: the full extraData and the two filtered forms hashed by
// Besu's IbftBlockHashing.
type layout int

const (
	layoutFull           layout = iota // all five items
	layoutWithoutSeals                 // [vanity, validators, vote, round]: commit-seal preimage
	layoutWithoutRoundSe               // [vanity, validators, vote]: on-chain block hash
)

// Encode returns the RLP encoding of the full extraData.
func (e *ExtraData) Encode() []byte { return e.encode(layoutFull) }

func (e *ExtraData) encode(l layout) []byte {
	w := rlp.NewEncoderBuffer(nil)
	outer := w.List()
	w.WriteBytes(e.Vanity[:])
	vl := w.List()
	for _, v := range e.Validators {
		w.WriteBytes(v[:])
	}
	w.ListEnd(vl)
	if e.Vote == nil {
		w.WriteBytes(nil) // Besu's writeNull: 0x80
	} else {
		l := w.List()
		w.WriteBytes(e.Vote.Recipient[:])
		// Besu writes the vote as a raw byte: 0xff is 81ff, 0x00 is the
		// single byte 00 (not 80, the empty string go-ethereum would pick).
		if e.Vote.Add {
			w.WriteBytes([]byte{VoteAdd})
		} else {
			w.Write([]byte{VoteDrop})
		}
		w.ListEnd(l)
	}
	if l != layoutWithoutRoundSe {
		var r [4]byte
		r[0], r[1], r[2], r[3] = byte(e.Round>>24), byte(e.Round>>16), byte(e.Round>>8), byte(e.Round)
		w.WriteBytes(r[:]) // a fixed 4-byte integer, zeros kept
		if l == layoutFull {
			sl := w.List()
			for _, s := range e.Seals {
				w.WriteBytes(s)
			}
			w.ListEnd(sl)
		}
	}
	w.ListEnd(outer)
	out := w.ToBytes()
	w.Flush()
	return out
}

// Errors of DecodeExtraData.
var (
	ErrExtraDataFormat = errors.New("invalid IBFT 2.0 extraData")
)

// DecodeExtraData parses an IBFT 2.0 extraData. It is as strict as Besu's
// decoder: exactly five items, a 32-byte vanity, 20-byte validators, a
// 4-byte round, 65-byte seals, and nothing after the list.
func DecodeExtraData(b []byte) (*ExtraData, error) {
	list, rest, err := rlp.SplitList(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrExtraDataFormat, err)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: trailing bytes", ErrExtraDataFormat)
	}
	var e ExtraData
	// vanity
	vanity, list, err := rlp.SplitString(list)
	if err != nil || len(vanity) != VanityLength {
		return nil, fmt.Errorf("%w: vanity", ErrExtraDataFormat)
	}
	copy(e.Vanity[:], vanity)
	// validators
	vals, list, err := rlp.SplitList(list)
	if err != nil {
		return nil, fmt.Errorf("%w: validators: %v", ErrExtraDataFormat, err)
	}
	for len(vals) > 0 {
		var a []byte
		if a, vals, err = rlp.SplitString(vals); err != nil || len(a) != common.AddressLength {
			return nil, fmt.Errorf("%w: validator address", ErrExtraDataFormat)
		}
		e.Validators = append(e.Validators, common.BytesToAddress(a))
	}
	// vote
	kind, content, list, err := rlp.Split(list)
	if err != nil {
		return nil, fmt.Errorf("%w: vote: %v", ErrExtraDataFormat, err)
	}
	switch {
	case kind == rlp.String && len(content) == 0:
	case kind == rlp.List:
		a, r, err := rlp.SplitString(content)
		if err != nil || len(a) != common.AddressLength {
			return nil, fmt.Errorf("%w: vote recipient", ErrExtraDataFormat)
		}
		k, v, r, err := rlp.Split(r)
		if err != nil || len(r) != 0 || k == rlp.List || len(v) != 1 || (v[0] != VoteAdd && v[0] != VoteDrop) {
			return nil, fmt.Errorf("%w: vote type", ErrExtraDataFormat)
		}
		e.Vote = &Vote{Recipient: common.BytesToAddress(a), Add: v[0] == VoteAdd}
	default:
		return nil, fmt.Errorf("%w: vote", ErrExtraDataFormat)
	}
	// round
	round, list, err := rlp.SplitString(list)
	if err != nil || len(round) != 4 {
		return nil, fmt.Errorf("%w: round must be 4 bytes", ErrExtraDataFormat)
	}
	e.Round = uint32(round[0])<<24 | uint32(round[1])<<16 | uint32(round[2])<<8 | uint32(round[3])
	// seals
	seals, list, err := rlp.SplitList(list)
	if err != nil {
		return nil, fmt.Errorf("%w: seals: %v", ErrExtraDataFormat, err)
	}
	for len(seals) > 0 {
		var s []byte
		if s, seals, err = rlp.SplitString(seals); err != nil || len(s) != SealLength {
			return nil, fmt.Errorf("%w: commit seal", ErrExtraDataFormat)
		}
		e.Seals = append(e.Seals, bytes.Clone(s))
	}
	if len(list) != 0 {
		return nil, fmt.Errorf("%w: too many items", ErrExtraDataFormat)
	}
	return &e, nil
}

// EncodeValidators returns the extraData of a genesis block for validators:
// zero vanity, no vote, round 0, no seals (what `rlp encode
// --type=IBFT_EXTRA_DATA` and generate-blockchain-config write).
func EncodeValidators(validators []common.Address) []byte {
	return (&ExtraData{Validators: validators}).Encode()
}
