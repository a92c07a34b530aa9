package api

import (
	"strconv"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Net is the NET method group.
type Net struct{ b *Backend }

func (n *Net) Version() string { return strconv.FormatUint(n.b.NetworkID, 10) }

// Listening reports whether the p2p listener runs (none until p2p exists).
func (n *Net) Listening() bool { return false }

func (n *Net) PeerCount() hexutil.Uint64 { return 0 }
