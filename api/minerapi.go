package api

import (
	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/miner"
)

// Miner is the MINER method group.
type Miner struct{ b *backend.Backend }

// Start is miner_start: true once the miner runs; without a miner, or a
// coinbase to mine to, miner.ErrCoinbaseNotSet.
func (m *Miner) Start() (bool, error) {
	if m.b.Miner == nil {
		return false, miner.ErrCoinbaseNotSet
	}
	if err := m.b.Miner.Start(); err != nil {
		return false, err
	}
	return true, nil
}

// Stop is miner_stop: always true.
func (m *Miner) Stop() bool {
	if m.b.Miner != nil {
		m.b.Miner.Stop()
	}
	return true
}
