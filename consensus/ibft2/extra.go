package ibft2

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/consensus/bft"
)

// Vote is a proposer's vote to add (Add) or drop a validator, carried in the
// block it proposes.
type Vote = bft.Vote

// ExtraData is the IBFT 2.0 header extraData: the RLP list
// [vanity32, [validators], vote | empty, round (4 bytes), [seals]].
type ExtraData bft.Extra

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
	return bft.WriteExtra((*bft.Extra)(e), func(w rlp.EncoderBuffer) {
		if e.Vote == nil {
			w.WriteBytes(nil) // Besu's writeNull: 0x80
		} else {
			vl := w.List()
			w.WriteBytes(e.Vote.Recipient[:])
			// Besu writes the vote as a raw byte: 0xff is 81ff, 0x00 is the
			// single byte 00 (not 80, the empty string go-ethereum would pick).
			if e.Vote.Add {
				w.WriteBytes([]byte{bft.VoteAdd})
			} else {
				w.Write([]byte{bft.VoteDrop})
			}
			w.ListEnd(vl)
		}
		if l != layoutWithoutRoundSe {
			var r [4]byte
			r[0], r[1], r[2], r[3] = byte(e.Round>>24), byte(e.Round>>16), byte(e.Round>>8), byte(e.Round)
			w.WriteBytes(r[:]) // a fixed 4-byte integer, zeros kept
			if l == layoutFull {
				bft.WriteSeals(w, e.Seals)
			}
		}
	})
}

// ErrExtraDataFormat is wrapped by every DecodeExtraData error.
var ErrExtraDataFormat = errors.New("invalid IBFT 2.0 extraData")

// DecodeExtraData parses an IBFT 2.0 extraData. It is as strict as Besu's
// decoder: exactly five items, a 32-byte vanity, 20-byte validators, a vote
// that is the empty string or [20-byte address, ff | 00], a 4-byte round,
// 65-byte seals, and nothing after the list.
func DecodeExtraData(b []byte) (*ExtraData, error) {
	x, vote, round, err := bft.SplitExtra(b, ErrExtraDataFormat)
	if err != nil {
		return nil, err
	}
	e := (*ExtraData)(x)
	kind, content, _, err := rlp.Split(vote)
	if err != nil {
		return nil, bft.FormatError(ErrExtraDataFormat, "vote", err)
	}
	switch {
	case kind == rlp.String && len(content) == 0:
	case kind == rlp.List:
		a, r, err := rlp.SplitString(content)
		if err != nil || len(a) != common.AddressLength {
			return nil, bft.FormatError(ErrExtraDataFormat, "vote recipient must be 20 bytes", err)
		}
		k, v, r, err := rlp.Split(r)
		if err != nil || len(r) != 0 || k == rlp.List || len(v) != 1 || (v[0] != bft.VoteAdd && v[0] != bft.VoteDrop) {
			return nil, bft.FormatError(ErrExtraDataFormat, "vote type", err)
		}
		e.Vote = &Vote{Recipient: common.BytesToAddress(a), Add: v[0] == bft.VoteAdd}
	default:
		return nil, bft.FormatError(ErrExtraDataFormat, "vote", nil)
	}
	r, _, err := rlp.SplitString(round)
	if err != nil || len(r) != 4 {
		return nil, bft.FormatError(ErrExtraDataFormat, "round must be 4 bytes", err)
	}
	e.Round = uint32(r[0])<<24 | uint32(r[1])<<16 | uint32(r[2])<<8 | uint32(r[3])
	return e, nil
}

// EncodeValidators returns the extraData of a genesis block for validators:
// zero vanity, no vote, round 0, no seals (what `rlp encode
// --type=IBFT_EXTRA_DATA` and generate-blockchain-config write).
func EncodeValidators(validators []common.Address) []byte {
	return (&ExtraData{Validators: validators}).Encode()
}
