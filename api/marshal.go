package api

import (
	"github.com/basaltchain/basalt/quorumtx"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// BlockJSON is the block object of the spec, plus the fields of later forks
// that today's client libraries read. Field order follows Besu's. Lists are
// never left out for being empty: clients (ethers.js v6) refuse a block
// without "transactions", and Besu always writes "uncles" and
// "transactions" (and "withdrawals" on blocks with a withdrawals root). The
// builders must therefore set Uncles and Transactions to non-nil slices.
type BlockJSON struct {
	Number                *hexutil.Big       `json:"number"`
	Hash                  common.Hash        `json:"hash"`
	MixHash               common.Hash        `json:"mixHash"`
	ParentHash            common.Hash        `json:"parentHash"`
	Nonce                 types.BlockNonce   `json:"nonce"`
	Sha3Uncles            common.Hash        `json:"sha3Uncles"`
	LogsBloom             types.Bloom        `json:"logsBloom"`
	TransactionsRoot      common.Hash        `json:"transactionsRoot"`
	StateRoot             common.Hash        `json:"stateRoot"`
	ReceiptsRoot          common.Hash        `json:"receiptsRoot"`
	Miner                 common.Address     `json:"miner"`
	Difficulty            *hexutil.Big       `json:"difficulty"`
	TotalDifficulty       *hexutil.Big       `json:"totalDifficulty,omitempty"`
	ExtraData             hexutil.Bytes      `json:"extraData"`
	BaseFeePerGas         *hexutil.Big       `json:"baseFeePerGas,omitempty"`
	Size                  hexutil.Uint64     `json:"size"`
	GasLimit              hexutil.Uint64     `json:"gasLimit"`
	GasUsed               hexutil.Uint64     `json:"gasUsed"`
	Timestamp             hexutil.Uint64     `json:"timestamp"`
	Uncles                []common.Hash      `json:"uncles"`
	Transactions          []any              `json:"transactions"`
	WithdrawalsRoot       *common.Hash       `json:"withdrawalsRoot,omitempty"`
	Withdrawals           *types.Withdrawals `json:"withdrawals,omitempty"`
	BlobGasUsed           *hexutil.Uint64    `json:"blobGasUsed,omitempty"`
	ExcessBlobGas         *hexutil.Uint64    `json:"excessBlobGas,omitempty"`
	ParentBeaconBlockRoot *common.Hash       `json:"parentBeaconBlockRoot,omitempty"`
	RequestsHash          *common.Hash       `json:"requestsHash,omitempty"`
}

// headerJSON fills the header fields of a block object.
func headerJSON(h *types.Header, hash common.Hash, td *big.Int) *BlockJSON {
	b := &BlockJSON{
		Number:           (*hexutil.Big)(h.Number),
		Hash:             hash,
		MixHash:          h.MixDigest,
		ParentHash:       h.ParentHash,
		Nonce:            h.Nonce,
		Sha3Uncles:       h.UncleHash,
		LogsBloom:        h.Bloom,
		TransactionsRoot: h.TxHash,
		StateRoot:        h.Root,
		ReceiptsRoot:     h.ReceiptHash,
		Miner:            h.Coinbase,
		Difficulty:       (*hexutil.Big)(h.Difficulty),
		ExtraData:        h.Extra,
		BaseFeePerGas:    (*hexutil.Big)(h.BaseFee),
		Size:             hexutil.Uint64(h.Size()),
		GasLimit:         hexutil.Uint64(h.GasLimit),
		GasUsed:          hexutil.Uint64(h.GasUsed),
		Timestamp:        hexutil.Uint64(h.Time),
		Uncles:           []common.Hash{},
		WithdrawalsRoot:  h.WithdrawalsHash,
		BlobGasUsed:      (*hexutil.Uint64)(h.BlobGasUsed),
		ExcessBlobGas:    (*hexutil.Uint64)(h.ExcessBlobGas),

		ParentBeaconBlockRoot: h.ParentBeaconRoot,
		RequestsHash:          h.RequestsHash,
	}
	// Post-merge blocks carry no total difficulty in Besu's output.
	if td != nil && h.Difficulty.Sign() > 0 {
		b.TotalDifficulty = (*hexutil.Big)(td)
	}
	return b
}

// TxJSON is the transaction object. Field order follows Besu's. The lists a
// transaction type defines (accessList from type 1, blobVersionedHashes on
// type 3, authorizationList on type 4) are pointers so that they are left
// out of the types without them but written, "[]" when empty, on the types
// with them.
type TxJSON struct {
	AccessList           *types.AccessList             `json:"accessList,omitempty"`
	BlockHash            *common.Hash                  `json:"blockHash"`
	BlockNumber          *hexutil.Big                  `json:"blockNumber"`
	BlockTimestamp       *hexutil.Uint64               `json:"blockTimestamp,omitempty"`
	ChainID              *hexutil.Big                  `json:"chainId,omitempty"`
	From                 common.Address                `json:"from"`
	Gas                  hexutil.Uint64                `json:"gas"`
	GasPrice             *hexutil.Big                  `json:"gasPrice"`
	MaxPriorityFeePerGas *hexutil.Big                  `json:"maxPriorityFeePerGas,omitempty"`
	MaxFeePerGas         *hexutil.Big                  `json:"maxFeePerGas,omitempty"`
	MaxFeePerBlobGas     *hexutil.Big                  `json:"maxFeePerBlobGas,omitempty"`
	Hash                 common.Hash                   `json:"hash"`
	Input                hexutil.Bytes                 `json:"input"`
	Nonce                hexutil.Uint64                `json:"nonce"`
	To                   *common.Address               `json:"to"`
	TransactionIndex     *hexutil.Uint64               `json:"transactionIndex"`
	Type                 hexutil.Uint64                `json:"type"`
	Value                *hexutil.Big                  `json:"value"`
	YParity              *hexutil.Uint64               `json:"yParity,omitempty"`
	V                    *hexutil.Big                  `json:"v"`
	R                    *hexutil.Big                  `json:"r"`
	S                    *hexutil.Big                  `json:"s"`
	BlobVersionedHashes  *[]common.Hash                `json:"blobVersionedHashes,omitempty"`
	AuthorizationList    *[]types.SetCodeAuthorization `json:"authorizationList,omitempty"`
}

// TxContext locates a transaction in a block; nil fields for pending ones.
type TxContext struct {
	BlockHash common.Hash
	Header    *types.Header
	Index     uint64
}

// senderOf is tx's sender, or the zero address when it does not recover.
// A GoQuorum private transaction (V 37/38, no chain ID) that the chain's
// signer reads as an EIP-155 signature for chain 1 is recovered as GoQuorum
// signs it.
func senderOf(signer types.Signer, tx *types.Transaction) common.Address {
	from, err := types.Sender(signer, tx)
	if err != nil && quorumtx.IsPrivate(tx) {
		from, _ = quorumtx.Sender(tx)
	}
	return from
}

// txJSON renders tx; loc is nil for a pending transaction.
func txJSON(cfg *params.ChainConfig, tx *types.Transaction, loc *TxContext) *TxJSON {
	var signer types.Signer
	if loc != nil {
		signer = types.MakeSigner(cfg, loc.Header.Number, loc.Header.Time)
	} else {
		signer = types.LatestSignerForChainID(cfg.ChainID)
	}
	from := senderOf(signer, tx)
	v, r, s := tx.RawSignatureValues()
	out := &TxJSON{
		From:     from,
		Gas:      hexutil.Uint64(tx.Gas()),
		GasPrice: (*hexutil.Big)(tx.GasPrice()),
		Hash:     tx.Hash(),
		Input:    tx.Data(),
		Nonce:    hexutil.Uint64(tx.Nonce()),
		To:       tx.To(),
		Type:     hexutil.Uint64(tx.Type()),
		Value:    (*hexutil.Big)(tx.Value()),
		V:        (*hexutil.Big)(v),
		R:        (*hexutil.Big)(r),
		S:        (*hexutil.Big)(s),
	}
	if loc != nil {
		bh := loc.BlockHash
		idx := hexutil.Uint64(loc.Index)
		ts := hexutil.Uint64(loc.Header.Time)
		out.BlockHash = &bh
		out.BlockNumber = (*hexutil.Big)(loc.Header.Number)
		out.BlockTimestamp = &ts
		out.TransactionIndex = &idx
	}
	if tx.Protected() || tx.Type() != types.LegacyTxType {
		out.ChainID = (*hexutil.Big)(tx.ChainId())
	}
	if tx.Type() != types.LegacyTxType {
		al := accessListJSON(tx.AccessList())
		out.AccessList = &al
		yp := hexutil.Uint64(v.Uint64())
		out.YParity = &yp
	}
	switch tx.Type() {
	case types.DynamicFeeTxType, types.BlobTxType, types.SetCodeTxType:
		out.MaxFeePerGas = (*hexutil.Big)(tx.GasFeeCap())
		out.MaxPriorityFeePerGas = (*hexutil.Big)(tx.GasTipCap())
		if loc != nil && loc.Header.BaseFee != nil {
			out.GasPrice = (*hexutil.Big)(effectiveGasPrice(tx, loc.Header.BaseFee))
		} else {
			out.GasPrice = (*hexutil.Big)(tx.GasFeeCap())
		}
	}
	if tx.Type() == types.BlobTxType {
		out.MaxFeePerBlobGas = (*hexutil.Big)(tx.BlobGasFeeCap())
		hashes := tx.BlobHashes()
		if hashes == nil {
			hashes = []common.Hash{}
		}
		out.BlobVersionedHashes = &hashes
	}
	if tx.Type() == types.SetCodeTxType {
		auths := tx.SetCodeAuthorizations()
		if auths == nil {
			auths = []types.SetCodeAuthorization{}
		}
		out.AuthorizationList = &auths
	}
	return out
}

// accessListJSON returns al ready to be written: "[]" for an empty list and
// for an entry without storage keys, never null. Decoded transactions
// already have empty slices there; transactions built in code may not.
func accessListJSON(al types.AccessList) types.AccessList {
	if al == nil {
		return types.AccessList{}
	}
	for i := range al {
		if al[i].StorageKeys == nil {
			out := make(types.AccessList, len(al))
			for j, t := range al {
				if t.StorageKeys == nil {
					t.StorageKeys = []common.Hash{}
				}
				out[j] = t
			}
			return out
		}
	}
	return al
}

// effectiveGasPrice is what the sender paid per gas in a block with baseFee.
func effectiveGasPrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	if baseFee == nil {
		return tx.GasPrice()
	}
	tip := new(big.Int).Sub(tx.GasFeeCap(), baseFee)
	if tip.Cmp(tx.GasTipCap()) > 0 {
		tip.Set(tx.GasTipCap())
	}
	return tip.Add(tip, baseFee)
}

