package manager

import (
	"context"
	"encoding/base64"
	"errors"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/storage"
)

// Received is a decrypted payload.
type Received struct {
	Payload        []byte
	PrivacyGroupID string // Base64
	SenderKey      string // Base64
}

// Receive decrypts the payload stored under key with to (a Base64 key) or,
// when to is nil or empty, with each hosted key in turn. An unknown payload
// key is EnclavePayloadNotFound; a payload no candidate key opens is
// EnclaveKeysCannotDecryptPayload. A caller limited to some keys (Access)
// tries only those, and asking for another is Forbidden.
func (m *Manager) Receive(ctx context.Context, key string, to *string) (*Received, error) {
	p, err := m.getPayload(ctx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ptm.Errorf(ptm.EnclavePayloadNotFound, "no payload %q", key)
	}
	if err != nil {
		return nil, ptm.Wrap(ptm.Unmapped, err)
	}
	candidates := m.Enclave.NodeKeys()
	if a := AccessOf(ctx).Keys(); a != nil {
		candidates = a
	}
	if to != nil && *to != "" {
		k, err := keys.ParsePublicKey(*to)
		if err != nil {
			return nil, ptm.Errorf(ptm.EnclaveDecodePublicKey, "to: %w", err)
		}
		if err := m.allow(ctx, k); err != nil {
			return nil, err
		}
		candidates = []keys.PublicKey{k}
	}
	for _, k := range candidates {
		plain, err := m.Enclave.Decrypt(p, k)
		if err == nil {
			return &Received{
				Payload:        plain,
				PrivacyGroupID: base64.StdEncoding.EncodeToString(p.PrivacyGroupID),
				SenderKey:      p.Sender.String(),
			}, nil
		}
	}
	return nil, ptm.Errorf(ptm.EnclaveKeysCannotDecryptPayload, "no candidate key opens payload %q", key)
}
