package qbft

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/consensus/bft"
)

// vectorBackend is a bft.Backend for one validator with QBFT's hashing and
// signing; it accepts every block (the test is about messages).
type vectorBackend struct{ key *ecdsa.PrivateKey }

func (vectorBackend) Digest(b *types.Block) (common.Hash, error) { return BlockHash(b.Header()), nil }

func (vectorBackend) BlockRound(b *types.Block) (uint32, error) {
	e, err := DecodeExtraData(b.Header().Extra)
	if err != nil {
		return 0, err
	}
	return e.Round, nil
}

func (vectorBackend) WithRound(b *types.Block, round uint32) (*types.Block, error) {
	h, err := WithRoundAndSeals(b.Header(), round, nil)
	if err != nil {
		return nil, err
	}
	return b.WithSeal(h), nil
}

func (vectorBackend) Verify(*types.Block) error   { return nil }
func (v vectorBackend) Sign(m *bft.Message) error { return Sign(m, v.key) }
func (vectorBackend) SealHash(b *types.Block, round uint32) (common.Hash, error) {
	return HashForCommitSeal(b.Header(), round)
}
func (v vectorBackend) CommitSeal(h common.Hash) ([]byte, error) { return crypto.Sign(h[:], v.key) }
func (vectorBackend) SealSigner(h common.Hash, seal []byte) (common.Address, error) {
	return bft.RecoverSigner(h, seal)
}

// TestGoQuorumPreparedCertificateAccepted feeds the GoQuorum-encoded round
// changes and round-2 proposal of goquorum-24.4.1-prepared.json to the
// state machine of the fourth validator (the one that signed none of
// them): the round changes take it to round 2, and it accepts the
// proposal of the prepared block, justified by the round changes' claims
// and the prepares, and prepares it. Without the prepares, the same
// proposal is refused.
func TestGoQuorumPreparedCertificateAccepted(t *testing.T) {
	data, err := os.ReadFile("testdata/goquorum-24.4.1-prepared.json")
	if err != nil {
		t.Fatal(err)
	}
	var v goQuorumVectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	genesis, err := DecodeExtraData(v.GenesisExtraData)
	if err != nil {
		t.Fatal(err)
	}
	vals := genesis.Validators
	// The vectors' validators are the keys of "basalt-goquorum-0-<i>"; the
	// fourth signed nothing.
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte("basalt-goquorum-0-3")))
	if err != nil {
		t.Fatal(err)
	}
	self := crypto.PubkeyToAddress(key.PublicKey)
	var roundChanges []*bft.Message
	var proposal *bft.Message
	for i, m := range v.Messages {
		msg, err := Decode(m.Code, m.Payload)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if msg.Author == self {
			t.Fatal("the local validator signed a vector")
		}
		switch msg.Kind {
		case bft.KindRoundChange:
			roundChanges = append(roundChanges, msg)
		case bft.KindProposal:
			proposal = msg
		}
	}
	// The parent proposer that makes the vectors' proposer round 2's.
	var parent common.Address
	for _, p := range vals {
		if bft.Proposer(vals, p, 2) == proposal.Author {
			parent = p
		}
	}

	run := func(p *bft.Message) ([]bft.Action, error) {
		core := bft.New(bft.Config{Self: self, RequestTimeout: time.Second, BlockPeriod: time.Second, Rules: bft.QBFT}, vectorBackend{key})
		core.NewHeight(bft.Height{Sequence: 7, ParentTime: proposal.Block.Time() - 1, ParentProposer: parent, Validators: vals})
		for _, rc := range roundChanges {
			if _, err := core.Step(rc); err != nil {
				t.Fatalf("round change of %s: %v", rc.Author, err)
			}
		}
		if got := core.View(); got != (bft.View{Sequence: 7, Round: 2}) {
			t.Fatalf("after the round changes the core is at %+v, want round 2", got)
		}
		return core.Step(p)
	}

	acts, err := run(proposal)
	if err != nil {
		t.Fatalf("proposal refused: %v", err)
	}
	prepared := false
	for _, a := range acts {
		if b, ok := a.(bft.Broadcast); ok && b.Msg.Kind == bft.KindPrepare && b.Msg.Digest == proposal.Digest &&
			b.Msg.View == proposal.View {
			prepared = true
		}
	}
	if !prepared {
		t.Fatalf("no prepare for the proposal among %+v", acts)
	}

	stripped := *proposal
	stripped.Prepares = nil
	if _, err := run(&stripped); !errors.Is(err, bft.ErrInvalidCert) {
		t.Fatalf("a proposal whose round changes claim a prepared block but that carries no prepares: %v, want %v", err, bft.ErrInvalidCert)
	}
}
