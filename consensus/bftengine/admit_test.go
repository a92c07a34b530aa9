package bftengine_test

import (
	"crypto/ecdsa"
	"errors"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/consensus/bft"
	"github.com/basaltchain/basalt/consensus/bftengine"
	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/consensus/qbft"

	"github.com/basaltchain/basalt/p2p/subprotocol"
)

// The path every consensus message from a peer takes before the core sees
// it (bftengine.Admit), for both protocols: the author is recovered from
// the signature and checked against the validators of the current height.

var formats = []bftengine.Format{qbft.Format{}, ibft2.Format{}}

func key(i byte) *ecdsa.PrivateKey {
	k, _ := crypto.ToECDSA(common.LeftPadBytes([]byte{i}, 32))
	return k
}

// admitGate runs height 5 with the keys 1 to 4 as validators; key 9 is an
// outsider's.
func admitGate() *bftengine.Gate {
	var vals []common.Address
	for i := byte(1); i <= 4; i++ {
		vals = append(vals, crypto.PubkeyToAddress(key(i).PublicKey))
	}
	bft.SortValidators(vals)
	return &bftengine.Gate{Sequence: 5, Validators: vals, MaxDistance: 10}
}

// wire signs a message of kind at view with key k in format f.
func wire(t testing.TB, f bftengine.Format, k *ecdsa.PrivateKey, kind bft.Kind, v bft.View) []byte {
	t.Helper()
	m := &bft.Message{Kind: kind, View: v, Author: crypto.PubkeyToAddress(k.PublicKey), Digest: common.Hash{7}}
	if kind == bft.KindCommit {
		m.CommitSeal, _ = crypto.Sign(m.Digest[:], k)
	}
	if err := f.Sign(m, k); err != nil {
		t.Fatal(err)
	}
	return m.Wire
}

func TestAdmit(t *testing.T) {
	g := admitGate()
	prep, commit, rc := bft.KindPrepare, bft.KindCommit, bft.KindRoundChange
	for _, f := range formats {
		cases := []struct {
			name string
			kind bft.Kind
			data []byte
			want error // nil: admitted
			ban  bool
		}{
			{"validator, current height", prep, wire(t, f, key(1), prep, bft.View{Sequence: 5}), nil, false},
			{"validator, next height", commit, wire(t, f, key(2), commit, bft.View{Sequence: 6}), nil, false},
			{"outsider, current height", prep, wire(t, f, key(9), prep, bft.View{Sequence: 5}), bft.ErrNotValidator, true},
			{"outsider's round change", rc, wire(t, f, key(9), rc, bft.View{Sequence: 5, Round: 3}), bft.ErrNotValidator, true},
			{"outsider, next height", prep, wire(t, f, key(9), prep, bft.View{Sequence: 6}), bftengine.ErrUnknownAhead, false},
			{"outsider, past height", prep, wire(t, f, key(9), prep, bft.View{Sequence: 4}), bftengine.ErrStaleMessage, false},
			{"validator, too far ahead", prep, wire(t, f, key(3), prep, bft.View{Sequence: 16}), bft.ErrTooFarAhead, false},
			{"signature that recovers nobody", prep, zeroSignature(wire(t, f, key(1), prep, bft.View{Sequence: 5})), bft.ErrBadSignature, true},
		}
		for _, c := range cases {
			m, err := bftengine.Admit(f, g, f.Code(c.kind), c.data)
			if c.want == nil {
				if err != nil || m == nil {
					t.Errorf("%s, %s: %v", f.Spec().Name, c.name, err)
				}
				continue
			}
			if !errors.Is(err, c.want) || errors.Is(err, subprotocol.ErrMisbehaved) != c.ban || m != nil {
				t.Errorf("%s, %s: %v (ban %v)", f.Spec().Name, c.name, err, c.ban)
			}
		}
		// Before the first height nothing is known: decoded messages go on.
		if m, err := bftengine.Admit(f, nil, f.Code(prep), wire(t, f, key(9), prep, bft.View{Sequence: 5})); err != nil || m == nil {
			t.Errorf("%s, no gate: %v", f.Spec().Name, err)
		}
	}
}

