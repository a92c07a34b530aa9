// Package localnet runs a complete private network on this machine: N
// validators, optionally a privacy manager per node and a signer in front
// of the first, all child processes of one supervisor (`basalt network
// up`), on loopback ports from a base port. A directory holds everything:
// the manifest (network.json) that marks it as a network's, the genesis
// and keys, each process's data and log.
package localnet

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
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
	// BlockPeriod is the block period as a Go duration ("250ms", "2s"; ""
	// is one second). A BFT period that is not whole seconds goes into the
	// genesis as Besu's xblockperiodmilliseconds.
	BlockPeriod string `json:"blockPeriod,omitempty"`
}

// MinBlockPeriod is the shortest --block-period: the BFT engines keep
// exact periods down to 100 ms with 4 validators on one machine.
const MinBlockPeriod = 100 * time.Millisecond

// Period is the block period (one second when BlockPeriod is "").
func (s Settings) Period() (time.Duration, error) {
	if s.BlockPeriod == "" {
		return time.Second, nil
	}
	d, err := time.ParseDuration(s.BlockPeriod)
	if err != nil {
		return 0, fmt.Errorf("--block-period: %q is not a duration such as 250ms or 2s", s.BlockPeriod)
	}
	switch {
	case d < MinBlockPeriod:
		return 0, fmt.Errorf("--block-period must be at least %v, got %v", MinBlockPeriod, d)
	case d%time.Millisecond != 0:
		return 0, fmt.Errorf("--block-period must be whole milliseconds, got %v", d)
	case d > 24*time.Hour:
		return 0, fmt.Errorf("--block-period must be at most a day, got %v", d)
	case s.Consensus == "clique" && d%time.Second != 0:
		return 0, fmt.Errorf("--block-period %v: Clique periods are whole seconds (sub-second periods are for qbft and ibft2)", d)
	}
	return d, nil
}

// Check reports the first invalid setting.
func (s Settings) Check() error {
	if s.Validators < 1 || s.Validators > MaxValidators {
		return fmt.Errorf("--validators must be between 1 and %d, got %d", MaxValidators, s.Validators)
	}
	if !slices.Contains(Consensus, s.Consensus) {
		return fmt.Errorf("--consensus must be one of %v, got %q", Consensus, s.Consensus)
	}
	if _, err := s.Period(); err != nil {
		return err
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

// ephemeralRangeFile holds Linux's range of ports for outgoing
// connections.
const ephemeralRangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// ephemeralOverlap returns a warning when the network's ports overlap the
// kernel's ephemeral port range (read from file; "" where there is none).
// The ports are free when checked, but the nodes' own outgoing connections
// take ephemeral ports, so a node that starts later can find one of its
// ports taken and fail to bind.
func ephemeralOverlap(s Settings, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) != 2 {
		return ""
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	last := s.BasePort + s.Validators*portStride - 1
	if err1 != nil || err2 != nil || last < lo || s.BasePort > hi {
		return ""
	}
	return fmt.Sprintf("warning: the network's ports %d-%d overlap the ephemeral port range %d-%d that outgoing connections use (%s): "+
		"a node may find a port taken when it starts; choose a --base-port whose ports end below %d", s.BasePort, last, lo, hi, file, lo)
}
