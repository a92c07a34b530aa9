package filters

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Limits on one set of criteria, so a stored filter or subscription stays
// small whatever a client sends.
const (
	// MaxAddresses is the most addresses one query may list.
	MaxAddresses = 1000
	// MaxTopicPositions is the most topic positions: a log has at most four.
	MaxTopicPositions = 4
	// MaxTopicValues is the most topic values over all positions.
	MaxTopicValues = 1000
)

// Criteria selects logs by emitting address and topics, as eth_getLogs,
// eth_newFilter and logs subscriptions do.
//
// A log matches when its address is one of Addresses (any address when
// empty) and, for each position i of Topics, either Topics[i] is empty (a
// wildcard) or the log's topic i is one of Topics[i]. A log with fewer
// topics than len(Topics) does not match (Besu and go-ethereum agree).
type Criteria struct {
	Addresses []common.Address
	Topics    [][]common.Hash

	addrSet map[common.Address]struct{} // for long address lists
	// bloom holds, per group (the addresses, then each non-wildcard topic
	// position), the bloom bits of each alternative: a block can only hold
	// a match if, in every group, some alternative has all its bits set.
	bloom [][]bloomBits
}

// bloomBits are the three bits a value sets in a logs bloom.
type bloomBits [3]struct {
	index byte // byte of the bloom
	mask  byte
}

// ErrTooManyAddresses and friends report criteria over the limits.
var (
	ErrTooManyAddresses = fmt.Errorf("more than %d addresses", MaxAddresses)
	ErrTooManyTopics    = fmt.Errorf("more than %d topic positions", MaxTopicPositions)
	ErrTooManyValues    = fmt.Errorf("more than %d topic values", MaxTopicValues)
)

// NewCriteria checks the limits and prepares the criteria for matching.
// The slices are kept, not copied.
func NewCriteria(addresses []common.Address, topics [][]common.Hash) (*Criteria, error) {
	if len(addresses) > MaxAddresses {
		return nil, ErrTooManyAddresses
	}
	if len(topics) > MaxTopicPositions {
		return nil, ErrTooManyTopics
	}
	n := 0
	for _, alts := range topics {
		n += len(alts)
	}
	if n > MaxTopicValues {
		return nil, ErrTooManyValues
	}
	c := &Criteria{Addresses: addresses, Topics: topics}
	if len(addresses) > 8 {
		c.addrSet = make(map[common.Address]struct{}, len(addresses))
		for _, a := range addresses {
			c.addrSet[a] = struct{}{}
		}
	}
	if len(addresses) > 0 {
		group := make([]bloomBits, len(addresses))
		for i, a := range addresses {
			group[i] = bitsOf(a[:])
		}
		c.bloom = append(c.bloom, group)
	}
	for _, alts := range topics {
		if len(alts) == 0 {
			continue
		}
		group := make([]bloomBits, len(alts))
		for i, t := range alts {
			group[i] = bitsOf(t[:])
		}
		c.bloom = append(c.bloom, group)
	}
	return c, nil
}

// bitsOf computes the bloom bits of a value (go-ethereum's bloomValues).
func bitsOf(data []byte) bloomBits {
	h := crypto.Keccak256(data)
	var b bloomBits
	for i := range 3 {
		bit := (uint(h[2*i])<<8 | uint(h[2*i+1])) & 2047
		b[i].index = byte(types.BloomByteLength - 1 - bit/8)
		b[i].mask = 1 << (bit % 8)
	}
	return b
}

// MayMatch reports whether a block with this logs bloom can contain a
// matching log (false positives are possible, false negatives are not).
func (c *Criteria) MayMatch(bloom *types.Bloom) bool {
	for _, group := range c.bloom {
		found := false
		for _, b := range group {
			if bloom[b[0].index]&b[0].mask != 0 && bloom[b[1].index]&b[1].mask != 0 && bloom[b[2].index]&b[2].mask != 0 {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Matches reports whether the log matches.
func (c *Criteria) Matches(l *types.Log) bool {
	if len(c.Addresses) > 0 {
		if c.addrSet != nil {
			if _, ok := c.addrSet[l.Address]; !ok {
				return false
			}
		} else if !containsAddress(c.Addresses, l.Address) {
			return false
		}
	}
	if len(c.Topics) > len(l.Topics) {
		return false
	}
	for i, alts := range c.Topics {
		if len(alts) == 0 {
			continue
		}
		if !containsHash(alts, l.Topics[i]) {
			return false
		}
	}
	return true
}

// Wildcard reports whether the criteria match every log.
func (c *Criteria) Wildcard() bool { return len(c.Addresses) == 0 && len(c.Topics) == 0 }

func containsAddress(list []common.Address, a common.Address) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

func containsHash(list []common.Hash, h common.Hash) bool {
	for _, x := range list {
		if x == h {
			return true
		}
	}
	return false
}
