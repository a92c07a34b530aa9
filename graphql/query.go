package graphql

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/api"
	"github.com/basaltchain/basalt/filters"
)

// root resolves the fields of Query and Mutation; its methods resolve the
// schema fields of the same names.
type root struct{ s *Service }

func (r *root) Block(args struct {
	Number *Long
	Hash   *Hash
}) (*Block, error) {
	s := r.s
	switch {
	case args.Number != nil && args.Hash != nil:
		return nil, errInvalidParams
	case args.Number != nil:
		if b := s.blockByNumber(int64(*args.Number)); b != nil {
			return b, nil
		}
		return nil, exception("Block number %d was not found", int64(*args.Number))
	case args.Hash != nil:
		if b := s.blockByHash(common.Hash(*args.Hash)); b != nil {
			return b, nil
		}
		return nil, exception("Block hash %s was not found", common.Hash(*args.Hash).Hex())
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
		return nil, errInvalidParams
	}
	from, to := int64(*args.From), head
	if args.To != nil {
		to = int64(*args.To)
	}
	if from > to {
		return nil, errInvalidParams
	}
	to = min(to, head)
	from = max(from, 0)
	if to-from >= int64(s.cfg.MaxBlocksRange) {
		return nil, errRangeTooLarge
	}
	out := make([]*Block, 0, max(to-from+1, 0))
	for n := from; n <= to; n++ {
		if err := ctx.Err(); err != nil {
			return nil, exception("%v", err)
		}
		if b := s.blockByNumber(n); b != nil {
			out = append(out, b)
		}
	}
	return out, nil
}

func (r *root) Pending() *Pending { return &Pending{s: r.s} }

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
		return nil, errInvalidParams
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

func (r *root) GasPrice() BigInt { return newBigInt(r.s.backend.GasPrice()) }

func (r *root) MaxPriorityFeePerGas() BigInt {
	return newBigInt(r.s.backend.MaxPriorityFeePerGas())
}

func (r *root) Syncing() *SyncState {
	if r.s.backend.Syncing == nil {
		return nil
	}
	st := r.s.backend.Syncing()
	if st == nil {
		return nil
	}
	return &SyncState{st: *st}
}

func (r *root) ChainID() BigInt { return newBigInt(r.s.chain.Config().ChainID) }

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
		return nil, errInvalidParams
	}
	if err := s.chain.EnsureState(b.hash, b.header); err != nil {
		return nil, errWorldStateNotReady
	}
	return s.newAccount(addr, b.header, b.hash), nil
}

func (r *root) ProtocolVersion() int32 { return int32(r.s.backend.ProtocolVersion()) }

// SendRawTransaction submits a transaction through eth_sendRawTransaction's
// logic and answers its hash, or Besu's error (code and message).
func (r *root) SendRawTransaction(args struct{ Data Bytes }) (Bytes32, error) {
	hash, err := r.s.backend.SendRawTransaction(args.Data)
	if err != nil {
		return Bytes32{}, rpcFailure(err)
	}
	return Bytes32(hash), nil
}

// SyncState resolves the synchronisation progress; its methods resolve the
// schema fields of the same names.
type SyncState struct{ st api.SyncStatus }

func (s *SyncState) StartingBlock() Long { return Long(s.st.StartingBlock) }

func (s *SyncState) CurrentBlock() Long { return Long(s.st.CurrentBlock) }

func (s *SyncState) HighestBlock() Long { return Long(s.st.HighestBlock) }

// Pending resolves the pending state: the pool's transactions, and
// accounts and calls on the head state (Besu has no speculative block).
// Its methods resolve the schema fields of the same names.
type Pending struct{ s *Service }

func (p *Pending) TransactionCount() Long {
	if p.s.pool == nil {
		return 0
	}
	return Long(p.s.pool.Len())
}

func (p *Pending) Transactions() *[]*Transaction {
	out := []*Transaction{}
	if p.s.pool != nil {
		for _, info := range p.s.pool.Transactions() {
			from := info.From
			out = append(out, p.s.newTransaction(info.Tx, nil, 0, &from))
		}
	}
	return &out
}

func (p *Pending) Account(args struct{ Address Address }) *Account {
	c := p.s.chain
	return p.s.newAccount(common.Address(args.Address), c.CurrentHeader(), c.CurrentHash())
}

func (p *Pending) Call(ctx context.Context, args struct{ Data callData }) (*CallResult, error) {
	c := p.s.chain
	return p.s.call(ctx, args.Data, c.CurrentHeader(), c.CurrentHash())
}

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
		return nil, errInvalidParams
	}
	return crit, nil
}

// logs runs a log query on the node's log service.
func (s *Service) logs(ctx context.Context, q filters.Query) ([]*Log, error) {
	if s.backend.Filters == nil {
		return nil, exception("log queries are not available")
	}
	found, err := s.backend.Filters.Logs(ctx, q)
	switch {
	case errors.Is(err, filters.ErrRangeTooLarge):
		return nil, errRangeTooLarge
	case errors.Is(err, filters.ErrTooManyResults):
		return nil, errTooManyLogs
	case errors.Is(err, filters.ErrBlockNotFound):
		return []*Log{}, nil
	case err != nil:
		return nil, exception("%v", err)
	}
	out := make([]*Log, len(found))
	for i, l := range found {
		out[i] = &Log{s: s, l: l}
	}
	return out, nil
}
