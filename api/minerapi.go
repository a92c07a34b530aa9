package api

import (
	"errors"

	"github.com/basaltchain/basalt/miner"
)

// Miner is the MINER method group.
type Miner struct{ b *Backend }

func (m *Miner) Start() (bool, error) {
	if m.b.Miner == nil {
		return false, errCoinbaseNotSet
	}
	if err := m.b.Miner.Start(); err != nil {
		if errors.Is(err, miner.ErrCoinbaseNotSet) {
			return false, errCoinbaseNotSet
		}
		return false, err
	}
	return true, nil
}

func (m *Miner) Stop() bool {
	if m.b.Miner != nil {
		m.b.Miner.Stop()
	}
	return true
}
