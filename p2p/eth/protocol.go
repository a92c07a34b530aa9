// Package eth is Basalt's implementation of the devp2p "eth" sub-protocol,
// versions 66, 67 and 68 (the versions pre-merge peers such as Besu speak):
// the status handshake, block and transaction propagation and the
// request/response messages sync uses. It runs on go-ethereum's p2p server.
//
// The package holds the wire format (this file and messages.go), the peer
// (peer.go: sending, request tracking with timeouts, reputation) and the
// handler (handler.go: the per-peer message loop that serves requests and
// hands announcements to a Backend). Fork choice, sync and the decision of
// what to propagate belong to the caller.
//
// Every message from a peer is size-checked and decoded before anything
// looks at it; a message that is too large, malformed, unexpected or
// inconsistent ends the connection to that peer only.
package eth

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
)

// Protocol versions.
const (
	ETH66 = 66
	ETH67 = 67
	ETH68 = 68
)

// ProtocolName is the devp2p capability name.
const ProtocolName = "eth"

// ProtocolVersions are the versions offered, best first.
var ProtocolVersions = []uint{ETH68, ETH67, ETH66}

// protocolLengths is the number of message codes each version uses.
var protocolLengths = map[uint]uint64{ETH68: 17, ETH67: 17, ETH66: 17}

// ProtocolLength returns the number of message codes of version.
func ProtocolLength(version uint) uint64 { return protocolLengths[version] }

// Message codes.
const (
	StatusMsg                     = 0x00
	NewBlockHashesMsg             = 0x01
	TransactionsMsg               = 0x02
	GetBlockHeadersMsg            = 0x03
	BlockHeadersMsg               = 0x04
	GetBlockBodiesMsg             = 0x05
	BlockBodiesMsg                = 0x06
	NewBlockMsg                   = 0x07
	NewPooledTransactionHashesMsg = 0x08
	GetPooledTransactionsMsg      = 0x09
	PooledTransactionsMsg         = 0x0a
	GetNodeDataMsg                = 0x0d // eth/66 only
	NodeDataMsg                   = 0x0e // eth/66 only
	GetReceiptsMsg                = 0x0f
	ReceiptsMsg                   = 0x10
)

// Limits. MaxMessageSize is the protocol's hard cap (a larger message ends
// the connection); the serve limits bound one response, as go-ethereum and
// Besu do, and the fetch sizes are what Basalt asks for at once.
const (
	MaxMessageSize = 10 * 1024 * 1024

	softResponseLimit = 2 * 1024 * 1024
	maxHeadersServe   = 1024
	maxBodiesServe    = 1024
	maxReceiptsServe  = 1024
	maxTxsServe       = 4096

	// MaxHeaderFetch, MaxBodyFetch and MaxReceiptFetch are the sizes of one
	// request for headers, bodies and receipts.
	MaxHeaderFetch  = 192
	MaxBodyFetch    = 128
	MaxReceiptFetch = 256

	// maxRequestItems bounds the hashes of one Get* request and the entries
	// of one announcement; more is a protocol violation.
	maxRequestItems = 4096
	// maxAnnouncedHashes bounds one NewPooledTransactionHashes or
	// NewBlockHashes message.
	maxAnnouncedHashes = 4096
)

// Status is the handshake message (eth/64 and later).
type Status struct {
	ProtocolVersion uint32
	NetworkID       uint64
	TD              *big.Int
	Head            common.Hash
	Genesis         common.Hash
	ForkID          forkid.ID
}

// BlockAnnounce is one entry of NewBlockHashes.
type BlockAnnounce struct {
	Hash   common.Hash
	Number uint64
}

// NewBlockPacket propagates a whole block with the total difficulty of the
// chain it ends.
type NewBlockPacket struct {
	Block *types.Block
	TD    *big.Int
}

// HashOrNumber is the origin of a header request: a block hash or number.
type HashOrNumber struct {
	Hash   common.Hash
	Number uint64
}

// HeadersRequest asks for Amount headers from Origin, Skip apart, towards
// the genesis when Reverse.
type HeadersRequest struct {
	Origin  HashOrNumber
	Amount  uint64
	Skip    uint64
	Reverse bool
}

// BlockBody is a block without its header.
type BlockBody struct {
	Transactions []*types.Transaction
	Uncles       []*types.Header
	Withdrawals  []*types.Withdrawal `rlp:"optional"`
}

// PooledHashes announces pooled transactions. Types and Sizes are filled
// for eth/68 and nil for eth/66-67, whose announcement carries hashes only.
type PooledHashes struct {
	Types  []byte
	Sizes  []uint32
	Hashes []common.Hash
}

// Request-id wrappers of eth/66 and later.
type (
	getBlockHeadersPacket struct {
		RequestID uint64
		HeadersRequest
	}
	blockHeadersPacket struct {
		RequestID uint64
		Headers   []*types.Header
	}
	hashesRequestPacket struct { // GetBlockBodies, GetPooledTransactions, GetReceipts, GetNodeData
		RequestID uint64
		Hashes    []common.Hash
	}
	blockBodiesPacket struct {
		RequestID uint64
		Bodies    []*BlockBody
	}
	pooledTransactionsPacket struct {
		RequestID    uint64
		Transactions []*types.Transaction
	}
	receiptsPacket struct {
		RequestID uint64
		Receipts  [][]*types.Receipt
	}
	nodeDataPacket struct {
		RequestID uint64
		Data      [][]byte
	}
	pooledHashes68 struct {
		Types  []byte
		Sizes  []uint32
		Hashes []common.Hash
	}
)

// messageNames are the message names of the eth protocol, by code, as Besu
// labels its p2p message metrics.
var messageNames = map[uint64]string{
	StatusMsg:                     "Status",
	NewBlockHashesMsg:             "NewBlockHashes",
	TransactionsMsg:               "Transactions",
	GetBlockHeadersMsg:            "GetBlockHeaders",
	BlockHeadersMsg:               "BlockHeaders",
	GetBlockBodiesMsg:             "GetBlockBodies",
	BlockBodiesMsg:                "BlockBodies",
	NewBlockMsg:                   "NewBlock",
	NewPooledTransactionHashesMsg: "NewPooledTransactionHashes",
	GetPooledTransactionsMsg:      "GetPooledTransactions",
	PooledTransactionsMsg:         "PooledTransactions",
	GetNodeDataMsg:                "GetNodeData",
	NodeDataMsg:                   "NodeData",
	GetReceiptsMsg:                "GetReceipts",
	ReceiptsMsg:                   "Receipts",
}

// MessageName returns the name of an eth message code ("" for a code the
// protocol does not use).
func MessageName(code uint64) string { return messageNames[code] }