// LogJSON is the log object. Field order follows Besu's.
type LogJSON struct {
	Address          common.Address `json:"address"`
	Topics           []common.Hash  `json:"topics"`
	Data             hexutil.Bytes  `json:"data"`
	BlockNumber      hexutil.Uint64 `json:"blockNumber"`
	TransactionHash  common.Hash    `json:"transactionHash"`
	TransactionIndex hexutil.Uint   `json:"transactionIndex"`
	BlockHash        common.Hash    `json:"blockHash"`
	BlockTimestamp   hexutil.Uint64 `json:"blockTimestamp"`
	LogIndex         hexutil.Uint   `json:"logIndex"`
	Removed          bool           `json:"removed"`
}

func logJSON(l *types.Log) *LogJSON {
	topics := l.Topics
	if topics == nil {
		topics = []common.Hash{}
	}
	return &LogJSON{
		Address:          l.Address,
		Topics:           topics,
		Data:             l.Data,
		BlockNumber:      hexutil.Uint64(l.BlockNumber),
		TransactionHash:  l.TxHash,
		TransactionIndex: hexutil.Uint(l.TxIndex),
		BlockHash:        l.BlockHash,
		BlockTimestamp:   hexutil.Uint64(l.BlockTimestamp),
		LogIndex:         hexutil.Uint(l.Index),
		Removed:          l.Removed,
	}
}

