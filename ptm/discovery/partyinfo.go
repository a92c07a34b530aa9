package discovery

import (
	"fmt"

	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
)

// PartyInfo is Orion's party-info table (NetworkNodes) as sent on /partyinfo.
// Only URL and NodePKs are read.
type PartyInfo struct {
	URL      string            `cbor:"url,omitempty"`
	NodeURLs []string          `cbor:"nodeURLs"`
	NodePKs  map[string]string `cbor:"nodePKs"`
}

// Encode returns the CBOR of p.
func (p *PartyInfo) Encode() ([]byte, error) { return payload.Marshal(p) }

// DecodePartyInfo decodes and validates a CBOR party-info table and returns
// its key → URL entries, URLs in Canonical form. Every key must be a Base64
// 32-byte key and every URL an absolute http or https URL.
func DecodePartyInfo(data []byte) (*PartyInfo, map[keys.PublicKey]string, error) {
	var p PartyInfo
	if err := payload.Unmarshal(data, &p); err != nil {
		return nil, nil, err
	}
	entries := make(map[keys.PublicKey]string, len(p.NodePKs))
	for ks, u := range p.NodePKs {
		k, err := keys.ParsePublicKey(ks)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: nodePKs key %q: %v", payload.ErrMalformed, ks, err)
		}
		c, err := Canonical(u)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: nodePKs[%s]: %v", payload.ErrMalformed, ks, err)
		}
		entries[k] = c
	}
	return &p, entries, nil
}
