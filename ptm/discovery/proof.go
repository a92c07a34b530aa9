package discovery

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"

	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"golang.org/x/crypto/nacl/box"
)

// Proof of key ownership (POST /partyinfo/validate).
//
// Before the table lists URL U for key K, this instance sends U one
// challenge per claimed key: a NaCl box from a fresh ephemeral key to K whose
// plaintext is
//
//	proofContext ‖ secret (32 random bytes) ‖ U
//
// and U must answer each secret. Only a holder of K's private key can open
// the box. The responder answers only when the URL inside is its own node
// URL (same host and port): so an instance that does not hold K cannot relay
// the challenge to the real owner and pass its answer off as its own — the
// owner sees a URL that is not its own and refuses. The fixed context prefix
// keeps the endpoint from opening anything but a challenge: a payload's
// encrypted key (32 bytes, no prefix) is never answered, so the endpoint is
// no decryption oracle.
const proofContext = "basalt-privacy key proof v1\x00"

// Sizes of a challenge's parts.
const (
	secretSize = 32
	nonceSize  = 24
	// maxURLSize bounds the URL inside a challenge the responder opens.
	maxURLSize = 2048
)

// Challenge asks the peer to prove it holds Key's private key.
type Challenge struct {
	Key    string `cbor:"key"`    // Base64 public key the peer claims to host
	Sender []byte `cbor:"sender"` // the challenger's ephemeral public key (32 bytes)
	Nonce  []byte `cbor:"nonce"`  // 24 bytes
	Box    []byte `cbor:"box"`    // box(proofContext ‖ secret ‖ URL, Nonce, Key, ephemeral private key)
}

// ValidateRequest is the CBOR body of POST /partyinfo/validate.
type ValidateRequest struct {
	// URL is the node URL being proven. It is informational: what binds
	// the proof to the URL is the copy inside each box.
	URL        string      `cbor:"url"`
	Challenges []Challenge `cbor:"challenges"`
}

// ValidateReply is the CBOR answer of POST /partyinfo/validate: for each
// challenge, in order, its secret, or an empty byte string when refused.
type ValidateReply struct {
	Answers [][]byte `cbor:"answers"`
}

// Proof is a challenge sent and the answers expected.
type Proof struct {
	URL     string
	Keys    []keys.PublicKey
	secrets [][secretSize]byte
}

// NewProof builds the challenges proving that nodeURL hosts ks and returns
// them with the CBOR request body. One ephemeral key pair serves all the
// challenges of the request; it is not kept.
func NewProof(rand io.Reader, nodeURL string, ks []keys.PublicKey) (*Proof, []byte, error) {
	epub, epriv, err := box.GenerateKey(rand)
	if err != nil {
		return nil, nil, err
	}
	defer clear(epriv[:])
	p := &Proof{URL: nodeURL, Keys: ks, secrets: make([][secretSize]byte, len(ks))}
	req := ValidateRequest{URL: nodeURL, Challenges: make([]Challenge, len(ks))}
	for i, k := range ks {
		if _, err := io.ReadFull(rand, p.secrets[i][:]); err != nil {
			return nil, nil, err
		}
		var nonce [nonceSize]byte
		if _, err := io.ReadFull(rand, nonce[:]); err != nil {
			return nil, nil, err
		}
		plain := make([]byte, 0, len(proofContext)+secretSize+len(nodeURL))
		plain = append(append(append(plain, proofContext...), p.secrets[i][:]...), nodeURL...)
		req.Challenges[i] = Challenge{
			Key:    k.String(),
			Sender: epub[:],
			Nonce:  nonce[:],
			Box:    box.Seal(nil, plain, &nonce, (*[32]byte)(&k), epriv),
		}
	}
	body, err := payload.Marshal(&req)
	if err != nil {
		return nil, nil, err
	}
	return p, body, nil
}

