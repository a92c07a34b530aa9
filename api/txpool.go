package api

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// TxPoolAPI serves the TXPOOL group: Besu's txpool_besu* methods (the API
// documents' txpool_client* names stand for them) and go-ethereum's
// txpool_status, txpool_content, txpool_contentFrom and txpool_inspect in
// the execution-apis shapes.
type TxPoolAPI struct{ b *backend.Backend }

// txPoolGroup returns the TXPOOL group on b's pool.
func txPoolGroup(b *backend.Backend) rpctypes.Group {
	p := &TxPoolAPI{b}
	return rpctypes.Group{Name: rpctypes.GroupTxPool, Errors: jsonrpcError, Methods: []rpctypes.Method{
		{Name: "txpool_besuStatistics", Fn: p.BesuStatistics},
		{Name: "txpool_besuTransactions", Fn: p.BesuTransactions},
		// The API documents' txpool_clientStatistics and
		// txpool_clientTransactions under this client's name.
		{Name: "txpool_basaltStatistics", Fn: p.BesuStatistics},
		{Name: "txpool_basaltTransactions", Fn: p.BesuTransactions},
		{Name: "txpool_besuPendingTransactions", Fn: p.BesuPendingTransactions,
			ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidTransactionLimitParams, rpctypes.ErrInvalidPendingTransactionsParams}},
		{Name: "txpool_status", Fn: p.Status},
		{Name: "txpool_content", Fn: p.Content},
		{Name: "txpool_contentFrom", Fn: p.ContentFrom, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidAddressParams}},
		{Name: "txpool_inspect", Fn: p.Inspect},
	}}
}

// PoolStatistics is Besu's pool statistics object (txpool_besuStatistics);
// the counts are JSON numbers, as Besu writes them.
type PoolStatistics struct {
	MaxSize     int64 `json:"maxSize"`
	LocalCount  int64 `json:"localCount"`
	RemoteCount int64 `json:"remoteCount"`
}

// BesuStatistics is txpool_besuStatistics: the pool's capacity
// (--tx-pool-max-size) and how many of its transactions came from this
// node's clients (local) and from peers (remote).
func (p *TxPoolAPI) BesuStatistics() PoolStatistics {
	s := p.b.Pool.Stats()
	return PoolStatistics{MaxSize: int64(s.MaxSize), LocalCount: int64(s.LocalCount), RemoteCount: int64(s.RemoteCount)}
}

// PoolTxEntry is Besu's pool transaction entry (txpool_besuTransactions).
type PoolTxEntry struct {
	Hash                      common.Hash `json:"hash"`
	IsReceivedFromLocalSource bool        `json:"isReceivedFromLocalSource"`
	AddedToPoolAt             string      `json:"addedToPoolAt"`
}

// BesuTransactions is txpool_besuTransactions: every pooled transaction,
// pending or queued, oldest first, with its source and the time it entered
// the pool.
func (p *TxPoolAPI) BesuTransactions() []PoolTxEntry {
	infos := p.b.Pool.Transactions()
	out := make([]PoolTxEntry, len(infos))
	for i, in := range infos {
		out[i] = PoolTxEntry{Hash: in.Tx.Hash(), IsReceivedFromLocalSource: in.Local, AddedToPoolAt: isoInstant(in.AddedAt)}
	}
	return out
}

// isoInstant writes t as Java's Instant.toString does for the millisecond
// times Besu records: UTC, ISO 8601, the fraction only when not zero
// ("2019-10-24T22:44:40.618Z", "2019-10-24T22:44:40Z").
func isoInstant(t time.Time) string {
	t = t.UTC().Truncate(time.Millisecond)
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04:05Z")
	}
	return t.Format("2006-01-02T15:04:05.000Z")
}

// PendingTxJSON is Besu's TransactionPendingResult: a transaction object
// without the block fields, with the sender's public key and the raw
// encoded transaction (txpool_besuPendingTransactions).
type PendingTxJSON struct {
	*TxJSON
	// The block fields of TxJSON, always nil here, hidden by these
	// shallower fields of the same names.
	BlockHash        *common.Hash    `json:"blockHash,omitempty"`
	BlockNumber      *hexutil.Big    `json:"blockNumber,omitempty"`
	TransactionIndex *hexutil.Uint64 `json:"transactionIndex,omitempty"`
	PublicKey        hexutil.Bytes   `json:"publicKey,omitempty"`
	Raw              hexutil.Bytes   `json:"raw"`
}

// TxLimit is the optional first parameter of txpool_besuPendingTransactions:
// a JSON number or a number in a string (decimal or 0x hex).
type TxLimit int64

// UnmarshalJSON implements json.Unmarshaler.
func (l *TxLimit) UnmarshalJSON(data []byte) error {
	s := strings.TrimSpace(string(data))
	if unq, err := strconv.Unquote(s); err == nil {
		s = unq
	}
	n, err := strconv.ParseInt(s, 0, 32)
	if err != nil || n < 0 {
		return rpctypes.ErrInvalidTransactionLimitParams
	}
	*l = TxLimit(n)
	return nil
}

