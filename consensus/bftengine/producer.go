package bftengine

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

// Protocols are the sub-protocols of every protocol of the schedule, run
// beside eth: a node migrating from IBFT 2.0 to QBFT speaks both until the
// switch, so no validator waits at the fork block for peers it cannot
// reach (besu#9515). Basalt's bftmesh runs beside them (see mesh.go).
func (e *Engine) Protocols() []gethp2p.Protocol {
	out := make([]gethp2p.Protocol, 0, len(e.nets)+1)
	for _, n := range e.nets {
		out = append(out, n.transport.Protocol())
	}
	return append(out, e.mesh.transport.Protocol())
}

// Produce runs the local validator (see consensus.Producer) until ctx
// ends; it returns a CannotSealError while the node is not a validator of
// the next block.
func (e *Engine) Produce(ctx context.Context, host consensus.Host) error {
	if e.key == nil {
		return &consensus.CannotSealError{Reason: consensus.ReasonNotAuthorised}
	}
	next := host.Chain().CurrentHeader().Number.Uint64() + 1
	cfg := e.cfg(next)
	return driver.Run(ctx, host, driver.Config{
		Core: bft.Config{
			Self:                      e.self,
			RequestTimeout:            e.RequestTimeout(next),
			BlockPeriod:               cfg.BlockPeriod(),
			FutureMessagesLimit:       int(cfg.FutureMessagesLimit),
			FutureMessagesMaxDistance: cfg.FutureMessagesMaxDistance,
			Rules:                     e.format(next).Spec().Rules,
		},
		Protocol:           protocol{e},
		Network:            router{e},
		Inbox:              e.inbox,
		EmptyBlockPeriod:   cfg.EmptyBlockPeriodSeconds,
		EmptyBlockPeriodAt: func(n uint64) uint64 { return e.cfg(n).EmptyBlockPeriodSeconds },
		MetricsAt:          e.metricsAt,
	})
}

// SetMetrics implements metrics.Instrumented: the node hands over its
// registry before the engine produces (see driver.NewMetrics).
// Each protocol of the schedule has its own (besu_consensus_ibft2_* and
// besu_consensus_qbft_* during a migration), and a height reports under
// its block's protocol.
func (e *Engine) SetMetrics(r *metrics.Registry) {
	e.metrics = make(map[string]driver.Metrics, len(e.segs))
	for _, s := range e.segs {
		if _, ok := e.metrics[s.Format.Spec().Key]; !ok {
			e.metrics[s.Format.Spec().Key] = driver.NewMetrics(r, s.Format.Spec().Key)
		}
	}
}

// metricsAt is the metrics of block number's protocol (none before
// SetMetrics).
func (e *Engine) metricsAt(number uint64) driver.Metrics {
	return e.metrics[e.format(number).Spec().Key]
}

// protocol is the schedule as the driver sees it: each function answers
// with the protocol of the block it is about.
type protocol struct{ e *Engine }

var _ driver.Protocol = protocol{}

func (p protocol) f(b *types.Block) Format { return p.e.format(b.NumberU64()) }

func (p protocol) Digest(b *types.Block) (common.Hash, error) { return p.f(b).Digest(b.Header()) }

func (p protocol) BlockRound(b *types.Block) (uint32, error) {
	extra, err := p.f(b).DecodeExtra(b.Header().Extra)
	if err != nil {
		return 0, err
	}
	return extra.Round, nil
}

func (p protocol) WithRound(b *types.Block, round uint32) (*types.Block, error) {
	h, err := bft.WithRoundAndSeals(p.f(b), b.Header(), round, nil)
	if err != nil {
		return nil, err
	}
	return b.WithSeal(h), nil
}

func (p protocol) Sign(m *bft.Message) error {
	return p.e.format(m.View.Sequence).Sign(m, p.e.key)
}

func (p protocol) SealHash(b *types.Block, round uint32) (common.Hash, error) {
	return p.f(b).SealHash(b.Header(), round)
}

func (p protocol) CommitSeal(d common.Hash) ([]byte, error) { return crypto.Sign(d[:], p.e.key) }

func (p protocol) SealSigner(d common.Hash, seal []byte) (common.Address, error) {
	// Both protocols' seals are r ‖ s ‖ v (v 0 or 1) over the hash as is.
	return p.e.recoverSeal(d, seal)
}

func (p protocol) Hash(h *types.Header) common.Hash { return p.e.Hash(h) }

func (p protocol) Height(chain consensus.ChainReader, head *types.Header) (bft.Height, error) {
	vals, err := p.e.ValidatorsAfter(chain, head)
	if err != nil {
		return bft.Height{}, err
	}
	next := head.Number.Uint64() + 1
	return bft.Height{Sequence: next, ParentTime: head.Time, ParentProposer: head.Coinbase, Validators: vals,
		Rules: p.e.format(next).Spec().Rules, BlockPeriod: p.e.cfg(next).BlockPeriod(),
		RequestTimeout: p.e.RequestTimeout(next)}, nil
}

func (p protocol) Seal(h *types.Header, round uint32, seals [][]byte) (*types.Header, error) {
	return bft.WithRoundAndSeals(p.e.format(headerNumber(h)), h, round, seals)
}
