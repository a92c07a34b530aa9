package tesserastore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/tesserapayload"
	"golang.org/x/crypto/nacl/secretbox"
)

// Refusal is a row the import did not take, and why.
type Refusal struct {
	Key    string // Base64 HASH
	Reason string
}

// Report counts what an import did.
type Report struct {
	Read     int // rows of ENCRYPTED_TRANSACTION
	Imported int // stored now
	Present  int // already stored by an earlier run
	Refused  []Refusal
	// Unsupported counts rows refused for their privacy mode (privacy
	// enhancements, mandatory recipients), which are among Refused too.
	Unsupported int
	// RawNotImported and GroupsNotImported count the rows of
	// ENCRYPTED_RAW_TRANSACTION and PRIVACY_GROUP, which are not imported.
	RawNotImported    int64
	GroupsNotImported int64
}

// Options tune an import.
type Options struct {
	// Rand is the randomness of the re-encryption (nil: crypto/rand).
	Rand io.Reader
	// Progress, when set, is called after each row.
	Progress func(r *Report)
}

// Import stores every payload of src that m's hosted keys open, as Tessera
// served it: under its Tessera key, decrypting to the same plaintext, with
// the same sender and participants. It is idempotent: a payload already
// stored (by an earlier run) is counted as present and left alone.
//
// Each payload is re-encrypted in Orion's form, the form basalt-privacy
// stores (see package manager), for the hosted parties that could open it in
// Tessera: the sender's copy (its sender hosted here) for every recipient,
// as the sender's stored copy is; a recipient's copy for the hosted keys
// that open it. Rows are refused, with the reason, when their HASH is not
// the key of their cipher text, they do not decode, no hosted key opens
// them, or they use a privacy mode basalt-privacy does not serve (privacy
// enhancements, mandatory recipients); the others are imported regardless.
// An error is returned only when the source or the store fails.
func Import(ctx context.Context, src Source, m *manager.Manager, opts Options) (*Report, error) {
	rnd := opts.Rand
	if rnd == nil {
		rnd = rand.Reader
	}
	rep := &Report{}
	refuse := func(key []byte, format string, args ...any) {
		rep.Refused = append(rep.Refused, Refusal{Key: base64.StdEncoding.EncodeToString(key), Reason: fmt.Sprintf(format, args...)})
	}
	err := src.Transactions(ctx, func(r Row) error {
		rep.Read++
		defer func() {
			if opts.Progress != nil {
				opts.Progress(rep)
			}
		}()
		if len(r.Hash) != payload.TesseraKeySize {
			refuse(r.Hash, "HASH is %d bytes, not a %d-byte Tessera key", len(r.Hash), payload.TesseraKeySize)
			return nil
		}
		codec, err := tesserapayload.ParseCodec(r.Codec)
		if err != nil {
			refuse(r.Hash, "%v", err)
			return nil
		}
		tp, err := tesserapayload.Decode(codec, r.Encoded)
		if err != nil {
			refuse(r.Hash, "ENCODED_PAYLOAD does not decode as %s: %v", codec, err)
			return nil
		}
		if k := payload.TesseraKey(tp.CipherText); !bytes.Equal(k[:], r.Hash) {
			refuse(r.Hash, "HASH is not SHA3-512 of the payload's cipher text (%s)", base64.StdEncoding.EncodeToString(k[:]))
			return nil
		}
		if tp.Mode != tesserapayload.StandardPrivate {
			rep.Unsupported++
			refuse(r.Hash, "privacy mode %s (privacy enhancements or mandatory recipients) is not supported by basalt-privacy", tp.Mode)
			return nil
		}
		have, err := m.HasTessera(ctx, r.Hash)
		if err != nil {
			return err
		}
		if have {
			rep.Present++
			return nil
		}
		if err := tp.CheckSizes(); err != nil {
			refuse(r.Hash, "not a NaCl payload: %v", err)
			return nil
		}
		opened, err := tp.Open(m.Enclave)
		if errors.Is(err, tesserapayload.ErrCannotOpen) {
			refuse(r.Hash, "none of the configured keys (%s) opens it: sender %s, recipients [%s]; configure this node's Tessera key pairs as publickeys/privatekeys",
				keyList(m.Enclave.NodeKeys()), base64.StdEncoding.EncodeToString(tp.Sender), b64List(tp.Recipients))
			return nil
		}
		if err != nil {
			refuse(r.Hash, "%v", err)
			return nil
		}
		p, participants, err := orionForm(rnd, m.Enclave, tp, opened)
		if err != nil {
			return err
		}
		if _, err := m.ImportTessera(ctx, r.Hash, p, participants); err != nil {
			return err
		}
		rep.Imported++
		return nil
	})
	if err != nil {
		return rep, err
	}
	rep.RawNotImported, rep.GroupsNotImported, err = src.NotImported(ctx)
	return rep, err
}

var zeroNonce [24]byte

// orionForm re-encrypts an opened Tessera payload in Orion's form (package
// enclave): a fresh payload key seals the plaintext under the zero nonce,
// and is boxed under a fresh nonce for each owner. The sender's copy is
// boxed by the sender for each recipient and itself; a recipient's copy by
// each hosted opener for itself (the box between a recipient and the sender
// is the same whichever of the two seals it). It returns the participants
// the Q2T API names: Tessera's recipient keys of the copy, or, for the
// oldest payloads that list none, the hosted openers.
func orionForm(rnd io.Reader, e *enclave.Enclave, tp *tesserapayload.Payload, o *tesserapayload.Opened) (*payload.EncryptedPayload, []keys.PublicKey, error) {
	sender := keys.PublicKey(tp.Sender)
	var participants []keys.PublicKey
	seen := map[keys.PublicKey]bool{}
	for _, r := range tp.Recipients {
		k := keys.PublicKey(r)
		if !seen[k] {
			seen[k] = true
			participants = append(participants, k)
		}
	}
	if len(participants) == 0 {
		participants = o.Openers
	}
	var owners []keys.PublicKey
	var sealer func(owner keys.PublicKey) (from, to keys.PublicKey)
	if o.SenderHosted {
		owners = append(owners, participants...)
		if !seen[sender] {
			owners = append(owners, sender)
		}
		sealer = func(owner keys.PublicKey) (keys.PublicKey, keys.PublicKey) { return sender, owner }
	} else {
		owners = o.Openers
		sealer = func(owner keys.PublicKey) (keys.PublicKey, keys.PublicKey) { return owner, sender }
	}
	var pk [32]byte
	if _, err := io.ReadFull(rnd, pk[:]); err != nil {
		return nil, nil, err
	}
	defer clear(pk[:])
	p := &payload.EncryptedPayload{Sender: sender, CipherText: secretbox.Seal(nil, o.Plaintext, &zeroNonce, &pk)}
	if _, err := io.ReadFull(rnd, p.Nonce[:]); err != nil {
		return nil, nil, err
	}
	for _, owner := range owners {
		from, to := sealer(owner)
		b, err := e.Seal(from, to, &p.Nonce, pk[:])
		if err != nil {
			return nil, nil, err
		}
		p.EncryptedKeys = append(p.EncryptedKeys, b)
	}
	p.SetOwners(owners)
	return p, participants, nil
}

func keyList(ks []keys.PublicKey) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = k.String()
	}
	return strings.Join(s, ", ")
}

func b64List(bs [][]byte) string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = base64.StdEncoding.EncodeToString(b)
	}
	return strings.Join(s, ", ")
}