// Check reads the peer's CBOR answer and splits the keys into those it
// proved and those it did not.
func (p *Proof) Check(reply []byte) (proven, failed []keys.PublicKey, err error) {
	var r ValidateReply
	if err := payload.Unmarshal(reply, &r); err != nil {
		return nil, nil, err
	}
	if len(r.Answers) != len(p.Keys) {
		return nil, nil, fmt.Errorf("%w: %d answers to %d challenges", payload.ErrMalformed, len(r.Answers), len(p.Keys))
	}
	for i, k := range p.Keys {
		if subtle.ConstantTimeCompare(r.Answers[i], p.secrets[i][:]) == 1 {
			proven = append(proven, k)
		} else {
			failed = append(failed, k)
		}
	}
	return proven, failed, nil
}

// Opener opens boxes sent to hosted keys (enclave.Enclave).
type Opener interface {
	// Hosts reports whether k is hosted here.
	Hosts(k keys.PublicKey) bool
	// OpenEphemeral opens a box from a one-time key to the hosted key own,
	// without caching the shared key.
	OpenEphemeral(own, from keys.PublicKey, nonce *[24]byte, sealed []byte) ([]byte, bool)
}

// DecodeValidateRequest decodes and checks the shape of a CBOR
// ValidateRequest: every challenge's key a Base64 32-byte key, its sender 32
// bytes, its nonce 24, its box no larger than a challenge can be.
func DecodeValidateRequest(data []byte) (*ValidateRequest, error) {
	var r ValidateRequest
	if err := payload.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	for i, c := range r.Challenges {
		if _, err := keys.ParsePublicKey(c.Key); err != nil {
			return nil, fmt.Errorf("%w: challenge %d: key: %v", payload.ErrMalformed, i, err)
		}
		if len(c.Sender) != keys.Size || len(c.Nonce) != nonceSize {
			return nil, fmt.Errorf("%w: challenge %d: sender or nonce of the wrong size", payload.ErrMalformed, i)
		}
		if len(c.Box) > box.Overhead+len(proofContext)+secretSize+maxURLSize {
			return nil, fmt.Errorf("%w: challenge %d: box of %d bytes", payload.ErrMalformed, i, len(c.Box))
		}
	}
	return &r, nil
}

// ErrNoChallenge is returned by Answer for a request without challenges.
var ErrNoChallenge = errors.New("no challenge")

// Answer answers the challenges of a CBOR ValidateRequest for this instance,
// whose node URL is self, and returns the CBOR ValidateReply. A challenge is
// answered when its key is hosted, its box opens, and the URL inside has
// self's endpoint; every other one gets an empty answer. At most one
// challenge per hosted key is opened, so a request costs at most one
// Curve25519 operation per hosted key, however many challenges it holds.
func Answer(o Opener, self string, data []byte) ([]byte, error) {
	req, err := DecodeValidateRequest(data)
	if err != nil {
		return nil, err
	}
	if len(req.Challenges) == 0 {
		return nil, ErrNoChallenge
	}
	own := Endpoint(self)
	reply := ValidateReply{Answers: make([][]byte, len(req.Challenges))}
	opened := map[keys.PublicKey]bool{}
	for i, c := range req.Challenges {
		reply.Answers[i] = []byte{}
		k, _ := keys.ParsePublicKey(c.Key) // checked by the decoder
		if !o.Hosts(k) || opened[k] {
			continue
		}
		opened[k] = true
		plain, ok := o.OpenEphemeral(k, keys.PublicKey(c.Sender), (*[24]byte)(c.Nonce), c.Box)
		if !ok || len(plain) < len(proofContext)+secretSize || !bytes.HasPrefix(plain, []byte(proofContext)) {
			continue
		}
		secret := plain[len(proofContext) : len(proofContext)+secretSize]
		claimed := string(plain[len(proofContext)+secretSize:])
		if own == "" || Endpoint(claimed) != own {
			continue // a challenge for another URL: refuse to be relayed
		}
		reply.Answers[i] = secret
	}
	return payload.Marshal(&reply)
}
