package graphql

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/filters"
)

// root resolves the fields of Query and Mutation; its methods resolve the
// schema fields of the same names.
type root struct{ s *Service }

// Block resolves Query.block: by number or by hash (not both), else the
// head. A block that does not exist is an error, as in Besu.
func (r *root) Block(args struct {
	Number *Long
	Hash   *Hash
}) (*Block, error) {
	s := r.s
	switch {
	case args.Number != nil && args.Hash != nil:
		return nil, &backend.InvalidParamsError{}
	case args.Number != nil:
		if b := s.blockByNumber(int64(*args.Number)); b != nil {
			return b, nil
		}
		return nil, &backend.BlockNotFoundError{Number: int64(*args.Number)}
	case args.Hash != nil:
		hash := common.Hash(*args.Hash)
		if b := s.blockByHash(hash); b != nil {
			return b, nil
		}
		return nil, &backend.BlockNotFoundError{Hash: &hash}
	}
	return s.head(), nil
}

// Blocks answers the canonical blocks from..to (to defaults to the head and
// is clamped to it). Unlike Besu, which walks any range, the range is
// limited to Config.MaxBlocksRange blocks.
func (r *root) Blocks(ctx context.Context, args struct{ From, To *Long }) ([]*Block, error) {
	s := r.s
	head := int64(s.chain.CurrentHeader().Number.Uint64())
	if args.From == nil {
		return nil, &backend.InvalidParamsError{}
	}
	from, to := int64(*args.From), head
	if args.To != nil {
		to = int64(*args.To)
	}
	if from > to {
		return nil, &backend.InvalidParamsError{}
	}
	to = min(to, head)
	from = max(from, 0)
	if to-from >= int64(s.cfg.MaxBlocksRange) {
		return nil, errBlocksRangeTooLarge
	}
	out := make([]*Block, 0, max(to-from+1, 0))
	for n := from; n <= to; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b := s.blockByNumber(n); b != nil {
			out = append(out, b)
		}
	}
	return out, nil
}

// Pending resolves Query.pending: the pool's view of the next block.
func (r *root) Pending() *Pending { return &Pending{s: r.s} }

// Transaction resolves Query.transaction: by hash, from the canonical
// chain or the pool; null when neither has it.
func (r *root) Transaction(args struct{ Hash Hash }) *Transaction {
	return r.s.transactionByHash(common.Hash(args.Hash))
}

// logFilter is the FilterCriteria input.
type logFilter struct {
	FromBlock *Long
	ToBlock   *Long
	Addresses *[]Address
	Topics    *[][]LogTopic
}

// Logs resolves Query.logs: the logs of a block range (from and to
// default to the head) matching the filter.
func (r *root) Logs(ctx context.Context, args struct{ Filter logFilter }) ([]*Log, error) {
	s := r.s
	head := int64(s.chain.CurrentHeader().Number.Uint64())
	from, to := head, head
	if args.Filter.FromBlock != nil {
		from = int64(*args.Filter.FromBlock)
	}
	if args.Filter.ToBlock != nil {
		to = int64(*args.Filter.ToBlock)
	}
	if from < 0 || to < 0 || from > to {
		return nil, &backend.InvalidParamsError{}
	}
	crit, err := criteria(args.Filter.Addresses, args.Filter.Topics)
	if err != nil {
		return nil, err
	}
	return s.logs(ctx, filters.Query{
		From:     filters.Bound{Number: uint64(from)},
		To:       filters.Bound{Number: uint64(to)},
		Criteria: crit,
	})
}

// GasPrice resolves Query.gasPrice: the backend's gas price suggestion.
func (r *root) GasPrice() BigInt { return newBigInt(r.s.backend.GasPrice()) }

// MaxPriorityFeePerGas resolves Query.maxPriorityFeePerGas: the backend's
// priority fee suggestion.
func (r *root) MaxPriorityFeePerGas() BigInt {
	return newBigInt(r.s.backend.MaxPriorityFeePerGas())
}

// Syncing resolves Query.syncing: the progress of a running
// synchronisation, null when the node is not synchronising.
func (r *root) Syncing() *SyncState {
	st := r.s.backend.SyncProgress()
	if st == nil {
		return nil
	}
	return &SyncState{st: *st}
}

// ChainID resolves Query.chainID.
func (r *root) ChainID() BigInt { return newBigInt(r.s.backend.ChainID()) }