// Pending-transaction filter fields and predicates, as Besu names them.
const (
	filterEq     = "eq"
	filterGt     = "gt"
	filterLt     = "lt"
	filterAction = "action"

	actionContractCreation = "contract_creation"
)

// PendingFilter is one condition of txpool_besuPendingTransactions.
type PendingFilter struct {
	Field     string // from, to, gas, gasPrice, value, nonce
	Predicate string // eq, gt, lt, action
	Addr      common.Address
	Num       *big.Int
}

// PendingFilters is the optional second parameter of
// txpool_besuPendingTransactions: an object of fields (from, to, gas,
// gasPrice, value, nonce), each an object of one predicate (eq, gt, lt; from
// supports eq only, to eq and action "contract_creation") and its value, as
// in Besu's PendingTransactionsParams. A transaction must meet all of them.
type PendingFilters []PendingFilter

// UnmarshalJSON implements json.Unmarshaler; any unknown field, predicate
// or bad value is Besu's "Invalid pending transactions params".
func (f *PendingFilters) UnmarshalJSON(data []byte) error {
	bad := rpctypes.ErrInvalidPendingTransactionsParams
	var fields map[string]map[string]string
	if err := json.Unmarshal(data, &fields); err != nil {
		return bad
	}
	out := PendingFilters{}
	for _, field := range []string{"from", "to", "gas", "gasPrice", "value", "nonce"} {
		preds, ok := fields[field]
		delete(fields, field)
		if !ok || preds == nil {
			continue
		}
		if len(preds) != 1 {
			return bad
		}
		for pred, val := range preds {
			pred = strings.ToLower(pred)
			flt := PendingFilter{Field: field, Predicate: pred}
			switch {
			case pred != filterEq && pred != filterGt && pred != filterLt && pred != filterAction:
				return bad
			case field == "from" && pred != filterEq,
				field == "to" && pred != filterEq && pred != filterAction,
				field != "to" && pred == filterAction:
				return bad
			case pred == filterAction:
				if val != actionContractCreation {
					return bad
				}
			case field == "from" || field == "to":
				if !common.IsHexAddress(val) {
					return bad
				}
				flt.Addr = common.HexToAddress(val)
			default:
				n, err := hexutil.DecodeBig(val)
				if err != nil {
					return bad
				}
				flt.Num = n
			}
			out = append(out, flt)
		}
	}
	if len(fields) != 0 {
		return bad
	}
	*f = out
	return nil
}

// match reports whether the transaction tx from from meets every filter.
func (f PendingFilters) match(tx *types.Transaction, from common.Address) bool {
	for _, c := range f {
		var ok bool
		switch c.Field {
		case "from":
			ok = from == c.Addr
		case "to":
			if c.Predicate == filterAction {
				ok = tx.To() == nil
			} else {
				ok = tx.To() != nil && *tx.To() == c.Addr
			}
		default:
			var v *big.Int
			switch c.Field {
			case "gas":
				v = new(big.Int).SetUint64(tx.Gas())
			case "gasPrice":
				v = tx.GasPrice()
			case "value":
				v = tx.Value()
			case "nonce":
				v = new(big.Int).SetUint64(tx.Nonce())
			}
			cmp := v.Cmp(c.Num)
			ok = c.Predicate == filterEq && cmp == 0 || c.Predicate == filterGt && cmp > 0 || c.Predicate == filterLt && cmp < 0
		}
		if !ok {
			return false
		}
	}
	return true
}

// BesuPendingTransactions is txpool_besuPendingTransactions: up to limit
// (all when omitted) of the pooled transactions, pending and queued, oldest
// first, that meet every filter, as Besu's TransactionPendingResult objects.
func (p *TxPoolAPI) BesuPendingTransactions(limit *TxLimit, filters *PendingFilters) []*PendingTxJSON {
	infos := p.b.Pool.Transactions()
	max := len(infos)
	if limit != nil && int(*limit) < max {
		max = int(*limit)
	}
	cfg := p.b.Chain.Config()
	out := make([]*PendingTxJSON, 0, max)
	for _, in := range infos {
		if len(out) >= max {
			break
		}
		if filters != nil && !filters.match(in.Tx, in.From) {
			continue
		}
		raw, _ := in.Tx.MarshalBinary()
		out = append(out, &PendingTxJSON{TxJSON: txJSON(cfg, in.Tx, nil), PublicKey: senderPublicKey(in.Tx), Raw: raw})
	}
	return out
}

