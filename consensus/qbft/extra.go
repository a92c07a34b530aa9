package qbft

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

// Vote type values of extraData's vote item.
const (
	VoteAdd  byte = 0xff
	VoteDrop byte = 0x00
)

// Vote is a proposer's vote to add (Add) or drop a validator, carried in the
// block it proposes.
type Vote struct {
	Recipient common.Address
	Add       bool
	// zeroByteDrop records a drop vote whose type was read as the raw byte
	// 00 (Besu's writeByte) rather than 80 (go-ethereum's encoding of the
	// byte 0, as GoQuorum writes it), so the extraData re-encodes, and so
	// hashes, exactly as received.
	zeroByteDrop bool
}

// ExtraData is the QBFT header extraData: the RLP list
// [vanity32, [validators], vote (empty list or [address, type]),
// round (RLP integer), [seals]].
type ExtraData struct {
	Vanity [VanityLength]byte
	// Validators are the validators of the block, in ascending order.
	Validators []common.Address
	// Vote is nil when the proposer casts none (encoded as 0xc0).
	Vote *Vote
	// Round is the round the block was committed in.
	Round uint32
	// Seals are the commit seals of a committed block.
	Seals [][]byte
}

// Encode returns the RLP encoding of the full extraData.
func (e *ExtraData) Encode() []byte { return e.encode(e.Round, true) }

// encode writes the extraData with round and, if seals is false, an empty
// seal list.
func (e *ExtraData) encode(round uint32, seals bool) []byte {
	w := rlp.NewEncoderBuffer(nil)
	outer := w.List()
	w.WriteBytes(e.Vanity[:])
	vl := w.List()
	for _, v := range e.Validators {
		w.WriteBytes(v[:])
	}
	w.ListEnd(vl)
	l := w.List()
	if e.Vote != nil {
		w.WriteBytes(e.Vote.Recipient[:])
		switch {
		case e.Vote.Add:
			w.WriteBytes([]byte{VoteAdd}) // 81ff
		case e.Vote.zeroByteDrop:
			w.Write([]byte{VoteDrop}) // raw 00
		default:
			w.WriteUint64(0) // 80, go-ethereum's encoding of the byte 0
		}
	}
	w.ListEnd(l)
	w.WriteUint64(uint64(round))
	sl := w.List()
	if seals {
		for _, s := range e.Seals {
			w.WriteBytes(s)
		}
	}
	w.ListEnd(sl)
	w.ListEnd(outer)
	out := w.ToBytes()
	w.Flush()
	return out
}

// ErrExtraDataFormat is wrapped by every DecodeExtraData error.
var ErrExtraDataFormat = errors.New("invalid QBFT extraData")

func extraErr(what string, err error) error {
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrExtraDataFormat, what, err)
	}
	return fmt.Errorf("%w: %s", ErrExtraDataFormat, what)
}

// DecodeExtraData parses a QBFT extraData strictly: one RLP list of exactly
// five items and nothing after it, a 32-byte vanity, 20-byte validators, a
// vote that is an empty list or [20-byte address, ff | 00 | 80], a canonical
// RLP integer round of at most 32 bits, and 65-byte seals.
func DecodeExtraData(b []byte) (*ExtraData, error) {
	list, rest, err := rlp.SplitList(b)
	if err != nil {
		return nil, extraErr("not an RLP list", err)
	}
	if len(rest) != 0 {
		return nil, extraErr("trailing bytes", nil)
	}
	var e ExtraData
	vanity, list, err := rlp.SplitString(list)
	if err != nil || len(vanity) != VanityLength {
		return nil, extraErr("vanity must be 32 bytes", err)
	}
	copy(e.Vanity[:], vanity)
	vals, list, err := rlp.SplitList(list)
	if err != nil {
		return nil, extraErr("validators must be a list", err)
	}
	for len(vals) > 0 {
		var a []byte
		if a, vals, err = rlp.SplitString(vals); err != nil || len(a) != common.AddressLength {
			return nil, extraErr("validator must be 20 bytes", err)
		}
		e.Validators = append(e.Validators, common.BytesToAddress(a))
	}
	vote, list, err := rlp.SplitList(list)
	if err != nil {
		return nil, extraErr("vote must be a list", err)
	}
	if len(vote) > 0 {
		a, r, err := rlp.SplitString(vote)
		if err != nil || len(a) != common.AddressLength {
			return nil, extraErr("vote recipient must be 20 bytes", err)
		}
		k, v, r, err := rlp.Split(r)
		if err != nil || len(r) != 0 || k == rlp.List {
			return nil, extraErr("vote type", err)
		}
		e.Vote = &Vote{Recipient: common.BytesToAddress(a)}
		switch {
		case len(v) == 1 && v[0] == VoteAdd:
			e.Vote.Add = true
		case len(v) == 1 && v[0] == VoteDrop && k == rlp.Byte:
			e.Vote.zeroByteDrop = true
		case len(v) == 0:
		default:
			return nil, extraErr(fmt.Sprintf("vote type %x", v), nil)
		}
	}
	round, list, err := rlp.SplitUint64(list)
	if err != nil {
		return nil, extraErr("round must be a canonical RLP integer", err)
	}
	if round > 0xffffffff {
		return nil, extraErr("round exceeds 32 bits", nil)
	}
	e.Round = uint32(round)
	seals, list, err := rlp.SplitList(list)
	if err != nil {
		return nil, extraErr("seals must be a list", err)
	}
	for len(seals) > 0 {
		var s []byte
		if s, seals, err = rlp.SplitString(seals); err != nil || len(s) != SealLength {
			return nil, extraErr("commit seal must be 65 bytes", err)
		}
		e.Seals = append(e.Seals, bytes.Clone(s))
	}
	if len(list) != 0 {
		return nil, extraErr("more than five items", nil)
	}
	return &e, nil
}

// EncodeValidators returns the extraData of a genesis block for validators:
// zero vanity, no vote, round 0, no seals (what `besu rlp encode
// --type=QBFT_EXTRA_DATA` writes).
func EncodeValidators(validators []common.Address) []byte {
	return (&ExtraData{Validators: validators}).Encode()
}
