// Package localnet runs a complete private network on this machine: N
// validators, optionally a privacy manager per node and a signer in front
// of the first, all child processes of one supervisor (`basalt network
// up`), on loopback ports from a base port. A directory holds everything:
// the manifest (network.json) that marks it as a network's, the genesis
// and keys, each process's data and log.
package localnet

import (
	"fmt"
	"slices"
)

// MaxValidators bounds --validators: a hundred nodes (a full mesh of
// 4,950 connections) run on a two-core machine at one-second blocks (see
// docs/how-to/bft-at-scale.md); more is no longer a local network.
const MaxValidators = 100

// Consensus engines a network can run.
var Consensus = []string{"qbft", "ibft2", "clique"}

// Settings choose the network's shape.
type Settings struct {
	Validators int    `json:"validators"`
	Consensus  string `json:"consensus"`
	Privacy    bool   `json:"privacy"`
	Signer     bool   `json:"signer"`
	BasePort   int    `json:"basePort"`
	// Milestone is the newest protocol milestone the genesis activates
	// (one of Milestones; "" is DefaultMilestone).
	Milestone string `json:"milestone,omitempty"`
}

// Check reports the first invalid setting.
func (s Settings) Check() error {
	if s.Validators < 1 || s.Validators > MaxValidators {
		return fmt.Errorf("--validators must be between 1 and %d, got %d", MaxValidators, s.Validators)
	}
	if !slices.Contains(Consensus, s.Consensus) {
		return fmt.Errorf("--consensus must be one of %v, got %q", Consensus, s.Consensus)
	}
	if s.Milestone != "" {
		if err := checkMilestone(s.Milestone); err != nil {
			return err
		}
	}
	if last := s.BasePort + s.Validators*portStride - 1; s.BasePort < 1024 || last > 65535 {
		return fmt.Errorf("--base-port %d: the network's ports %d-%d must lie within 1024-65535", s.BasePort, s.BasePort, last)
	}
	return nil
}

// Each node has portStride ports from BasePort + index*portStride, at
// these offsets.
const (
	portStride = 10

	offHTTP          = 0
	offWS            = 1
	offGraphQL       = 2
	offMetrics       = 3
	offP2P           = 4
	offPrivacyNode   = 5
	offPrivacyClient = 6
	offSigner        = 7 // node 1's block only
)

// port is node i's port at offset off.
func (s Settings) port(i, off int) int { return s.BasePort + i*portStride + off }

// Ports lists every port the network listens on.
func (s Settings) Ports() []int {
	var ports []int
	for i := range s.Validators {
		ports = append(ports, s.port(i, offHTTP), s.port(i, offWS), s.port(i, offGraphQL), s.port(i, offMetrics), s.port(i, offP2P))
		if s.Privacy {
			ports = append(ports, s.port(i, offPrivacyNode), s.port(i, offPrivacyClient))
		}
	}
	if s.Signer {
		ports = append(ports, s.port(0, offSigner))
	}
	return ports
}
