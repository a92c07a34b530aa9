package api

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/rpc"
)

// Block tags.
const (
	tagLatest    = "latest"
	tagEarliest  = "earliest"
	tagPending   = "pending"
	tagSafe      = "safe"
	tagFinalized = "finalized"
)

// BlockParam is a block parameter: a number (hex quantity or decimal
// string), a tag, a block hash, or an EIP-1898 object
// {"blockNumber": …} / {"blockHash": …, "requireCanonical": …}.
type BlockParam struct {
	Tag              string // one of the tags, or "" for Number/Hash
	Number           uint64
	Hash             *common.Hash
	RequireCanonical bool
	Negative         bool // a negative number: no such block
}

// Latest is the "latest" block parameter.
var Latest = BlockParam{Tag: tagLatest}

// UnmarshalJSON parses a block parameter; failures are Besu's
// "Invalid block param" error.
func (b *BlockParam) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var obj struct {
			BlockNumber      *string      `json:"blockNumber"`
			BlockHash        *common.Hash `json:"blockHash"`
			RequireCanonical bool         `json:"requireCanonical"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return rpc.ErrInvalidBlockParams
		}
		switch {
		case obj.BlockHash != nil && obj.BlockNumber == nil:
			*b = BlockParam{Hash: obj.BlockHash, RequireCanonical: obj.RequireCanonical}
			return nil
		case obj.BlockNumber != nil && obj.BlockHash == nil:
			return b.parseString(*obj.BlockNumber)
		}
		return rpc.ErrInvalidBlockParams
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		var n uint64
		if err := json.Unmarshal(data, &n); err != nil {
			return rpc.ErrInvalidBlockParams
		}
		*b = BlockParam{Number: n}
		return nil
	}
	return b.parseString(s)
}

func (b *BlockParam) parseString(s string) error {
	s = strings.TrimSpace(s)
	switch lower := strings.ToLower(s); lower {
	case tagLatest, tagEarliest, tagPending, tagSafe, tagFinalized:
		*b = BlockParam{Tag: lower}
		return nil
	}
	if len(s) == 66 && (strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X")) {
		h, err := hexutil.Decode(s)
		if err != nil {
			return rpc.ErrInvalidBlockParams
		}
		hash := common.BytesToHash(h)
		*b = BlockParam{Hash: &hash}
		return nil
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var (
		n  = new(big.Int)
		ok bool
	)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		n, ok = n.SetString(s[2:], 16)
	} else {
		n, ok = n.SetString(s, 10)
	}
	if !ok || len(s) == 0 {
		return rpc.ErrInvalidBlockParams
	}
	if neg && n.Sign() != 0 {
		*b = BlockParam{Negative: true}
		return nil
	}
	if !n.IsUint64() {
		*b = BlockParam{Number: ^uint64(0)} // beyond any chain: not found
		return nil
	}
	*b = BlockParam{Number: n.Uint64()}
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
	return strconv.FormatUint(b.Number, 10)
}
