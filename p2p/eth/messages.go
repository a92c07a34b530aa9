package eth

import (
	"errors"
	"fmt"
	"io"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// Protocol violations. A peer that commits one is disconnected.
var (
	ErrMsgTooLarge       = errors.New("message too large")
	ErrDecode            = errors.New("invalid message")
	ErrInvalidMsgCode    = errors.New("invalid message code")
	ErrNoStatusMsg       = errors.New("no status message")
	ErrExtraStatusMsg    = errors.New("extra status message")
	ErrNetworkIDMismatch = errors.New("network ID mismatch")
	ErrGenesisMismatch   = errors.New("genesis mismatch")
	ErrForkIDRejected    = errors.New("fork ID rejected")
	ErrVersionMismatch   = errors.New("protocol version mismatch")
)

// maxTDBits bounds a total difficulty from a peer: mainnet's is about 2^75.
const maxTDBits = 100

// EncodeRLP writes a hash origin as a 32-byte string and a number origin as
// an integer.
func (hn *HashOrNumber) EncodeRLP(w io.Writer) error {
	if hn.Hash != (common.Hash{}) {
		if hn.Number != 0 {
			return errors.New("both origin hash and number given")
		}
		return rlp.Encode(w, hn.Hash)
	}
	return rlp.Encode(w, hn.Number)
}

// DecodeRLP reads a hash (a 32-byte string) or a number (any shorter
// string).
func (hn *HashOrNumber) DecodeRLP(s *rlp.Stream) error {
	_, size, err := s.Kind()
	switch {
	case err != nil:
		return err
	case size == 32:
		hn.Number = 0
		return s.Decode(&hn.Hash)
	case size <= 8:
		hn.Hash = common.Hash{}
		return s.Decode(&hn.Number)
	default:
		return fmt.Errorf("invalid origin of %d bytes", size)
	}
}

// Message is a decoded eth message: one of *Status, []BlockAnnounce,
// []*types.Transaction, *GetHeaders, *Headers, *GetHashes, *Bodies,
// *NewBlockPacket, *PooledHashes, *PooledTxs, *Receipts, *NodeData.
type Message any

// Decoded requests and responses carry their request ID.
type (
	// GetHeaders is a GetBlockHeaders request.
	GetHeaders struct {
		RequestID uint64
		HeadersRequest
	}
	// Headers is a BlockHeaders response.
	Headers struct {
		RequestID uint64
		Headers   []*types.Header
	}
	// GetHashes is a request by hashes: GetBlockBodies, GetPooledTransactions,
	// GetReceipts or GetNodeData (Code says which).
	GetHashes struct {
		Code      uint64
		RequestID uint64
		Hashes    []common.Hash
	}
	// Bodies is a BlockBodies response.
	Bodies struct {
		RequestID uint64
		Bodies    []*BlockBody
	}
	// PooledTxs is a PooledTransactions response.
	PooledTxs struct {
		RequestID    uint64
		Transactions []*types.Transaction
	}
	// Receipts is a Receipts response: the receipts of each block asked for.
	Receipts struct {
		RequestID uint64
		Receipts  [][]*types.Receipt
	}
	// NodeData is an eth/66 NodeData response (Basalt never asks for one).
	NodeData struct {
		RequestID uint64
	}
)

// Decode reads the payload of a message with code, sent over the given
// protocol version, and checks what the wire format alone can check (sizes,
// counts, ranges). It never panics, whatever the input.
func Decode(version uint, code uint64, payload []byte) (Message, error) {
	if len(payload) > MaxMessageSize {
		return nil, ErrMsgTooLarge
	}
	m, err := decode(version, code, payload)
	if err != nil {
		if errors.Is(err, ErrInvalidMsgCode) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: code 0x%02x: %v", ErrDecode, code, err)
	}
	return m, nil
}

func decode(version uint, code uint64, payload []byte) (Message, error) {
	switch code {
	case StatusMsg:
		var st Status
		if err := rlp.DecodeBytes(payload, &st); err != nil {
			return nil, err
		}
		if st.TD == nil || st.TD.BitLen() > maxTDBits {
			return nil, errors.New("total difficulty out of range")
		}
		return &st, nil

	case NewBlockHashesMsg:
		var anns []BlockAnnounce
		if err := rlp.DecodeBytes(payload, &anns); err != nil {
			return nil, err
		}
		if len(anns) > maxAnnouncedHashes {
			return nil, fmt.Errorf("%d block announcements", len(anns))
		}
		return anns, nil

	case TransactionsMsg:
		var txs []*types.Transaction
		if err := rlp.DecodeBytes(payload, &txs); err != nil {
			return nil, err
		}
		return txs, nil

	case GetBlockHeadersMsg:
		var p getBlockHeadersPacket
		if err := rlp.DecodeBytes(payload, &p); err != nil {
			return nil, err
		}
		return &GetHeaders{RequestID: p.RequestID, HeadersRequest: p.HeadersRequest}, nil

	case BlockHeadersMsg:
		var p blockHeadersPacket
		if err := rlp.DecodeBytes(payload, &p); err != nil {
			return nil, err
		}
		for _, h := range p.Headers {
			if err := checkHeader(h); err != nil {
				return nil, err
			}
		}
		return &Headers{RequestID: p.RequestID, Headers: p.Headers}, nil

	case GetBlockBodiesMsg, GetPooledTransactionsMsg, GetReceiptsMsg, GetNodeDataMsg:
		if code == GetNodeDataMsg && version != ETH66 {
			return nil, fmt.Errorf("%w 0x%02x in eth/%d", ErrInvalidMsgCode, code, version)
		}
		var p hashesRequestPacket
		if err := rlp.DecodeBytes(payload, &p); err != nil {
			return nil, err
		}
		if len(p.Hashes) > maxRequestItems {
			return nil, fmt.Errorf("request for %d items", len(p.Hashes))
		}
		return &GetHashes{Code: code, RequestID: p.RequestID, Hashes: p.Hashes}, nil

	case BlockBodiesMsg:
		var p blockBodiesPacket
		if err := rlp.DecodeBytes(payload, &p); err != nil {
			return nil, err
		}
		for _, b := range p.Bodies {
			if b == nil {
				return nil, errors.New("nil body")
			}
			for _, u := range b.Uncles {
				if err := checkHeader(u); err != nil {
					return nil, err
				}
			}
		}
		return &Bodies{RequestID: p.RequestID, Bodies: p.Bodies}, nil

	case NewBlockMsg:
		var p NewBlockPacket
		if err := rlp.DecodeBytes(payload, &p); err != nil {
			return nil, err
		}
		if p.Block == nil || p.TD == nil || p.TD.BitLen() > maxTDBits {
			return nil, errors.New("block or total difficulty missing or out of range")
		}
		if err := checkHeader(p.Block.Header()); err != nil {
			return nil, err
		}
		for _, u := range p.Block.Uncles() {
			if err := checkHeader(u); err != nil {
				return nil, err
			}
		}
		return &p, nil

	case NewPooledTransactionHashesMsg:
		if version < ETH68 {
			var hashes []common.Hash
			if err := rlp.DecodeBytes(payload, &hashes); err != nil {
				return nil, err
			}
			if len(hashes) > maxAnnouncedHashes {
				return nil, fmt.Errorf("%d transaction announcements", len(hashes))
			}
			return &PooledHashes{Hashes: hashes}, nil
		}
		var p pooledHashes68
		if err := rlp.DecodeBytes(payload, &p); err != nil {
			return nil, err
		}
		if len(p.Hashes) != len(p.Types) || len(p.Hashes) != len(p.Sizes) {
			return nil, fmt.Errorf("announcement of %d hashes with %d types and %d sizes", len(p.Hashes), len(p.Types), len(p.Sizes))
		}
		if len(p.Hashes) > maxAnnouncedHashes {
			return nil, fmt.Errorf("%d transaction announcements", len(p.Hashes))
		}
		return &PooledHashes{Types: p.Types, Sizes: p.Sizes, Hashes: p.Hashes}, nil

	case PooledTransactionsMsg:
		var p pooledTransactionsPacket
		if err := rlp.DecodeBytes(payload, &p); err != nil {
			return nil, err
		}
		return &PooledTxs{RequestID: p.RequestID, Transactions: p.Transactions}, nil

	case ReceiptsMsg:
		var p receiptsPacket
		if err := rlp.DecodeBytes(payload, &p); err != nil {
			return nil, err
		}
		return &Receipts{RequestID: p.RequestID, Receipts: p.Receipts}, nil

	case NodeDataMsg:
		if version != ETH66 {
			return nil, fmt.Errorf("%w 0x%02x in eth/%d", ErrInvalidMsgCode, code, version)
		}
		var p nodeDataPacket
		if err := rlp.DecodeBytes(payload, &p); err != nil {
			return nil, err
		}
		return &NodeData{RequestID: p.RequestID}, nil
	}
	return nil, fmt.Errorf("%w 0x%02x", ErrInvalidMsgCode, code)
}

// checkHeader rejects headers whose numbers do not fit the types the chain
// uses for them.
func checkHeader(h *types.Header) error {
	switch {
	case h == nil:
		return errors.New("nil header")
	case h.Number == nil || !h.Number.IsUint64() || h.Number.Uint64() > 1<<62:
		return errors.New("header number out of range")
	case h.Difficulty == nil || h.Difficulty.BitLen() > 256:
		return errors.New("header difficulty out of range")
	case h.BaseFee != nil && h.BaseFee.BitLen() > 256:
		return errors.New("header base fee out of range")
	}
	return nil
}
