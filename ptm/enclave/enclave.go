// Package enclave encrypts and decrypts private payloads the way Orion's
// SodiumEnclave does, and computes privacy group ids.
//
// Encrypting a payload (Encrypt):
//
//  1. a random 32-byte payload key; cipherText = secretbox(plaintext, 24 zero
//     bytes, payload key) — the zero nonce is safe because the key is used once;
//  2. recipients ++ [sender]: the sender is always last;
//  3. one random 24-byte nonce shared by every recipient; for each,
//     box(payload key, nonce, recipient public key, sender private key);
//  4. privacyGroupId = GroupID(recipients ++ [sender], seed, PANTHEON), which
//     for a nil seed equals the legacy id.
//
// Decrypting tries each encrypted key with box_open(key, nonce, sender public
// key, own private key); the first that opens gives the payload key.
//
// The Curve25519 shared key of a (own key, peer key) pair is cached, so
// repeated traffic between the same parties costs symmetric crypto only.
package enclave

import (
	"crypto/rand"
	"fmt"
	"io"
	"sync"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"golang.org/x/crypto/nacl/box"
	"golang.org/x/crypto/nacl/secretbox"
)

// maxSharedKeys bounds the shared-key cache; when full it is emptied.
const maxSharedKeys = 4096

var zeroNonce [24]byte

// Enclave holds the key pairs an instance hosts.
type Enclave struct {
	nodeKeys     []keys.PublicKey
	private      map[keys.PublicKey]keys.PrivateKey
	alwaysSendTo []keys.PublicKey
	rand         io.Reader

	mu     sync.RWMutex
	shared map[[2 * keys.Size]byte]*[32]byte
}

// New returns an enclave hosting pairs (in configuration order: the first is
// the default sender) that adds alwaysSendTo to the recipients of every
// payload.
func New(pairs []keys.KeyPair, alwaysSendTo []keys.PublicKey) *Enclave {
	e := &Enclave{
		private:      make(map[keys.PublicKey]keys.PrivateKey, len(pairs)),
		alwaysSendTo: alwaysSendTo,
		rand:         rand.Reader,
		shared:       make(map[[2 * keys.Size]byte]*[32]byte),
	}
	for _, p := range pairs {
		e.nodeKeys = append(e.nodeKeys, p.Public)
		e.private[p.Public] = p.Private
	}
	return e
}

// NodeKeys returns the hosted public keys in configuration order.
func (e *Enclave) NodeKeys() []keys.PublicKey { return e.nodeKeys }

// AlwaysSendTo returns the keys added to every payload's recipients.
func (e *Enclave) AlwaysSendTo() []keys.PublicKey { return e.alwaysSendTo }

// Hosts reports whether k is one of the hosted keys.
func (e *Enclave) Hosts(k keys.PublicKey) bool {
	_, ok := e.private[k]
	return ok
}

// sharedKey returns the precomputed box key between own (hosted) and peer.
func (e *Enclave) sharedKey(own keys.PublicKey, sk *keys.PrivateKey, peer keys.PublicKey) *[32]byte {
	var id [2 * keys.Size]byte
	copy(id[:keys.Size], own[:])
	copy(id[keys.Size:], peer[:])
	e.mu.RLock()
	k := e.shared[id]
	e.mu.RUnlock()
	if k != nil {
		return k
	}
	k = new([32]byte)
	box.Precompute(k, (*[32]byte)(&peer), (*[32]byte)(sk))
	e.mu.Lock()
	if len(e.shared) >= maxSharedKeys {
		clear(e.shared)
	}
	e.shared[id] = k
	e.mu.Unlock()
	return k
}

// Encrypt encrypts plaintext from sender (a hosted key) to recipients, and
// returns the payload with its owners set (recipients ++ [sender]). seed is
// the privacy group seed of a PANTHEON group, nil for a legacy send.
func (e *Enclave) Encrypt(plaintext []byte, sender keys.PublicKey, recipients []keys.PublicKey, seed []byte) (*payload.EncryptedPayload, error) {
	sk, ok := e.private[sender]
	if !ok {
		return nil, ptm.Errorf(ptm.EnclaveNoMatchingPrivateKey, "sender %s is not hosted here", sender)
	}
	var payloadKey [32]byte
	if _, err := io.ReadFull(e.rand, payloadKey[:]); err != nil {
		return nil, ptm.Wrap(ptm.EnclaveEncryptCombineKeys, err)
	}
	defer clear(payloadKey[:])
	p := &payload.EncryptedPayload{
		Sender:     sender,
		CipherText: secretbox.Seal(nil, plaintext, &zeroNonce, &payloadKey),
	}
	if _, err := io.ReadFull(e.rand, p.Nonce[:]); err != nil {
		return nil, ptm.Wrap(ptm.EnclaveEncryptCombineKeys, err)
	}
	all := make([]keys.PublicKey, 0, len(recipients)+1)
	all = append(all, recipients...)
	all = append(all, sender)
	p.EncryptedKeys = make([][]byte, len(all))
	for i, r := range all {
		p.EncryptedKeys[i] = box.SealAfterPrecomputation(nil, payloadKey[:], &p.Nonce, e.sharedKey(sender, &sk, r))
	}
	id := GroupID(all, seed, payload.Pantheon)
	p.PrivacyGroupID = id[:]
	p.SetOwners(all)
	return p, nil
}

