package qbft

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/consensus/bft"
)

// goQuorumVectors are consensus messages a 4-validator GoQuorum 24.4.1
// QBFT network broadcast (its "QBFT: broadcast … message" log lines):
// height 5 in round 0, and height 6 in round 1 after its proposer was
// stopped (round changes and a proposal justified by them).
type goQuorumVectors struct {
	GenesisExtraData hexutil.Bytes `json:"genesisExtraData"`
	Messages         []struct {
		Code      uint64         `json:"code"`
		Sequence  uint64         `json:"sequence"`
		Round     uint32         `json:"round"`
		Author    common.Address `json:"author"`
		BlockHash common.Hash    `json:"blockHash"`
		Payload   hexutil.Bytes  `json:"payload"`
	} `json:"messages"`
}

// TestGoQuorumMessages decodes every captured GoQuorum message, checks the
// author recovered from its signature and its view, re-encodes it to the
// same bytes, checks the proposals' block hashes against GoQuorum's, that
// prepares and commits name the proposal, and that each commit seal signs
// the commit-seal hash of the proposed header at the commit round.
func TestGoQuorumMessages(t *testing.T) {
	data, err := os.ReadFile("testdata/goquorum-24.4.1-messages.json")
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
	validators := genesis.Validators
	proposals := map[uint64]*Proposal{}
	var seen [4]int
	for i, m := range v.Messages {
		msg, err := DecodeMessage(m.Code, m.Payload)
		if err != nil {
			t.Fatalf("message %d (code %#x): %v", i, m.Code, err)
		}
		var (
			author  common.Address
			seq     uint64
			round   uint32
			encoded []byte
		)
		switch msg := msg.(type) {
		case *Proposal:
			author, seq, round = msg.Author, msg.View.Sequence, msg.View.Round
			if got := BlockHash(msg.Block.Header()); got != m.BlockHash {
				t.Fatalf("proposal %d: block hash %s, GoQuorum %s", seq, got, m.BlockHash)
			}
			if round > 0 && len(msg.RoundChanges) < 3 {
				t.Fatalf("round %d proposal with %d round changes", round, len(msg.RoundChanges))
			}
			for _, rc := range msg.RoundChanges {
				if !slices.Contains(validators, rc.Author) || rc.View != msg.View || rc.Prepared != nil {
					t.Fatalf("proposal justification %+v", rc)
				}
			}
			proposals[seq] = msg
			encoded, err = msg.Encode()
		case *Prepare:
			author, seq, round = msg.Author, msg.View.Sequence, msg.View.Round
			if p := proposals[seq]; p == nil || msg.Digest != BlockHash(p.Block.Header()) {
				t.Fatalf("prepare %d names %s", seq, msg.Digest)
			}
			encoded = msg.Encode()
		case *Commit:
			author, seq, round = msg.Author, msg.View.Sequence, msg.View.Round
			p := proposals[seq]
			if p == nil || msg.Digest != BlockHash(p.Block.Header()) {
				t.Fatalf("commit %d names %s", seq, msg.Digest)
			}
			digest, err := HashForCommitSeal(p.Block.Header(), round)
			if err != nil {
				t.Fatal(err)
			}
			if signer, err := bft.RecoverSigner(digest, msg.CommitSeal); err != nil || signer != author {
				t.Fatalf("commit seal of %s recovers to %s (%v)", author, signer, err)
			}
			encoded = msg.Encode()
		case *RoundChange:
			author, seq, round = msg.Author, msg.View.Sequence, msg.View.Round
			if msg.Prepared != nil || msg.PreparedBlock != nil || len(msg.Prepares) != 0 {
				t.Fatalf("round change %+v: GoQuorum prepared nothing here", msg)
			}
			encoded, err = msg.Encode()
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[m.Code-CodeProposal]++
		if author != m.Author || seq != m.Sequence || round != m.Round {
			t.Fatalf("message %d: author %s view %d/%d, GoQuorum logged %s %d/%d", i, author, seq, round, m.Author, m.Sequence, m.Round)
		}
		if !slices.Contains(validators, author) {
			t.Fatalf("message %d by %s, not a validator", i, author)
		}
		if !bytes.Equal(encoded, m.Payload) {
			t.Fatalf("message %d re-encodes as\n%x\nGoQuorum sent\n%x", i, encoded, []byte(m.Payload))
		}
	}
	if seen != [4]int{2, 6, 6, 3} {
		t.Fatalf("messages per type %v", seen)
	}
}

// TestGoQuorumPreparedCertificate decodes messages that GoQuorum 24.4.1's
// own message types encoded and signed (a small program built against its
// consensus/istanbul/qbft/types): the prepares of round 1 for a block with
// a transaction, round changes to round 2 of which two carry the prepared
// round, digest, block and those prepares and one prepared nothing, and
// the round-2 proposal re-proposing the prepared block justified by the
// round changes and the prepares. Each re-encodes to the same bytes.
func TestGoQuorumPreparedCertificate(t *testing.T) {
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
	validators := genesis.Validators
	var digest common.Hash
	for _, m := range v.Messages {
		if m.Code == CodeProposal {
			digest = m.BlockHash
		}
	}
	checkPrepares := func(what string, ps []*Prepare) {
		t.Helper()
		if len(ps) != 3 {
			t.Fatalf("%s: %d prepares", what, len(ps))
		}
		for _, p := range ps {
			if p.Digest != digest || p.View != (bft.View{Sequence: 7, Round: 1}) || !slices.Contains(validators, p.Author) {
				t.Fatalf("%s: prepare %+v", what, p)
			}
		}
	}
	prepared := 0
	for i, m := range v.Messages {
		msg, err := DecodeMessage(m.Code, m.Payload)
		if err != nil {
			t.Fatalf("message %d (code %#x): %v", i, m.Code, err)
		}
		var (
			author  common.Address
			view    bft.View
			encoded []byte
		)
		switch msg := msg.(type) {
		case *Prepare:
			author, view, encoded = msg.Author, msg.View, msg.Encode()
			checkPrepares("prepare message", []*Prepare{msg, msg, msg})
		case *RoundChange:
			author, view = msg.Author, msg.View
			if msg.Prepared != nil {
				prepared++
				if msg.Prepared.Round != 1 || msg.Prepared.Digest != digest || msg.PreparedBlock == nil ||
					BlockHash(msg.PreparedBlock.Header()) != digest || len(msg.PreparedBlock.Transactions()) != 1 {
					t.Fatalf("round change %d: prepared %+v, block %v", i, msg.Prepared, msg.PreparedBlock)
				}
				checkPrepares("round change", msg.Prepares)
			} else if msg.PreparedBlock != nil || len(msg.Prepares) != 0 {
				t.Fatalf("round change %d: a block or prepares without a prepared round", i)
			}
			encoded, err = msg.Encode()
		case *Proposal:
			author, view = msg.Author, msg.View
			if BlockHash(msg.Block.Header()) != digest || len(msg.RoundChanges) != 3 {
				t.Fatalf("proposal: block %s, %d round changes", BlockHash(msg.Block.Header()), len(msg.RoundChanges))
			}
			claims := 0
			for _, rc := range msg.RoundChanges {
				if rc.View != (bft.View{Sequence: 7, Round: 2}) || !slices.Contains(validators, rc.Author) {
					t.Fatalf("proposal justification %+v", rc)
				}
				if rc.Prepared != nil && *rc.Prepared == (Prepared{Round: 1, Digest: digest}) {
					claims++
				}
			}
			if claims != 2 {
				t.Fatalf("proposal: %d round changes claim the prepared block, want 2", claims)
			}
			checkPrepares("proposal", msg.Prepares)
			encoded, err = msg.Encode()
		default:
			t.Fatalf("message %d: %T", i, msg)
		}
		if err != nil {
			t.Fatal(err)
		}
		if author != m.Author || view != (bft.View{Sequence: m.Sequence, Round: m.Round}) {
			t.Fatalf("message %d: author %s view %+v, want %s %d/%d", i, author, view, m.Author, m.Sequence, m.Round)
		}
		if !bytes.Equal(encoded, m.Payload) {
			t.Fatalf("message %d re-encodes as\n%x\nGoQuorum's types encode\n%x", i, encoded, []byte(m.Payload))
		}
	}
	if prepared != 2 {
		t.Fatalf("%d round changes carried a prepared certificate, want 2", prepared)
	}
}
