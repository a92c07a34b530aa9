package qbft

import (
	"errors"
	"fmt"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/bftengine"
	"github.com/basaltchain/basalt/consensus/ibft2"
)

// Schedule returns the engine segments of a genesis with config.qbft: QBFT
// from block 0, or IBFT 2.0 (config.ibft2) up to config.qbft.startblock and
// QBFT from it; each QBFT transition starts a segment with its options.
func Schedule(g *config.Genesis) ([]bftengine.Segment, error) {
	qc := g.QBFT
	if qc == nil {
		return nil, errors.New("genesis has no config.qbft")
	}
	var segs []bftengine.Segment
	if qc.StartBlock > 0 {
		if g.IBFT2 == nil {
			return nil, errors.New("config.qbft.startblock needs config.ibft2")
		}
		for i, t := range g.IBFT2Transitions {
			if t.Block >= qc.StartBlock {
				return nil, fmt.Errorf("config.transitions.ibft2[%d].block: %d is not before config.qbft.startblock %d (use config.transitions.qbft from there)", i, t.Block, qc.StartBlock)
			}
		}
		segs = append(segs, ibft2.Schedule(g.IBFT2, g.IBFT2Transitions)...)
	}
	opts := qc.IBFT2Config
	// Contract selection from the start when config.qbft names a contract
	// (Besu: validatorcontractaddress without transitions).
	contract := qc.ValidatorContractAddress
	first := opts
	segs = append(segs, bftengine.Segment{From: qc.StartBlock, Format: Format{}, Config: &first, Contract: contract})
	address := contract
	for i, t := range qc.Transitions {
		if t.ValidatorContractAddress != nil {
			address = t.ValidatorContractAddress
		}
		switch t.ValidatorSelectionMode {
		case "contract":
			contract = address
		case "blockheader":
			contract = nil
		default:
			if t.ValidatorContractAddress != nil && contract != nil {
				contract = address // a new contract, same mode
			}
		}
		if t.Block < qc.StartBlock {
			return nil, fmt.Errorf("config.transitions.qbft[%d].block: %d is before config.qbft.startblock %d", i, t.Block, qc.StartBlock)
		}
		next := t.Apply(opts) // the options so far, with this transition's
		opts = next
		cfg := next
		if t.Validators != nil && contract != nil {
			return nil, fmt.Errorf("config.transitions.qbft[%d].validators: not with contract validator selection", i)
		}
		segs = append(segs, bftengine.Segment{From: t.Block, Format: Format{}, Config: &cfg, Validators: t.Validators,
			Contract: contract})
	}
	return segs, nil
}

// New returns the engine of a genesis with config.qbft (see Schedule).
func New(g *config.Genesis, opts bftengine.Options) (*bftengine.Engine, error) {
	segs, err := Schedule(g)
	if err != nil {
		return nil, err
	}
	// GoQuorum's QBFT checks no bound on the gas limit's change.
	opts.AnyGasLimit = opts.AnyGasLimit || g.Quorum
	return bftengine.New(segs, opts)
}
