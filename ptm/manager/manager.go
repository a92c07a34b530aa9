// Package manager is the privacy manager's service layer: sending,
// receiving and privacy groups, over the enclave, the store, the node table
// and the peers. Both HTTP APIs call it; neither touches storage itself.
//
// Storage layout (Orion's, so an Orion PostgreSQL store can be read): one
// key space, keys are the UTF-8 bytes of Base64 ids, values are CBOR.
//
//	payload digest (Base64 SHA-512/256 of the cipher text) -> EncryptedPayload
//	privacy group id                                       -> PrivacyGroup
//	enclave.IndexKey(member set)                           -> GroupIndex
//	payload.TesseraIndexKey(Tessera key)                   -> TesseraIndex (digest, participants)
//	payload.TesseraRawKey(Tessera key)                     -> EncryptedPayload for its sender alone (Q2T /storeraw)
//
// The kinds of key are 32-byte hashes of different inputs, so they do not
// collide. A payload's Tessera key is SHA3-512 of its cipher text, the key
// GoQuorum puts in a private transaction (see tessera.go); a payload
// imported from Tessera keeps the key Tessera gave it, which is not that of
// its re-encrypted cipher text (see import.go).
//
// Write order and crashes: a payload is pushed to every remote recipient's
// instance (each stores it durably before answering) and then stored
// locally, and only then is its key returned; so once /send has answered,
// every party can receive it, whatever crashes next. A failed push fails the
// send before anything is stored locally; a retry encrypts under a fresh key
// and so gets a new payload key, and copies already pushed are unreferenced
// rather than wrong. Group writes store the membership index entry before
// the group, and readers skip index entries whose group is missing, so a
// crash between the two leaves nothing visible half-done.
package manager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/discovery"
	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
)

// Peers delivers payloads and privacy groups to other instances (package
// nodeapi's Client). Each call returns the text body of a 200 answer; any
// other answer or a transport failure is an error.
type Peers interface {
	Push(ctx context.Context, nodeURL string, p *payload.EncryptedPayload) (string, error)
	// PushGroup posts body, a CBOR PrivacyGroup, with auth as its
	// GroupAuthHeader.
	PushGroup(ctx context.Context, nodeURL string, body []byte, auth string) (string, error)
}

// PeerStatusError is the error Peers return for a non-200 answer.
type PeerStatusError struct {
	URL    string
	Status int
	Body   string
}

// HTTPStatus returns the status the peer answered (for packages that cannot
// name this type, such as discovery).
func (e *PeerStatusError) HTTPStatus() int { return e.Status }

// Error implements error.
func (e *PeerStatusError) Error() string {
	return fmt.Sprintf("%s answered %d: %q", e.URL, e.Status, e.Body)
}

// Manager sends and receives payloads and manages privacy groups.
type Manager struct {
	Enclave *enclave.Enclave
	Store   storage.KV
	Table   *discovery.Table
	Peers   Peers
	Log     *slog.Logger
	// MaxPayload is the largest plaintext /send accepts, in bytes (0: no
	// limit). Larger payloads fail with ptm.PayloadTooLarge.
	MaxPayload int
}

func (m *Manager) log() *slog.Logger {
	if m.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return m.Log
}

// getPayload reads a stored payload.
func (m *Manager) getPayload(ctx context.Context, digest string) (*payload.EncryptedPayload, error) {
	return load(ctx, m, digest, payload.DecodeEncryptedPayload, "stored payload "+digest)
}