// zeroSignature replaces the last 65 bytes of a prepare (its signature)
// with r = s = 0, which recovers no key.
func zeroSignature(w []byte) []byte {
	out := slices.Clone(w)
	clear(out[len(out)-65:])
	return out
}

// FuzzAdmit: whatever a peer sends, a message goes to the core only when
// its signature recovers an author who is a validator of the current
// height (or of the latest set, for a later height within reach); a peer
// is banned only for a signature that recovers nobody or a current-height
// message by a non-validator, never for a validator's message; and a
// message that decodes is never just a disconnect. The first byte picks
// the protocol and the message code.
func FuzzAdmit(f *testing.F) {
	for fi, fm := range formats {
		for _, k := range []byte{1, 9} {
			for _, seq := range []uint64{4, 5, 6, 20} {
				for kind := bft.KindPrepare; kind <= bft.KindRoundChange; kind++ {
					w := wire(f, fm, key(k), kind, bft.View{Sequence: seq, Round: 1})
					f.Add(append([]byte{byte(fi) | byte(kind)<<1}, w...))
				}
			}
		}
		w := wire(f, fm, key(2), bft.KindPrepare, bft.View{Sequence: 5})
		f.Add(append([]byte{byte(fi) | byte(bft.KindPrepare)<<1}, zeroSignature(w)...))
		flipped := slices.Clone(w)
		flipped[len(flipped)-40] ^= 1 // another signer, or none
		f.Add(append([]byte{byte(fi) | byte(bft.KindPrepare)<<1}, flipped...))
	}
	g := admitGate()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		fm := formats[int(data[0]&1)]
		code := fm.Code(bft.Kind(data[0] >> 1 & 3))
		m, err := bftengine.Admit(fm, g, code, data[1:])
		ref, derr := fm.DecodeMessage(code, data[1:])
		validator := derr == nil && slices.Contains(g.Validators, ref.Author)
		banned := errors.Is(err, subprotocol.ErrMisbehaved)
		switch {
		case err == nil:
			if m == nil || derr != nil || !validator || m.Author != ref.Author ||
				m.View.Sequence < g.Sequence || m.View.Sequence > g.Sequence+g.MaxDistance {
				t.Fatalf("admitted %+v (decode: %v)", m, derr)
			}
		case banned:
			badSig := errors.Is(derr, bft.ErrBadSignature)
			outsider := derr == nil && !validator && ref.View.Sequence == g.Sequence
			if !badSig && !outsider {
				t.Fatalf("banned for %v (decode: %v)", err, derr)
			}
		case derr == nil:
			// Decoded but not admitted: dropped without blame.
			if !errors.Is(err, bftengine.ErrStaleMessage) && !errors.Is(err, bftengine.ErrUnknownAhead) && !errors.Is(err, bft.ErrTooFarAhead) {
				t.Fatalf("a decodable message refused with %v", err)
			}
		}
		if derr != nil && err == nil {
			t.Fatalf("admitted what does not decode: %v", derr)
		}
	})
}

// BenchmarkAdmit against BenchmarkDecode: what the author check adds to the
// decoding (and signature recovery) every message paid already.
func BenchmarkAdmit(b *testing.B) {
	g, f := admitGate(), qbft.Format{}
	w := wire(b, f, key(1), bft.KindPrepare, bft.View{Sequence: 5})
	code := f.Code(bft.KindPrepare)
	for b.Loop() {
		if _, err := bftengine.Admit(f, g, code, w); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	f := qbft.Format{}
	w := wire(b, f, key(1), bft.KindPrepare, bft.View{Sequence: 5})
	code := f.Code(bft.KindPrepare)
	for b.Loop() {
		if _, err := f.DecodeMessage(code, w); err != nil {
			b.Fatal(err)
		}
	}
}
