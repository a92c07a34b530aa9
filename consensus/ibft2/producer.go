package ibft2

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	gethp2p "github.com/ethereum/go-ethereum/p2p"

	"github.com/basaltchain/basalt/consensus"
	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/driver"
	"github.com/basaltchain/basalt/metrics"
)

// Protocols is the IBF/1 sub-protocol, run beside eth.
func (e *Engine) Protocols() []gethp2p.Protocol {
	return []gethp2p.Protocol{e.net.transport.Protocol()}
}

// Produce runs the local validator (see consensus.Producer) until ctx
// ends; it returns a CannotSealError while the node is not a validator of
// the next block.
func (e *Engine) Produce(ctx context.Context, host consensus.Host) error {
	if e.key == nil {
		return &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}
	}
	return driver.Run(ctx, host, driver.Config{
		Core: bft.Config{
			Self:                      e.self,
			RequestTimeout:            e.requestTimeout(),
			BlockPeriod:               e.cfg.BlockPeriodSeconds,
			FutureMessagesLimit:       int(e.cfg.FutureMessagesLimit),
			FutureMessagesMaxDistance: e.cfg.FutureMessagesMaxDistance,
		},
		Protocol:         protocol{e},
		Network:          e.net,
		Inbox:            e.net.inbox,
		EmptyBlockPeriod: e.cfg.EmptyBlockPeriodSeconds,
		Metrics:          e.metrics,
	})
}

// SetMetrics implements consensus.Instrumented: the node hands over its
// registry before the engine produces (see driver.NewMetrics).
func (e *Engine) SetMetrics(r *metrics.Registry) { e.metrics = driver.NewMetrics(r, "ibft2") }

// protocol is IBFT 2.0 as the driver sees it.
type protocol struct{ e *Engine }

var _ driver.Protocol = protocol{}

func (protocol) Digest(b *types.Block) (common.Hash, error) { return SealHash(b.Header()) }

func (protocol) BlockRound(b *types.Block) (uint32, error) {
	extra, err := DecodeExtraData(b.Header().Extra)
	if err != nil {
		return 0, err
	}
	return extra.Round, nil
}

func (protocol) WithRound(b *types.Block, round uint32) (*types.Block, error) {
	h, err := WithRoundAndSeals(b.Header(), round, nil)
	if err != nil {
		return nil, err
	}
	return b.WithSeal(h), nil
}

func (p protocol) Sign(m *bft.Message) error { return Sign(m, p.e.key) }

// SealHash: IBFT 2.0 seals sign the digest of the block with its round.
func (p protocol) SealHash(b *types.Block, round uint32) (common.Hash, error) {
	b, err := p.WithRound(b, round)
	if err != nil {
		return common.Hash{}, err
	}
	return p.Digest(b)
}

func (p protocol) CommitSeal(d common.Hash) ([]byte, error) { return crypto.Sign(d[:], p.e.key) }

func (protocol) SealSigner(d common.Hash, seal []byte) (common.Address, error) {
	return recoverSigner(d, seal)
}

func (protocol) Hash(h *types.Header) common.Hash { return BlockHash(h) }

func (p protocol) Height(chain consensus.ChainReader, head *types.Header) (bft.Height, error) {
	vals, err := p.e.ValidatorsAfter(chain, head)
	if err != nil {
		return bft.Height{}, err
	}
	return bft.Height{Sequence: head.Number.Uint64() + 1, ParentTime: head.Time,
		ParentProposer: head.Coinbase, Validators: vals}, nil
}

func (protocol) Seal(h *types.Header, round uint32, seals [][]byte) (*types.Header, error) {
	return WithRoundAndSeals(h, round, seals)
}
