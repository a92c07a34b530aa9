package api

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/rpctypes"
)

// BlockParam is Besu's "block parameter or block hash" (eth_getBalance,
// eth_call, eth_getProof, …): a tag, a number, a block hash, or an EIP-1898
// object {"blockNumber": …} / {"blockHash": …, "requireCanonical": …}.
// Numbers are read like Java's Long.decode (0x hex, # hex, leading-zero
// octal, decimal, optional sign); a string of 65 characters or more is a
// hash (0x optional); anything else longer than 16 characters is refused.
// Failures are Besu's "Invalid block param (block not found)".
type BlockParam struct {
	Tag              string // one of the tags, or "" for Number/Hash
	Number           int64  // negative numbers parse; methods refuse them
	Hash             *common.Hash
	RequireCanonical bool
}

// Latest is the "latest" block parameter.
var Latest = BlockParam{Tag: rpctypes.TagLatest}

// UnmarshalJSON parses a block parameter.
func (b *BlockParam) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return rpctypes.ErrInvalidBlockParams
		}
		if raw, ok := obj["blockHash"]; ok && string(raw) != "null" {
			h, err := parseLenientHash(jsonText(raw))
			if err != nil {
				return rpctypes.ErrInvalidBlockParams
			}
			*b = BlockParam{Hash: &h, RequireCanonical: jsonText(obj["requireCanonical"]) == "true"}
			return nil
		}
		raw, ok := obj["blockNumber"]
		if !ok || string(raw) == "null" {
			return rpctypes.ErrInvalidBlockParams
		}
		n, err := rpctypes.DecodeLong(jsonText(raw))
		if err != nil {
			return rpctypes.ErrInvalidBlockParams
		}
		*b = BlockParam{Number: n}
		return nil
	}
	var s string
	if err := rpctypes.Unquote(data, &s); err != nil {
		return rpctypes.ErrInvalidBlockParams
	}
	if tag, ok := rpctypes.ParseTag(s); ok {
		*b = BlockParam{Tag: tag}
		return nil
	}
	switch {
	case len(s) >= 65:
		h, err := parseLenientHash(s)
		if err != nil {
			return rpctypes.ErrInvalidBlockParams
		}
		*b = BlockParam{Hash: &h}
		return nil
	case len(s) > 16:
		return rpctypes.ErrInvalidBlockParams
	}
	n, err := rpctypes.DecodeLong(s)
	if err != nil {
		return rpctypes.ErrInvalidBlockParams
	}
	*b = BlockParam{Number: n}
	return nil
}

// String renders the parameter for logs.
func (b BlockParam) String() string {
	switch {
	case b.Tag != "":
		return b.Tag
	case b.Hash != nil:
		return b.Hash.Hex()
	}
	return strconv.FormatInt(b.Number, 10)
}

// jsonText is the text of a JSON value the way Jackson's asText reads it:
// a string's contents, or the literal of anything else.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// parseLenientHash reads 32 bytes of hex, 0x optional, an odd number of
// digits and fewer than 64 digits allowed (left-padded), as Besu's
// Bytes32.fromHexStringLenient.
func parseLenientHash(s string) (common.Hash, error) {
	b, err := rpctypes.LenientHex(s, common.HashLength)
	if err != nil {
		return common.Hash{}, err
	}
	return common.BytesToHash(b), nil
}
