package qbft

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus/bft"
)

// Vote is a proposer's vote to add (Add) or drop a validator, carried in the
// block it proposes. A drop is written as GoQuorum writes it (80) unless it
// was read as the raw byte 00 (RawDrop).
type Vote = bft.Vote

// ExtraData is the QBFT header extraData: the RLP list
// [vanity32, [validators], vote (empty list or [address, type]),
// round (RLP integer), [seals]].
type ExtraData bft.Extra

// Encode returns the RLP encoding of the full extraData.
func (e *ExtraData) Encode() []byte { return e.encode(e.Round, true) }

// encode writes the extraData with round and, if seals is false, an empty
// seal list.
func (e *ExtraData) encode(round uint32, seals bool) []byte {
	return bft.WriteExtra((*bft.Extra)(e), func(w rlp.EncoderBuffer) {
		l := w.List()
		if e.Vote != nil {
			w.WriteBytes(e.Vote.Recipient[:])
			switch {
			case e.Vote.Add:
				w.WriteBytes([]byte{bft.VoteAdd}) // 81ff
			case e.Vote.RawDrop:
				w.Write([]byte{bft.VoteDrop}) // raw 00
			default:
				w.WriteUint64(0) // 80, go-ethereum's encoding of the byte 0
			}
		}
		w.ListEnd(l)
		w.WriteUint64(uint64(round))
		var s [][]byte
		if seals {
			s = e.Seals
		}
		bft.WriteSeals(w, s)
	})
}

// ErrExtraDataFormat is wrapped by every DecodeExtraData error.
var ErrExtraDataFormat = errors.New("invalid QBFT extraData")

func extraErr(what string, err error) error { return bft.FormatError(ErrExtraDataFormat, what, err) }

// DecodeExtraData parses a QBFT extraData strictly: one RLP list of exactly
// five items and nothing after it, a 32-byte vanity, 20-byte validators, a
// vote that is an empty list or [20-byte address, ff | 00 | 80], a canonical
// RLP integer round of at most 32 bits, and 65-byte seals.
func DecodeExtraData(b []byte) (*ExtraData, error) {
	x, voteItem, roundItem, err := bft.SplitExtra(b, ErrExtraDataFormat)
	if err != nil {
		return nil, err
	}
	e := (*ExtraData)(x)
	vote, _, err := rlp.SplitList(voteItem)
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
		case len(v) == 1 && v[0] == bft.VoteAdd:
			e.Vote.Add = true
		case len(v) == 1 && v[0] == bft.VoteDrop && k == rlp.Byte:
			e.Vote.RawDrop = true
		case len(v) == 0:
		default:
			return nil, extraErr(fmt.Sprintf("vote type %x", v), nil)
		}
	}
	round, _, err := rlp.SplitUint64(roundItem)
	if err != nil {
		return nil, extraErr("round must be a canonical RLP integer", err)
	}
	if round > 0xffffffff {
		return nil, extraErr("round exceeds 32 bits", nil)
	}
	e.Round = uint32(round)
	return e, nil
}

// EncodeValidators returns the extraData of a genesis block for validators:
// zero vanity, no vote, round 0, no seals (what `besu rlp encode
// --type=QBFT_EXTRA_DATA` writes).
func EncodeValidators(validators []common.Address) []byte {
	return (&ExtraData{Validators: validators}).Encode()
}
