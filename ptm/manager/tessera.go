package manager

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
)

// What the Q2T API (Tessera's, for GoQuorum) needs of the manager. Payloads
// are the same as the Orion API's — encrypted, pushed over the node API and
// stored alike — but named by their Tessera key, SHA3-512 of the cipher
// text, which GoQuorum puts in a private transaction's data. Every stored
// payload has an index entry from its Tessera key (putPayload), so a
// payload sent through either API can be received through the other.

// TesseraSent is the answer to a Q2T send.
type TesseraSent struct {
	Key            string   // Base64 Tessera key
	SenderKey      string   // Base64 public key
	ManagedParties []string // the payload's parties hosted here, sender first
}

// TesseraReceived is a decrypted payload read by its Tessera key.
type TesseraReceived struct {
	Payload        []byte
	SenderKey      string
	ManagedParties []string
}

// SendTessera is Tessera's /send: encrypt plain from from (default: the
// first hosted key) to to; with no recipients the payload is for its sender
// alone, as in Tessera.
func (m *Manager) SendTessera(ctx context.Context, plain []byte, from *string, to []string) (*TesseraSent, error) {
	r := SendRequest{Payload: plain, From: from, To: to}
	if r.From == nil {
		k, err := m.defaultSender(ctx)
		if err != nil {
			return nil, err
		}
		s := k.String()
		r.From = &s
	}
	p, recipients, err := m.send(ctx, r, nil)
	if err != nil {
		return nil, err
	}
	return m.sent(p, recipients), nil
}

func (m *Manager) sent(p *payload.EncryptedPayload, recipients []keys.PublicKey) *TesseraSent {
	out := &TesseraSent{Key: payload.TesseraKeyString(p.CipherText), SenderKey: p.Sender.String(), ManagedParties: []string{p.Sender.String()}}
	seen := map[keys.PublicKey]bool{p.Sender: true}
	for _, k := range recipients {
		if m.Enclave.Hosts(k) && !seen[k] {
			seen[k] = true
			out.ManagedParties = append(out.ManagedParties, k.String())
		}
	}
	return out
}

// StoreRawTessera is Tessera's /storeraw: encrypt plain for its sender alone
// and keep it, apart from sendable payloads, until SendSignedTessera shares
// it. It returns the Base64 Tessera key, which the signed transaction will
// carry.
func (m *Manager) StoreRawTessera(ctx context.Context, plain []byte, from *string) (string, error) {
	if len(plain) == 0 {
		return "", ptm.Errorf(ptm.InvalidPayload, "payload is empty")
	}
	if m.MaxPayload > 0 && len(plain) > m.MaxPayload {
		return "", ptm.Errorf(ptm.PayloadTooLarge, "payload of %d bytes exceeds the limit of %d", len(plain), m.MaxPayload)
	}
	var sender keys.PublicKey
	if from != nil && *from != "" {
		k, err := keys.ParsePublicKey(*from)
		if err != nil {
			return "", ptm.Errorf(ptm.EnclaveDecodePublicKey, "from: %w", err)
		}
		sender = k
	} else {
		k, err := m.defaultSender(ctx)
		if err != nil {
			return "", err
		}
		sender = k
	}
	if err := m.allow(ctx, sender); err != nil {
		return "", err
	}
	p, err := m.Enclave.Encrypt(plain, sender, nil, nil)
	if err != nil {
		return "", err
	}
	data, err := p.MarshalCBOR()
	if err != nil {
		return "", ptm.Wrap(ptm.Unmapped, err)
	}
	tk := payload.TesseraKey(p.CipherText)
	if err := m.Store.Put(ctx, []byte(payload.TesseraRawKey(tk[:])), data); err != nil {
		return "", ptm.Wrap(ptm.Unmapped, fmt.Errorf("store raw payload: %w", err))
	}
	return base64.StdEncoding.EncodeToString(tk[:]), nil
}

// SendSignedTessera is Tessera's /sendsignedtx: share the payload stored by
// StoreRawTessera under key with to, keeping its cipher text (so its key)
// unchanged.
func (m *Manager) SendSignedTessera(ctx context.Context, key []byte, to []string) (*TesseraSent, error) {
	raw, err := m.rawPayload(ctx, key)
	if err != nil {
		return nil, err
	}
	plain, err := m.Enclave.Decrypt(raw, raw.Sender)
	if err != nil {
		return nil, err
	}
	from := raw.Sender.String()
	if len(to) == 0 {
		to = []string{from}
	}
	r := SendRequest{Payload: plain, From: &from, To: to}
	reseal := func(_ keys.PublicKey, recipients []keys.PublicKey, seed []byte) (*payload.EncryptedPayload, error) {
		return m.Enclave.Reseal(raw, recipients, seed)
	}
	p, recipients, err := m.send(ctx, r, reseal)
	if err != nil {
		return nil, err
	}
	return m.sent(p, recipients), nil
}