// senderPublicKey recovers the 64-byte public key that signed tx (Besu's
// publicKey), nil when it cannot be recovered.
func senderPublicKey(tx *types.Transaction) []byte {
	v, r, s := tx.RawSignatureValues()
	if v == nil || r == nil || s == nil || r.BitLen() > 256 || s.BitLen() > 256 {
		return nil
	}
	var recID uint64
	switch {
	case tx.Type() != types.LegacyTxType:
		recID = v.Uint64()
	case tx.Protected():
		// v = chainID*2 + 35 + recovery id
		id := new(big.Int).Sub(v, new(big.Int).Mul(tx.ChainId(), big.NewInt(2)))
		recID = id.Uint64() - 35
	default:
		recID = v.Uint64() - 27
	}
	if recID > 1 {
		return nil
	}
	sig := make([]byte, crypto.SignatureLength)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:64])
	sig[64] = byte(recID)
	pub, err := crypto.Ecrecover(types.LatestSignerForChainID(tx.ChainId()).Hash(tx).Bytes(), sig)
	if err != nil || len(pub) != 65 {
		return nil
	}
	return pub[1:]
}

// PoolStatus is go-ethereum's txpool_status answer.
type PoolStatus struct {
	Pending hexutil.Uint `json:"pending"`
	Queued  hexutil.Uint `json:"queued"`
}

// Status is txpool_status: how many pooled transactions are pending
// (executable now) and queued (behind a nonce gap).
func (p *TxPoolAPI) Status() PoolStatus {
	s := p.b.Pool.Stats()
	return PoolStatus{Pending: hexutil.Uint(s.Pending), Queued: hexutil.Uint(s.Queued)}
}

// PoolContent is go-ethereum's txpool_content answer: by sender (checksummed
// address) and nonce (decimal string), the pending and queued transactions.
type PoolContent[T any] struct {
	Pending map[string]map[string]T `json:"pending"`
	Queued  map[string]map[string]T `json:"queued"`
}

// PoolContentFrom is go-ethereum's txpool_contentFrom answer: one sender's
// pending and queued transactions by nonce (decimal string).
type PoolContentFrom struct {
	Pending map[string]*PoolTxJSON `json:"pending"`
	Queued  map[string]*PoolTxJSON `json:"queued"`
}

// PoolTxJSON is the spec's PendingTransactionInfo: a transaction object
// whose block fields, blockTimestamp included, are null.
type PoolTxJSON struct {
	*TxJSON
	// BlockTimestamp hides TxJSON's, which is left out when null.
	BlockTimestamp *hexutil.Uint64 `json:"blockTimestamp"`
}

func byNonce[T any](txs []*types.Transaction, render func(*types.Transaction) T) map[string]T {
	m := make(map[string]T, len(txs))
	for _, tx := range txs {
		m[strconv.FormatUint(tx.Nonce(), 10)] = render(tx)
	}
	return m
}

func byAccount[T any](accts map[common.Address][]*types.Transaction, render func(*types.Transaction) T) map[string]map[string]T {
	m := make(map[string]map[string]T, len(accts))
	for addr, txs := range accts {
		m[addr.Hex()] = byNonce(txs, render)
	}
	return m
}

func (p *TxPoolAPI) renderTx(tx *types.Transaction) *PoolTxJSON {
	return &PoolTxJSON{TxJSON: txJSON(p.b.Chain.Config(), tx, nil)}
}

// Content is txpool_content: every pooled transaction as a transaction
// object (block fields null), by sender and nonce, pending and queued.
func (p *TxPoolAPI) Content() PoolContent[*PoolTxJSON] {
	pending, queued := p.b.Pool.Content()
	return PoolContent[*PoolTxJSON]{Pending: byAccount(pending, p.renderTx), Queued: byAccount(queued, p.renderTx)}
}

// ContentFrom is txpool_contentFrom: addr's pooled transactions by nonce.
func (p *TxPoolAPI) ContentFrom(addr common.Address) PoolContentFrom {
	pending, queued := p.b.Pool.ContentFrom(addr)
	return PoolContentFrom{Pending: byNonce(pending, p.renderTx), Queued: byNonce(queued, p.renderTx)}
}

// Inspect is txpool_inspect: txpool_content with each transaction
// summarised as go-ethereum does, "<to>: <value> wei + <gas> gas × <price>
// wei" ("contract creation: …" without a recipient).
func (p *TxPoolAPI) Inspect() PoolContent[string] {
	pending, queued := p.b.Pool.Content()
	return PoolContent[string]{Pending: byAccount(pending, inspectTx), Queued: byAccount(queued, inspectTx)}
}

func inspectTx(tx *types.Transaction) string {
	if to := tx.To(); to != nil {
		return fmt.Sprintf("%s: %v wei + %v gas × %v wei", to.Hex(), tx.Value(), tx.Gas(), tx.GasPrice())
	}
	return fmt.Sprintf("contract creation: %v wei + %v gas × %v wei", tx.Value(), tx.Gas(), tx.GasPrice())
}
