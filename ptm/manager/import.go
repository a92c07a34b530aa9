package manager

import (
	"context"
	"errors"
	"fmt"

	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
)

// Payloads migrated from Tessera (package tesserastore) are stored like any
// other, in Orion's form under their digest, but indexed under the key they
// had in Tessera, which GoQuorum's private transactions carry. Tessera's
// encryption differs from Orion's (a random cipher-text nonce), so the
// importer re-encrypts each payload; its stored cipher text is therefore not
// the one its Tessera key hashes, and the Tessera key is given here rather
// than computed.

// HasTessera reports whether the payload named by the Tessera key tk is
// stored: its index entry and the payload the entry names. An index entry
// whose payload is missing (a crash between the two writes) reads as absent,
// so an import run again completes it.
func (m *Manager) HasTessera(ctx context.Context, tk []byte) (bool, error) {
	data, err := m.Store.Get(ctx, []byte(payload.TesseraIndexKey(tk)))
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	x, err := payload.DecodeTesseraIndex(data)
	if err != nil {
		return false, fmt.Errorf("stored payload index: %w", err)
	}
	if _, err := m.Store.Get(ctx, []byte(x.Digest)); err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// ImportTessera stores p, a payload migrated from Tessera, so that the Q2T
// API serves it under the Tessera key tk (64 bytes) with the participants
// Tessera knew, and the Orion API under p's digest. It returns the digest.
func (m *Manager) ImportTessera(ctx context.Context, tk []byte, p *payload.EncryptedPayload, participants []keys.PublicKey) (string, error) {
	if len(tk) != payload.TesseraKeySize {
		return "", fmt.Errorf("Tessera key is %d bytes, want %d", len(tk), payload.TesseraKeySize)
	}
	return m.putPayloadAs(ctx, tk, p, participants)
}
