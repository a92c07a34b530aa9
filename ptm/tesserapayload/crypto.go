package tesserapayload

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"

	"github.com/basaltchain/basalt/ptm/keys"
	"golang.org/x/crypto/nacl/box"
	"golang.org/x/crypto/nacl/secretbox"
)

// Seal encrypts plaintext from sender to recipients as Tessera's enclave
// does (rnd nil: crypto/rand): a random master key and two random nonces,
// cipherText = secretbox(plaintext, cipherTextNonce, masterKey), and a box
// of the master key per recipient under the one recipient nonce, in the
// order given. Tessera puts the sender among the recipients; so should the
// caller for a sender's copy that the sender can open.
func Seal(rnd io.Reader, plaintext []byte, sender keys.KeyPair, recipients []keys.PublicKey) (*Payload, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	var master [32]byte
	var ctNonce, rNonce [NonceSize]byte
	for _, b := range [][]byte{master[:], ctNonce[:], rNonce[:]} {
		if _, err := io.ReadFull(rnd, b); err != nil {
			return nil, err
		}
	}
	defer clear(master[:])
	p := &Payload{
		Sender:          bytes.Clone(sender.Public[:]),
		CipherText:      secretbox.Seal(nil, plaintext, &ctNonce, &master),
		CipherTextNonce: ctNonce[:],
		RecipientNonce:  rNonce[:],
	}
	for _, r := range recipients {
		p.RecipientBoxes = append(p.RecipientBoxes, box.Seal(nil, master[:], &rNonce, (*[32]byte)(&r), (*[32]byte)(&sender.Private)))
		p.Recipients = append(p.Recipients, bytes.Clone(r[:]))
	}
	return p, nil
}

// ForRecipient returns the copy of a sender's payload that Tessera stores
// on recipient's node: only recipient's box, and the recipient alone as
// its recipient key (for privacy flag 3, every recipient, recipient first).
func (p *Payload) ForRecipient(recipient keys.PublicKey) (*Payload, error) {
	at := -1
	for i, k := range p.Recipients {
		if bytes.Equal(k, recipient[:]) {
			at = i
			break
		}
	}
	if at < 0 || at >= len(p.RecipientBoxes) {
		return nil, fmt.Errorf("%s is not a recipient of the payload", recipient)
	}
	out := *p
	out.RecipientBoxes = [][]byte{p.RecipientBoxes[at]}
	out.Recipients = [][]byte{p.Recipients[at]}
	if p.Mode == PrivateStateValidation {
		out.Recipients = append(out.Recipients, p.Recipients[:at]...)
		out.Recipients = append(out.Recipients, p.Recipients[at+1:]...)
	}
	return &out, nil
}

// Boxes opens NaCl boxes with the private keys of the keys it hosts; package
// enclave's Enclave is one.
type Boxes interface {
	// NodeKeys returns the hosted public keys.
	NodeKeys() []keys.PublicKey
	// Open opens a box sealed between the hosted key own and peer.
	Open(own, peer keys.PublicKey, nonce *[24]byte, sealed []byte) ([]byte, bool)
}

// ErrCannotOpen is returned by Open when no hosted key opens the payload.
var ErrCannotOpen = errors.New("none of the hosted keys opens the payload")

// Opened is a decrypted payload.
type Opened struct {
	Plaintext []byte
	// Openers are the hosted keys that open a box of the payload, in the
	// order NodeKeys gives them: the payload's parties hosted here.
	Openers []keys.PublicKey
	// SenderHosted says the sender's key is hosted: this is the sender's
	// copy, as Tessera's isSender tells.
	SenderHosted bool
}

// Open decrypts p with the hosted keys. A hosted key opens a box sealed
// between it and the sender (a recipient's box, or the sender's own), or —
// when it is the sender — the box of recipient i sealed with recipient i's
// key, which is how Tessera's sender reads its own copy. Every box is
// tried, so a copy holding boxes for several hosted keys names them all.
func (p *Payload) Open(b Boxes) (*Opened, error) {
	if err := p.CheckSizes(); err != nil {
		return nil, err
	}
	sender := keys.PublicKey(p.Sender)
	nonce := (*[24]byte)(p.RecipientNonce)
	out := &Opened{}
	var master []byte
	for _, own := range b.NodeKeys() {
		if own == sender {
			out.SenderHosted = true
		}
		opened := false
		for i, bx := range p.RecipientBoxes {
			peers := []keys.PublicKey{sender}
			if own == sender && i < len(p.Recipients) {
				peers = append(peers, keys.PublicKey(p.Recipients[i]))
			}
			for _, peer := range peers {
				if k, ok := b.Open(own, peer, nonce, bx); ok && len(k) == 32 {
					opened = true
					if master == nil {
						master = k
					} else {
						clear(k)
					}
					break
				}
			}
		}
		if opened {
			out.Openers = append(out.Openers, own)
		}
	}
	if master == nil {
		return nil, ErrCannotOpen
	}
	defer clear(master)
	plain, ok := secretbox.Open(nil, p.CipherText, (*[24]byte)(p.CipherTextNonce), (*[32]byte)(master))
	if !ok {
		return nil, errors.New("a recipient box opens but the cipher text does not open with its master key")
	}
	if plain == nil {
		plain = []byte{}
	}
	out.Plaintext = plain
	return out, nil
}