// Decrypt opens p with the private key of identity (a hosted key). A key
// that is not hosted gives EnclaveNoMatchingPrivateKey; a payload not
// encrypted for identity gives EnclaveDecryptWrongPrivateKey.
func (e *Enclave) Decrypt(p *payload.EncryptedPayload, identity keys.PublicKey) ([]byte, error) {
	sk, ok := e.private[identity]
	if !ok {
		return nil, ptm.Errorf(ptm.EnclaveNoMatchingPrivateKey, "%s is not hosted here", identity)
	}
	payloadKey, ok := e.openKey(p, identity, &sk)
	if !ok {
		return nil, ptm.Errorf(ptm.EnclaveDecryptWrongPrivateKey, "no encrypted key of the payload opens with %s", identity)
	}
	defer clear(payloadKey[:])
	plain, ok := secretbox.Open(nil, p.CipherText, &zeroNonce, &payloadKey)
	if !ok {
		return nil, ptm.Errorf(ptm.EnclaveDecryptWrongPrivateKey, "cipher text does not open with the payload key")
	}
	if plain == nil {
		plain = []byte{}
	}
	return plain, nil
}

// CanDecrypt reports whether some hosted key opens one of p's encrypted keys:
// whether p is for this instance. It does not decrypt the cipher text.
func (e *Enclave) CanDecrypt(p *payload.EncryptedPayload) bool {
	for _, k := range e.nodeKeys {
		sk := e.private[k]
		if key, ok := e.openKey(p, k, &sk); ok {
			clear(key[:])
			return true
		}
	}
	return false
}

// Openers returns the hosted keys that open one of p's encrypted keys, in
// configuration order: the parties to p this instance hosts.
func (e *Enclave) Openers(p *payload.EncryptedPayload) []keys.PublicKey {
	var out []keys.PublicKey
	for _, k := range e.nodeKeys {
		sk := e.private[k]
		if key, ok := e.openKey(p, k, &sk); ok {
			clear(key[:])
			out = append(out, k)
		}
	}
	return out
}

// Reseal returns a payload with p's cipher text and nonce whose payload key
// is boxed for recipients ++ [p.Sender], owners set: p, encrypted by a
// hosted sender for itself alone (Tessera's /storeraw), shared with its
// recipients (/sendsignedtx). The cipher text, and so the payload's keys,
// stay the same: the signed transaction already carries its Tessera key.
// seed is as for Encrypt.
func (e *Enclave) Reseal(p *payload.EncryptedPayload, recipients []keys.PublicKey, seed []byte) (*payload.EncryptedPayload, error) {
	sender := p.Sender
	sk, ok := e.private[sender]
	if !ok {
		return nil, ptm.Errorf(ptm.EnclaveNoMatchingPrivateKey, "sender %s is not hosted here", sender)
	}
	payloadKey, ok := e.openKey(p, sender, &sk)
	if !ok {
		return nil, ptm.Errorf(ptm.EnclaveDecryptWrongPrivateKey, "no encrypted key of the payload opens with its sender %s", sender)
	}
	defer clear(payloadKey[:])
	out := &payload.EncryptedPayload{Sender: sender, Nonce: p.Nonce, CipherText: p.CipherText}
	all := make([]keys.PublicKey, 0, len(recipients)+1)
	all = append(all, recipients...)
	all = append(all, sender)
	out.EncryptedKeys = make([][]byte, len(all))
	for i, r := range all {
		out.EncryptedKeys[i] = box.SealAfterPrecomputation(nil, payloadKey[:], &out.Nonce, e.sharedKey(sender, &sk, r))
	}
	id := GroupID(all, seed, payload.Pantheon)
	out.PrivacyGroupID = id[:]
	out.SetOwners(all)
	return out, nil
}

func (e *Enclave) openKey(p *payload.EncryptedPayload, own keys.PublicKey, sk *keys.PrivateKey) ([32]byte, bool) {
	var out [32]byte
	shared := e.sharedKey(own, sk, p.Sender)
	for _, ek := range p.EncryptedKeys {
		k, ok := box.OpenAfterPrecomputation(nil, ek, &p.Nonce, shared)
		if ok && len(k) == 32 {
			copy(out[:], k)
			clear(k)
			return out, true
		}
	}
	return out, false
}

// String describes the enclave for logs.
func (e *Enclave) String() string {
	return fmt.Sprintf("enclave(%d keys)", len(e.nodeKeys))
}

// OpenEphemeral opens a box sent from a one-time key (a discovery
// challenge) to the hosted key own. Unlike payloads, the shared key is not
// cached: each sender key is used once, and caching it would only evict the
// keys of real parties.
func (e *Enclave) OpenEphemeral(own, from keys.PublicKey, nonce *[24]byte, sealed []byte) ([]byte, bool) {
	sk, ok := e.private[own]
	if !ok {
		return nil, false
	}
	return box.Open(nil, sealed, nonce, (*[32]byte)(&from), (*[32]byte)(&sk))
}

// Seal boxes msg from the hosted key from to the key to, with the cached
// shared key of the pair (privacy group pushes are authenticated this way).
func (e *Enclave) Seal(from, to keys.PublicKey, nonce *[24]byte, msg []byte) ([]byte, error) {
	sk, ok := e.private[from]
	if !ok {
		return nil, ptm.Errorf(ptm.EnclaveNoMatchingPrivateKey, "%s is not hosted here", from)
	}
	return box.SealAfterPrecomputation(nil, msg, nonce, e.sharedKey(from, &sk, to)), nil
}

// Open opens a box sent from the key from to the hosted key own (see Seal).
func (e *Enclave) Open(own, from keys.PublicKey, nonce *[24]byte, sealed []byte) ([]byte, bool) {
	sk, ok := e.private[own]
	if !ok {
		return nil, false
	}
	return box.OpenAfterPrecomputation(nil, sealed, nonce, e.sharedKey(own, &sk, from))
}
