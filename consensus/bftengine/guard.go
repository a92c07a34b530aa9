package bftengine

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/consensus/bft"

	"github.com/basaltchain/basalt/p2p/subprotocol"
)

// Verdicts of Admit on a message that is dropped without blame: an honest
// peer can send it (a late relay, a validator the node does not know yet).
var (
	ErrStaleMessage = errors.New("consensus message of a past height")
	ErrUnknownAhead = errors.New("consensus message of a later height by an author outside the latest validators")
)

// Gate is what the messages peers send are checked against before they
// are queued for the core: the height the core runs and its validators.
// The driver sets it on every new head (driver.Network.NewHeight).
type Gate struct {
	// Sequence is the height the core runs.
	Sequence uint64
	// Validators are its validators, ascending.
	Validators []common.Address
	// MaxDistance is how many heights ahead a message may be
	// (futuremessagesmaxdistance).
	MaxDistance uint64
}

func (g *Gate) isValidator(a common.Address) bool {
	_, ok := slices.BinarySearchFunc(g.Validators, a, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })
	return ok
}

// Admit decodes data, a message of code a peer sent, and decides whether
// it goes to the core, before anything else sees it (Besu checks the
// author before it gossips; GoQuorum before it handles). With no gate
// (no height yet) every decoded message goes on. The verdicts:
//
//   - nil: queue m for the core;
//   - an error wrapping subprotocol.ErrMisbehaved: ban the peer. The
//     signature does not recover (bft.ErrBadSignature), or the author is
//     not a validator of the current height, whose set is known for sure
//     (bft.ErrNotValidator). An honest peer relays only what its core
//     accepted, so it never sends either;
//   - ErrStaleMessage, ErrUnknownAhead, bft.ErrTooFarAhead: drop m. A
//     message of a later height is checked against the latest validators
//     the node knows; its author may be one voted in since (when the node
//     lags, or is syncing a network whose set changed), so it is dropped
//     but its sender is not blamed;
//   - any other error: the message is malformed; disconnect the peer.
func Admit(f Format, g *Gate, code uint64, data []byte) (*bft.Message, error) {
	m, err := f.DecodeMessage(code, data)
	if err != nil {
		if errors.Is(err, bft.ErrBadSignature) {
			return nil, fmt.Errorf("%w: %w", subprotocol.ErrMisbehaved, err)
		}
		return nil, err
	}
	if g == nil {
		return m, nil
	}
	seq := m.View.Sequence
	switch {
	case seq < g.Sequence:
		return nil, ErrStaleMessage
	case seq == g.Sequence:
		if !g.isValidator(m.Author) {
			return nil, fmt.Errorf("%w: %w: %s %s of height %d", subprotocol.ErrMisbehaved, bft.ErrNotValidator,
				m.Kind, m.Author.Hex(), seq)
		}
	case seq > g.Sequence+g.MaxDistance:
		return nil, bft.ErrTooFarAhead
	case !g.isValidator(m.Author):
		return nil, ErrUnknownAhead
	}
	return m, nil
}