// ReceiptJSON is the receipt object. Field order follows Besu's.
type ReceiptJSON struct {
	BlockHash         common.Hash     `json:"blockHash"`
	BlockNumber       hexutil.Uint64  `json:"blockNumber"`
	ContractAddress   *common.Address `json:"contractAddress"`
	CumulativeGasUsed hexutil.Uint64  `json:"cumulativeGasUsed"`
	From              common.Address  `json:"from"`
	GasUsed           hexutil.Uint64  `json:"gasUsed"`
	EffectiveGasPrice *hexutil.Big    `json:"effectiveGasPrice"`
	BlobGasUsed       *hexutil.Uint64 `json:"blobGasUsed,omitempty"`
	BlobGasPrice      *hexutil.Big    `json:"blobGasPrice,omitempty"`
	Logs              []*LogJSON      `json:"logs"`
	LogsBloom         types.Bloom     `json:"logsBloom"`
	Root              *hexutil.Bytes  `json:"root,omitempty"`
	Status            *hexutil.Uint64 `json:"status,omitempty"`
	To                *common.Address `json:"to"`
	TransactionHash   common.Hash     `json:"transactionHash"`
	TransactionIndex  hexutil.Uint64  `json:"transactionIndex"`
	// RevertReason is the revert output of a reverted transaction, with
	// --revert-reason-enabled (Besu's place for it, before type).
	RevertReason *hexutil.Bytes `json:"revertReason,omitempty"`
	Type         hexutil.Uint64 `json:"type"`
	// IsPrivacyMarkerTransaction is GoQuorum's field, on a GoQuorum
	// party's receipts (always false: Basalt makes no privacy marker
	// transactions of GoQuorum's).
	IsPrivacyMarkerTransaction *bool `json:"isPrivacyMarkerTransaction,omitempty"`
}