// Account is the account at a block number, or at the head. As in Besu, a
// number past the head is "Invalid params" and a block whose state is gone
// "Initial sync is still in progress".
func (r *root) Account(args struct {
	Address     Address
	BlockNumber *Long
}) (*Account, error) {
	s := r.s
	addr := common.Address(args.Address)
	if args.BlockNumber == nil {
		return s.newAccount(addr, s.chain.CurrentHeader(), s.chain.CurrentHash()), nil
	}
	b := s.blockByNumber(int64(*args.BlockNumber))
	if b == nil {
		return nil, &backend.InvalidParamsError{Param: backend.ParamBlockNumber}
	}
	if err := s.backend.EnsureState(b.header, b.hash); err != nil {
		return nil, err
	}
	return s.newAccount(addr, b.header, b.hash), nil
}

// ProtocolVersion resolves Query.protocolVersion: the highest eth protocol
// version the node speaks.
func (r *root) ProtocolVersion() int32 { return int32(r.s.backend.ProtocolVersion()) }

// SendRawTransaction resolves Mutation.sendRawTransaction: the backend
// submits the signed transaction's bytes; the answer is its hash.
func (r *root) SendRawTransaction(ctx context.Context, args struct{ Data Bytes }) (Bytes32, error) {
	hash, err := r.s.backend.SendRawTransaction(ctx, args.Data)
	if err != nil {
		return Bytes32{}, err
	}
	return Bytes32(hash), nil
}

// SyncState resolves the synchronisation progress; its methods resolve the
// schema fields of the same names.
type SyncState struct{ st backend.SyncStatus }

// StartingBlock is the head's number when the sync started.
func (s *SyncState) StartingBlock() Long { return Long(s.st.StartingBlock) }

// CurrentBlock is the head's number now.
func (s *SyncState) CurrentBlock() Long { return Long(s.st.CurrentBlock) }

// HighestBlock is the number of the block being synced to.
func (s *SyncState) HighestBlock() Long { return Long(s.st.HighestBlock) }

// Pending resolves the pending state: the pool's transactions, and
// accounts and calls on the head state (Besu has no speculative block).
// Its methods resolve the schema fields of the same names.
type Pending struct{ s *Service }

// TransactionCount is the number of pooled transactions.
func (p *Pending) TransactionCount() Long { return Long(p.s.backend.PendingCount()) }

// Transactions are the pooled transactions.
func (p *Pending) Transactions() *[]*Transaction {
	out := []*Transaction{}
	for _, info := range p.s.backend.PendingTransactions() {
		from := info.From
		out = append(out, p.s.newTransaction(info.Tx, nil, 0, &from))
	}
	return &out
}

// Account is an account in the head's state.
func (p *Pending) Account(args struct{ Address Address }) *Account {
	c := p.s.chain
	return p.s.newAccount(common.Address(args.Address), c.CurrentHeader(), c.CurrentHash())
}

// Call runs a call on the head's state.
func (p *Pending) Call(ctx context.Context, args struct{ Data callData }) (*CallResult, error) {
	c := p.s.chain
	return p.s.call(ctx, args.Data, c.CurrentHeader(), c.CurrentHash())
}

// EstimateGas is the gas a call on the head's state uses.
func (p *Pending) EstimateGas(ctx context.Context, args struct{ Data callData }) (Long, error) {
	c := p.s.chain
	return p.s.estimateGas(ctx, args.Data, c.CurrentHeader(), c.CurrentHash())
}

// criteria builds the log criteria of a filter input.
func criteria(addresses *[]Address, topics *[][]LogTopic) (*filters.Criteria, error) {
	var addrs []common.Address
	if addresses != nil {
		addrs = make([]common.Address, len(*addresses))
		for i, a := range *addresses {
			addrs[i] = common.Address(a)
		}
	}
	var tops [][]common.Hash
	if topics != nil {
		tops = make([][]common.Hash, len(*topics))
		for i, alts := range *topics {
			tops[i] = make([]common.Hash, len(alts))
			for j, t := range alts {
				tops[i][j] = common.Hash(t)
			}
		}
	}
	crit, err := filters.NewCriteria(addrs, tops)
	if err != nil {
		return nil, &backend.InvalidParamsError{Reason: err.Error()}
	}
	return crit, nil
}

// logs runs a log query on the backend's filter system. A block that is
// not there has no logs, as Besu answers.
func (s *Service) logs(ctx context.Context, q filters.Query) ([]*Log, error) {
	found, err := s.backend.Logs(ctx, q)
	switch {
	case errors.Is(err, filters.ErrBlockNotFound):
		return []*Log{}, nil
	case err != nil:
		return nil, err
	}
	out := make([]*Log, len(found))
	for i, l := range found {
		out[i] = &Log{s: s, l: l}
	}
	return out, nil
}
