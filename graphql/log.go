package graphql

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
)

// Log resolves a log of a stored block. Its methods resolve the schema
// fields of the same names.
type Log struct {
	s  *Service
	l  *types.Log
	tx *Transaction // known when the log was reached from its transaction
}

// Index is the log's index in its block.
func (l *Log) Index() Long { return Long(l.l.Index) }

// Account is the emitting contract after the log's block (or after the
// block argument).
func (l *Log) Account(args struct{ Block *Long }) *Account {
	if args.Block != nil {
		return l.s.accountAtNumber(l.l.Address, int64(*args.Block))
	}
	if b := l.s.blockByHash(l.l.BlockHash); b != nil {
		return l.s.newAccount(l.l.Address, b.header, b.hash)
	}
	return l.s.newAccount(l.l.Address, nil, l.l.BlockHash)
}

// Topics are the log's indexed topics.
func (l *Log) Topics() []LogTopic {
	out := make([]LogTopic, len(l.l.Topics))
	for i, t := range l.l.Topics {
		out[i] = LogTopic(t)
	}
	return out
}

// Data is the log's unindexed data.
func (l *Log) Data() Bytes { return l.l.Data }

// Transaction is the transaction that emitted the log.
func (l *Log) Transaction() (*Transaction, error) {
	if l.tx != nil {
		return l.tx, nil
	}
	b := l.s.blockByHash(l.l.BlockHash)
	if b == nil {
		return nil, fmt.Errorf("block %s of log not found", l.l.BlockHash.Hex())
	}
	body := b.loadBody()
	if body == nil || uint64(len(body.Transactions)) <= uint64(l.l.TxIndex) {
		return nil, fmt.Errorf("transaction %s of log not found", l.l.TxHash.Hex())
	}
	return l.s.newTransaction(body.Transactions[l.l.TxIndex], b, uint64(l.l.TxIndex), nil), nil
}