func receiptJSON(cfg *params.ChainConfig, r *types.Receipt, tx *types.Transaction, header *types.Header) *ReceiptJSON {
	from := senderOf(types.MakeSigner(cfg, header.Number, header.Time), tx)
	out := &ReceiptJSON{
		BlockHash:         r.BlockHash,
		BlockNumber:       hexutil.Uint64(r.BlockNumber.Uint64()),
		CumulativeGasUsed: hexutil.Uint64(r.CumulativeGasUsed),
		From:              from,
		GasUsed:           hexutil.Uint64(r.GasUsed),
		EffectiveGasPrice: (*hexutil.Big)(effectiveGasPrice(tx, header.BaseFee)),
		LogsBloom:         r.Bloom,
		To:                tx.To(),
		TransactionHash:   r.TxHash,
		TransactionIndex:  hexutil.Uint64(r.TransactionIndex),
		Type:              hexutil.Uint64(tx.Type()),
		Logs:              make([]*LogJSON, len(r.Logs)),
	}
	if tx.To() == nil {
		ca := r.ContractAddress
		out.ContractAddress = &ca
	}
	if len(r.PostState) > 0 {
		root := hexutil.Bytes(r.PostState)
		out.Root = &root
	} else {
		st := hexutil.Uint64(r.Status)
		out.Status = &st
	}
	if tx.Type() == types.BlobTxType {
		bg := hexutil.Uint64(r.BlobGasUsed)
		out.BlobGasUsed = &bg
		out.BlobGasPrice = (*hexutil.Big)(r.BlobGasPrice)
	}
	for i, l := range r.Logs {
		out.Logs[i] = logJSON(l)
	}
	return out
}