func (m *Manager) rawPayload(ctx context.Context, key []byte) (*payload.EncryptedPayload, error) {
	p, err := tesseraRecord(ctx, m, key, payload.TesseraRawKey, payload.DecodeEncryptedPayload, "raw payload", "raw payload")
	if err != nil {
		return nil, err
	}
	if err := m.allow(ctx, p.Sender); err != nil {
		return nil, err
	}
	return p, nil
}

// ReceiveRawTessera reads a payload stored by StoreRawTessera (GET
// /transaction/{key}?isRaw=true): decrypted with its sender's key.
func (m *Manager) ReceiveRawTessera(ctx context.Context, key []byte) (*TesseraReceived, error) {
	raw, err := m.rawPayload(ctx, key)
	if err != nil {
		return nil, err
	}
	plain, err := m.Enclave.Decrypt(raw, raw.Sender)
	if err != nil {
		return nil, ptm.Wrap(ptm.EnclaveKeysCannotDecryptPayload, err)
	}
	s := raw.Sender.String()
	return &TesseraReceived{Payload: plain, SenderKey: s, ManagedParties: []string{s}}, nil
}

// tesseraIndex reads the index entry of a Tessera key; an unknown key is
// EnclavePayloadNotFound.
func (m *Manager) tesseraIndex(ctx context.Context, key []byte) (*payload.TesseraIndex, error) {
	return tesseraRecord(ctx, m, key, payload.TesseraIndexKey, payload.DecodeTesseraIndex, "payload", "payload index")
}

// tesseraRecord reads the record a Tessera key names (storeKey gives where
// it is stored). A key of the wrong size or unknown is
// EnclavePayloadNotFound ("no <missing> <key>"); any other failure is
// Unmapped, a record that does not decode named "stored <stored>".
func tesseraRecord[T any](ctx context.Context, m *Manager, key []byte, storeKey func([]byte) string, decode func([]byte) (T, error), missing, stored string) (T, error) {
	var zero T
	if len(key) != payload.TesseraKeySize {
		return zero, ptm.Errorf(ptm.EnclavePayloadNotFound, "key is %d bytes, want %d", len(key), payload.TesseraKeySize)
	}
	v, err := load(ctx, m, storeKey(key), decode, "stored "+stored)
	if errors.Is(err, storage.ErrNotFound) {
		return zero, ptm.Errorf(ptm.EnclavePayloadNotFound, "no %s %s", missing, base64.StdEncoding.EncodeToString(key))
	}
	if err != nil {
		return zero, ptm.Wrap(ptm.Unmapped, err)
	}
	return v, nil
}

// ReceiveTessera decrypts the payload whose Tessera key is key, with to or
// (to nil or empty) any hosted key, as Receive does. Its managed parties
// are the hosted keys that open it.
func (m *Manager) ReceiveTessera(ctx context.Context, key []byte, to *string) (*TesseraReceived, error) {
	x, err := m.tesseraIndex(ctx, key)
	if err != nil {
		return nil, err
	}
	got, err := m.Receive(ctx, x.Digest, to)
	if err != nil {
		return nil, err
	}
	p, err := m.getPayload(ctx, x.Digest)
	if err != nil {
		return nil, ptm.Wrap(ptm.Unmapped, err)
	}
	out := &TesseraReceived{Payload: got.Payload, SenderKey: got.SenderKey}
	for _, k := range m.Enclave.Openers(p) {
		if AccessOf(ctx).Allows(k) {
			out.ManagedParties = append(out.ManagedParties, k.String())
		}
	}
	return out, nil
}

// TesseraIsSender reports whether the payload whose Tessera key is key was
// sent from a key hosted here.
func (m *Manager) TesseraIsSender(ctx context.Context, key []byte) (bool, error) {
	x, err := m.tesseraIndex(ctx, key)
	if err != nil {
		return false, err
	}
	p, err := m.getPayload(ctx, x.Digest)
	if errors.Is(err, storage.ErrNotFound) {
		return false, ptm.Errorf(ptm.EnclavePayloadNotFound, "no payload %s", x.Digest)
	}
	if err != nil {
		return false, ptm.Wrap(ptm.Unmapped, err)
	}
	return m.Enclave.Hosts(p.Sender), nil
}

// TesseraParticipants returns the parties of the payload whose Tessera key
// is key that this instance knows: every party on the sender's instance,
// the hosted recipients elsewhere (as Tessera's recipient copy keeps only
// its own recipients).
func (m *Manager) TesseraParticipants(ctx context.Context, key []byte) ([]string, error) {
	x, err := m.tesseraIndex(ctx, key)
	if err != nil {
		return nil, err
	}
	if _, err := m.Store.Get(ctx, []byte(x.Digest)); err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil, ptm.Errorf(ptm.EnclavePayloadNotFound, "no payload %s", x.Digest)
		}
		return nil, ptm.Wrap(ptm.Unmapped, err)
	}
	return x.Participants, nil
}
