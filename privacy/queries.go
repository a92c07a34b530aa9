package privacy

import (
	"context"
	"encoding/base64"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/privacy/enclave"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/privacy/privtx"
)

// PrivateTransaction is a private transaction with its sender and hash.
type PrivateTransaction struct {
	Tx     *privtx.Transaction
	From   common.Address
	Hash   common.Hash // keccak256 of its RLP
	Marker common.Hash
}

// PrivateTransaction is priv_getPrivateTransaction: the private transaction
// of the marker transaction pmt, nil when the chain has no such marker or
// the manager holds nothing for this node under its key.
func (s *Service) PrivateTransaction(ctx context.Context, pmt common.Hash) (*PrivateTransaction, error) {
	tx, _, ok := s.chain.GetTransaction(pmt)
	if !ok || !s.proc.IsMarker(tx) {
		return nil, nil
	}
	got, err := s.enclave.Receive(ctx, tx.Data())
	switch {
	case enclave.IsNotOurs(err):
		return nil, nil
	case err != nil:
		return nil, enclaveErr(err)
	}
	ptx, err := privtx.Decode(got.Payload)
	if err != nil {
		return nil, enclaveErr(err)
	}
	from, err := ptx.Sender()
	if err != nil {
		return nil, enclaveErr(err)
	}
	return &PrivateTransaction{Tx: ptx, From: from, Hash: crypto.Keccak256Hash(got.Payload), Marker: pmt}, nil
}

// Receipt is a private transaction receipt with its place in the chain.
type Receipt struct {
	*privstate.Receipt
	Tx          *privtx.Transaction
	BlockHash   common.Hash
	BlockNumber uint64
	// Logs carry their block, marker and index fields.
	Logs []*types.Log
}

// Receipt is priv_getTransactionReceipt: the private receipt of the marker
// transaction pmt on the canonical chain, nil when there is none for this
// node.
func (s *Service) Receipt(pmt common.Hash) (*Receipt, error) {
	_, loc, ok := s.chain.GetTransaction(pmt)
	if !ok {
		return nil, nil
	}
	rec, err := s.store.Record(loc.BlockHash)
	if err != nil {
		return nil, err
	}
	r := rec.Receipt(pmt)
	if r == nil {
		return nil, nil
	}
	ptx, err := privtx.Decode(r.RawTx)
	if err != nil {
		return nil, err
	}
	out := &Receipt{Receipt: r, Tx: ptx, BlockHash: loc.BlockHash, BlockNumber: loc.BlockNumber}
	out.Logs = s.blockLogs(rec, loc.BlockHash, loc.BlockNumber, func(x *privstate.Receipt) bool { return x.PMT == pmt })
	return out, nil
}

// blockLogs are the logs of the receipts of rec that keep selects, with
// their block fields; log indexes count the block's private logs.
func (s *Service) blockLogs(rec *privstate.Record, hash common.Hash, number uint64, keep func(*privstate.Receipt) bool) []*types.Log {
	var out []*types.Log
	var index uint
	for i := range rec.Receipts {
		r := &rec.Receipts[i]
		for _, l := range logsOf(r.Logs) {
			l.BlockHash, l.BlockNumber, l.TxHash, l.TxIndex, l.Index = hash, number, r.PMT, uint(r.PMTIndex), index
			index++
			if keep(r) {
				out = append(out, l)
			}
		}
	}
	return out
}

// CreatePrivacyGroup is priv_createPrivacyGroup.
func (s *Service) CreatePrivacyGroup(ctx context.Context, members []string, name, description, enclaveKey string) (string, error) {
	g, err := s.enclave.CreatePrivacyGroup(ctx, members, enclaveKey, name, description)
	if err != nil {
		s.log.Debug("Create privacy group failed", "err", err)
		return "", ErrCreateGroup
	}
	return g.PrivacyGroupID, nil
}

// DeletePrivacyGroup is priv_deletePrivacyGroup.
func (s *Service) DeletePrivacyGroup(ctx context.Context, id, enclaveKey string) (string, error) {
	out, err := s.enclave.DeletePrivacyGroup(ctx, id, enclaveKey)
	if err != nil {
		s.log.Debug("Delete privacy group failed", "err", err)
		return "", ErrDeleteGroup
	}
	return out, nil
}

// FindPrivacyGroup is priv_findPrivacyGroup.
func (s *Service) FindPrivacyGroup(ctx context.Context, members []string) ([]enclave.PrivacyGroup, error) {
	gs, err := s.enclave.FindPrivacyGroup(ctx, members)
	if err != nil {
		s.log.Debug("Find privacy group failed", "err", err)
		return nil, ErrFindGroup
	}
	return gs, nil
}

// Call is priv_call: msg run read-only on group's private state after the
// block (header, hash) over its public state public.
func (s *Service) Call(group common.Hash, header *types.Header, hash common.Hash, public *state.StateDB,
	from common.Address, to common.Address, data []byte, gas uint64) ([]byte, error) {
	st, err := s.groupState(hash, group)
	if err != nil {
		return nil, err
	}
	return Call(s.chain.Executor(), s.chain.Executor().BlockContext(header), st, public, from, to, data, gas)
}

// Code is priv_getCode: addr's code in group's private state after the
// block hash.
func (s *Service) Code(group common.Hash, hash common.Hash, addr common.Address) ([]byte, error) {
	st, err := s.groupState(hash, group)
	if err != nil {
		return nil, err
	}
	return st.GetCode(addr), nil
}

// LogQuery selects private logs: a block range (inclusive, canonical) or
// one block by hash, addresses (any when empty) and topics by position.
type LogQuery struct {
	From, To  uint64
	BlockHash *common.Hash
	Addresses []common.Address
	Topics    [][]common.Hash
}

// Logs is priv_getLogs: group's private logs the query selects.
func (s *Service) Logs(ctx context.Context, group common.Hash, q LogQuery) ([]*types.Log, error) {
	out := []*types.Log{}
	scan := func(hash common.Hash, number uint64) error {
		rec, err := s.store.Record(hash)
		if err != nil {
			return err
		}
		for _, l := range s.blockLogs(rec, hash, number, func(r *privstate.Receipt) bool { return r.Group == group }) {
			if matches(l, q) {
				out = append(out, l)
			}
		}
		return nil
	}
	if q.BlockHash != nil {
		h := s.chain.GetHeaderByHash(*q.BlockHash)
		if h == nil {
			return out, nil
		}
		return out, scan(*q.BlockHash, h.Number.Uint64())
	}
	for n := q.From; n <= q.To; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hash := s.chain.GetCanonicalHash(n)
		if hash == (common.Hash{}) {
			break
		}
		if err := scan(hash, n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// matches applies a query's address and topic criteria to l.
func matches(l *types.Log, q LogQuery) bool {
	if len(q.Addresses) > 0 {
		found := false
		for _, a := range q.Addresses {
			if a == l.Address {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if len(q.Topics) > len(l.Topics) {
		return false
	}
	for i, alts := range q.Topics {
		if len(alts) == 0 {
			continue
		}
		found := false
		for _, t := range alts {
			if t == l.Topics[i] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Head is the canonical head's number.
func (s *Service) Head() uint64 { return s.chain.CurrentHeader().Number.Uint64() }

// GroupIDString is a group ID in Base64.
func GroupIDString(g common.Hash) string { return base64.StdEncoding.EncodeToString(g[:]) }