// load reads the record stored under key and decodes it; a missing record
// is the store's storage.ErrNotFound, and what names the record in a
// decoding error.
func load[T any](ctx context.Context, m *Manager, key string, decode func([]byte) (T, error), what string) (T, error) {
	var zero T
	data, err := m.Store.Get(ctx, []byte(key))
	if err != nil {
		return zero, err
	}
	v, err := decode(data)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// putPayload stores p under its digest, after the index entry of its
// Tessera key (which names the digest and the participants known here), so
// that every payload can be received through the Q2T API too, whichever API
// sent it. A crash between the two writes leaves an index entry whose
// payload is missing, which reads as an unknown key: nothing was
// acknowledged yet.
func (m *Manager) putPayload(ctx context.Context, p *payload.EncryptedPayload, participants []keys.PublicKey) (string, error) {
	tk := payload.TesseraKey(p.CipherText)
	return m.putPayloadAs(ctx, tk[:], p, participants)
}

// putPayloadAs is putPayload with the Tessera key given: an imported
// payload keeps the key it had in Tessera (see ImportTessera).
func (m *Manager) putPayloadAs(ctx context.Context, tk []byte, p *payload.EncryptedPayload, participants []keys.PublicKey) (string, error) {
	data, err := p.MarshalCBOR()
	if err != nil {
		return "", err
	}
	digest := p.Digest()
	x := &payload.TesseraIndex{Digest: digest, Participants: make([]string, 0, len(participants))}
	seen := map[keys.PublicKey]bool{}
	for _, k := range participants {
		if !seen[k] {
			seen[k] = true
			x.Participants = append(x.Participants, k.String())
		}
	}
	index, err := x.MarshalCBOR()
	if err != nil {
		return "", err
	}
	if err := m.Store.Put(ctx, []byte(payload.TesseraIndexKey(tk)), index); err != nil {
		return "", fmt.Errorf("store payload index %s: %w", digest, err)
	}
	if err := m.Store.Put(ctx, []byte(digest), data); err != nil {
		return "", fmt.Errorf("store payload %s: %w", digest, err)
	}
	return digest, nil
}

// getGroup reads a stored privacy group; storage.ErrNotFound if absent.
func (m *Manager) getGroup(ctx context.Context, id string) (*payload.PrivacyGroup, error) {
	return load(ctx, m, id, payload.DecodePrivacyGroup, "stored privacy group "+id)
}

// storeGroup writes the index entry for g's members (adding id, or removing
// it for a deleted group), then g itself.
func (m *Manager) storeGroup(ctx context.Context, id string, g *payload.PrivacyGroup) error {
	if err := m.updateIndex(ctx, g, id); err != nil {
		return ptm.Wrap(ptm.PrivacyGroupNotStored, err)
	}
	data, err := g.MarshalCBOR()
	if err != nil {
		return ptm.Wrap(ptm.PrivacyGroupNotStored, err)
	}
	if err := m.Store.Put(ctx, []byte(id), data); err != nil {
		return ptm.Wrap(ptm.PrivacyGroupNotStored, fmt.Errorf("store privacy group %s: %w", id, err))
	}
	return nil
}

func (m *Manager) updateIndex(ctx context.Context, g *payload.PrivacyGroup, id string) error {
	members, err := g.Members()
	if err != nil {
		return err
	}
	remove := g.State == payload.Deleted
	key := enclave.IndexKey(members)
	return m.Store.Update(ctx, []byte(key), func(old []byte, found bool) ([]byte, bool, error) {
		x := &payload.GroupIndex{Addresses: g.Addresses}
		if found {
			var err error
			if x, err = payload.DecodeGroupIndex(old); err != nil {
				return nil, false, fmt.Errorf("stored group index %s: %w", key, err)
			}
		}
		at := -1
		for i, have := range x.PrivacyGroupIDs {
			if have == id {
				at = i
				break
			}
		}
		switch {
		case remove && at < 0, !remove && at >= 0:
			return nil, false, nil
		case remove:
			x.PrivacyGroupIDs = append(x.PrivacyGroupIDs[:at], x.PrivacyGroupIDs[at+1:]...)
		default:
			x.PrivacyGroupIDs = append(x.PrivacyGroupIDs, id)
		}
		if x.PrivacyGroupIDs == nil {
			x.PrivacyGroupIDs = []string{}
		}
		data, err := x.MarshalCBOR()
		return data, err == nil, err
	})
}

// isSelf reports whether a node URL is this instance's own.
func (m *Manager) isSelf(nodeURL string) bool {
	return sameURL(nodeURL, m.Table.Self())
}

// sameURL compares node URLs as Orion's pushes use them: scheme, host and
// port (a trailing slash or path does not matter).
func sameURL(a, b string) bool {
	if a == b {
		return true
	}
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}

// pushFailure maps a failed push to Orion's code: a peer that answered
// wrongly is NodePropagatingToAllPeers, one that could not be reached
// NodePushingToPeer.
func pushFailure(err error) *ptm.Error {
	var se *PeerStatusError
	if errors.As(err, &se) {
		return ptm.Wrap(ptm.NodePropagatingToAllPeers, err)
	}
	return ptm.Wrap(ptm.NodePushingToPeer, err)
}
