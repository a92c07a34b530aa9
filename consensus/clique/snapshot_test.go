package clique

import (
	"errors"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// scenario is a chain of signed blocks on a genesis listing signers, and
// the signer set it must end with (or the error its failing block gives).
type scenario struct {
	name    string
	epoch   uint64 // 0: no checkpoint within the scenario
	signers []string
	blocks  []block
	want    []string
	err     error
}

// run applies the scenario's blocks one at a time to the genesis snapshot
// with Snapshot.apply, the pure state machine.
func (sc scenario) run(t *testing.T) {
	acc := newAccounts()
	genesis := genesisHeader(acc.addresses(sc.signers...))
	snap := newSnapshot(0, genesis.Hash(), acc.addresses(sc.signers...))
	epoch := sc.epoch
	if epoch == 0 {
		epoch = DefaultEpoch
	}
	parent := genesis
	var err error
	for i, b := range sc.blocks {
		h := makeHeader(t, acc, parent, b, nil, 1)
		var next *Snapshot
		next, err = snap.apply([]*types.Header{h}, []common.Address{acc.address(b.signer)}, []common.Hash{h.Hash()}, epoch)
		if err != nil {
			if i != len(sc.blocks)-1 {
				t.Fatalf("block %d failed before the last one: %v", i+1, err)
			}
			break
		}
		snap, parent = next, h
	}
	if sc.err != nil {
		if !errors.Is(err, sc.err) {
			t.Fatalf("error %v, want %v", err, sc.err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if want := acc.addresses(sc.want...); !slices.Equal(snap.Signers, want) {
		t.Fatalf("signers %v, want %v", acc.names(snap.Signers), sc.want)
	}
}

// go-ethereum's published Clique voting scenarios (consensus/clique
// snapshot tests, also EIP-225's), each a chain of blocks applied to the
// signer state. Besu tallies as go-ethereum does on every one of them.
func TestGoEthereumVoteScenarios(t *testing.T) {
	for _, sc := range []scenario{
		{name: "single signer, no votes", signers: []string{"A"},
			blocks: []block{{signer: "A"}}, want: []string{"A"}},
		{name: "single signer adds two: the second needs two votes", signers: []string{"A"},
			blocks: []block{{signer: "A", voted: "B", auth: true}, {signer: "B"}, {signer: "A", voted: "C", auth: true}},
			want:   []string{"A", "B"}},
		{name: "two signers add three: the third needs three votes", signers: []string{"A", "B"},
			blocks: []block{
				{signer: "A", voted: "C", auth: true}, {signer: "B", voted: "C", auth: true},
				{signer: "A", voted: "D", auth: true}, {signer: "B", voted: "D", auth: true},
				{signer: "C"}, {signer: "A", voted: "E", auth: true}, {signer: "B", voted: "E", auth: true},
			},
			want: []string{"A", "B", "C", "D"}},
		{name: "single signer drops itself", signers: []string{"A"},
			blocks: []block{{signer: "A", voted: "A"}}, want: []string{}},
		{name: "two signers: one vote does not drop the other", signers: []string{"A", "B"},
			blocks: []block{{signer: "A", voted: "B"}}, want: []string{"A", "B"}},
		{name: "two signers: mutual consent drops one", signers: []string{"A", "B"},
			blocks: []block{{signer: "A", voted: "B"}, {signer: "B", voted: "B"}}, want: []string{"A"}},
		{name: "three signers: two drop the third", signers: []string{"A", "B", "C"},
			blocks: []block{{signer: "A", voted: "C"}, {signer: "B", voted: "C"}}, want: []string{"A", "B"}},
		{name: "four signers: two votes do not drop", signers: []string{"A", "B", "C", "D"},
			blocks: []block{{signer: "A", voted: "C"}, {signer: "B", voted: "C"}}, want: []string{"A", "B", "C", "D"}},
		{name: "four signers: three votes drop", signers: []string{"A", "B", "C", "D"},
			blocks: []block{{signer: "A", voted: "D"}, {signer: "B", voted: "D"}, {signer: "C", voted: "D"}},
			want:   []string{"A", "B", "C"}},
		{name: "an add vote counts once per signer and candidate", signers: []string{"A", "B"},
			blocks: []block{
				{signer: "A", voted: "C", auth: true}, {signer: "B"}, {signer: "A", voted: "C", auth: true},
				{signer: "B"}, {signer: "A", voted: "C", auth: true},
			},
			want: []string{"A", "B"}},
		{name: "adding several candidates at once", signers: []string{"A", "B"},
			blocks: []block{
				{signer: "A", voted: "C", auth: true}, {signer: "B"}, {signer: "A", voted: "D", auth: true},
				{signer: "B"}, {signer: "A"}, {signer: "B", voted: "D", auth: true}, {signer: "A"},
				{signer: "B", voted: "C", auth: true},
			},
			want: []string{"A", "B", "C", "D"}},
		{name: "a drop vote counts once per signer and candidate", signers: []string{"A", "B"},
			blocks: []block{
				{signer: "A", voted: "B"}, {signer: "B"}, {signer: "A", voted: "B"}, {signer: "B"}, {signer: "A", voted: "B"},
			},
			want: []string{"A", "B"}},
		{name: "dropping several signers at once", signers: []string{"A", "B", "C", "D"},
			blocks: []block{
				{signer: "A", voted: "C"}, {signer: "B"}, {signer: "C"}, {signer: "A", voted: "D"}, {signer: "B"},
				{signer: "C"}, {signer: "A"}, {signer: "B", voted: "D"}, {signer: "C", voted: "D"}, {signer: "A"},
				{signer: "B", voted: "C"},
			},
			want: []string{"A", "B"}},
		{name: "a dropped signer's drop votes go with it", signers: []string{"A", "B", "C"},
			blocks: []block{
				{signer: "C", voted: "B"}, {signer: "A", voted: "C"}, {signer: "B", voted: "C"}, {signer: "A", voted: "B"},
			},
			want: []string{"A", "B"}},
		{name: "a dropped signer's add votes go with it", signers: []string{"A", "B", "C"},
			blocks: []block{
				{signer: "C", voted: "D", auth: true}, {signer: "A", voted: "C"}, {signer: "B", voted: "C"},
				{signer: "A", voted: "D", auth: true},
			},
			want: []string{"A", "B"}},
		{name: "no cascade: only the candidate voted on changes", signers: []string{"A", "B", "C", "D"},
			blocks: []block{
				{signer: "A", voted: "C"}, {signer: "B"}, {signer: "C"}, {signer: "A", voted: "D"},
				{signer: "B", voted: "C"}, {signer: "C"}, {signer: "A"}, {signer: "B", voted: "D"}, {signer: "C", voted: "D"},
			},
			want: []string{"A", "B", "C"}},
		{name: "a majority reached by a drop executes on the next vote on the candidate", signers: []string{"A", "B", "C", "D"},
			blocks: []block{
				{signer: "A", voted: "C"}, {signer: "B"}, {signer: "C"}, {signer: "A", voted: "D"},
				{signer: "B", voted: "C"}, {signer: "C"}, {signer: "A"}, {signer: "B", voted: "D"}, {signer: "C", voted: "D"},
				{signer: "A"}, {signer: "C", voted: "C", auth: true},
			},
			want: []string{"A", "B"}},
		{name: "that next vote may instead undo the majority", signers: []string{"A", "B", "C", "D"},
			blocks: []block{
				{signer: "A", voted: "C"}, {signer: "B"}, {signer: "C"}, {signer: "A", voted: "D"},
				{signer: "B", voted: "C"}, {signer: "C"}, {signer: "A"}, {signer: "B", voted: "D"}, {signer: "C", voted: "D"},
				{signer: "A"}, {signer: "B", voted: "C", auth: true},
			},
			want: []string{"A", "B", "C"}},
		{name: "votes do not outlive a change of the candidate's status", signers: []string{"A", "B", "C", "D", "E"},
			blocks: []block{
				{signer: "A", voted: "F", auth: true}, {signer: "B", voted: "F", auth: true}, {signer: "C", voted: "F", auth: true},
				{signer: "D", voted: "F"}, {signer: "E", voted: "F"}, {signer: "B", voted: "F"}, {signer: "C", voted: "F"},
				{signer: "D", voted: "F", auth: true}, {signer: "E", voted: "F", auth: true},
				{signer: "B", voted: "A"}, {signer: "C", voted: "A"}, {signer: "D", voted: "A"},
				{signer: "B", voted: "F", auth: true},
			},
			want: []string{"B", "C", "D", "E", "F"}},
		{name: "a checkpoint resets the votes", epoch: 3, signers: []string{"A", "B"},
			blocks: []block{
				{signer: "A", voted: "C", auth: true}, {signer: "B"},
				{signer: "A", checkpoint: []string{"A", "B"}}, {signer: "B", voted: "C", auth: true},
			},
			want: []string{"A", "B"}},
		{name: "an unauthorised signer", signers: []string{"A"},
			blocks: []block{{signer: "B"}}, err: ErrUnauthorizedSigner},
		{name: "a signer sealing twice within the limit", signers: []string{"A", "B"},
			blocks: []block{{signer: "A"}, {signer: "A"}}, err: ErrRecentlySigned},
		{name: "recency survives a checkpoint", epoch: 3, signers: []string{"A", "B", "C"},
			blocks: []block{{signer: "A"}, {signer: "B"}, {signer: "A", checkpoint: []string{"A", "B", "C"}}, {signer: "A"}},
			err:    ErrRecentlySigned},
	} {
		t.Run(sc.name, sc.run)
	}
}

// vote is one vote of a tally scenario: voter asks to add or drop.
type vote struct {
	voter, candidate int
	add              bool
}

// Besu's VoteTally scenarios (consensus/common VoteTallyTest): votes cast
// straight into the tally, without blocks (so without the recency rule),
// each step followed by the signer set it must leave; -1 as a voter resets
// the votes, as a checkpoint does.
func TestBesuVoteTallyScenarios(t *testing.T) {
	type step struct {
		votes []vote
		want  []int
	}
	four := []int{1, 2, 3, 4}
	reset := vote{voter: -1}
	for _, tc := range []struct {
		name    string
		initial []int
		steps   []step
	}{
		{"not added before the required count", four, []step{{[]vote{{1, 5, true}, {2, 5, true}}, four}}},
		{"added by more than half", four, []step{{[]vote{{1, 5, true}, {2, 5, true}, {3, 5, true}}, []int{1, 2, 3, 4, 5}}}},
		{"added in order", []int{1, 2, 3, 5}, []step{{[]vote{{1, 4, true}, {2, 4, true}, {3, 4, true}}, []int{1, 2, 3, 4, 5}}}},
		{"duplicate add votes ignored", four, []step{{[]vote{{1, 5, true}, {2, 5, true}, {2, 5, true}}, four}}},
		{"add changed to drop before the limit", four, []step{{[]vote{{1, 5, true}, {1, 5, false}, {2, 5, true}, {3, 5, true}}, four}}},
		{"add changed to drop after the limit", four, []step{{[]vote{{1, 5, true}, {2, 5, true}, {3, 5, true}, {1, 5, false}}, []int{1, 2, 3, 4, 5}}}},
		{"votes about an added signer are cleared", four, []step{
			{[]vote{{1, 5, true}, {2, 5, true}, {3, 5, true}}, []int{1, 2, 3, 4, 5}},
			{[]vote{{2, 5, false}, {3, 5, false}, {4, 5, false}}, four},
			{[]vote{{2, 5, true}, {3, 5, true}}, four},
		}},
		{"one signer needs one vote", []int{1}, []step{{[]vote{{1, 2, true}}, []int{1, 2}}}},
		{"two signers need two votes", []int{1, 2}, []step{
			{[]vote{{1, 3, true}}, []int{1, 2}},
			{[]vote{{2, 3, true}}, []int{1, 2, 3}},
		}},
		{"reset add votes", four, []step{{[]vote{{1, 5, true}, {2, 5, true}, reset, {3, 5, true}}, four}}},
		{"reset drop votes", four, []step{{[]vote{{1, 4, false}, {2, 4, false}, reset, {3, 4, false}}, four}}},
		{"not dropped before the required count", four, []step{{[]vote{{1, 4, false}, {2, 4, false}}, four}}},
		{"dropped by more than half", four, []step{{[]vote{{1, 4, false}, {2, 4, false}, {3, 4, false}}, []int{1, 2, 3}}}},
		{"order kept after a drop", []int{1, 2, 4}, []step{{[]vote{{1, 3, false}, {2, 3, false}, {4, 3, false}}, []int{1, 2, 4}}}},
		{"duplicate drop votes ignored", four, []step{{[]vote{{1, 4, false}, {2, 4, false}, {2, 4, false}}, four}}},
		{"drop changed to add before the limit", four, []step{{[]vote{{1, 4, false}, {1, 4, true}, {2, 4, false}, {3, 4, false}}, four}}},
		{"drop changed to add after the limit", four, []step{{[]vote{{1, 4, false}, {2, 4, false}, {3, 4, false}, {1, 4, true}}, []int{1, 2, 3}}}},
		{"a dropped signer's votes are discarded", four, []step{
			{[]vote{{4, 5, true}, {4, 3, false}, {1, 4, false}, {2, 4, false}, {3, 4, false}}, []int{1, 2, 3}},
			{[]vote{{1, 5, true}, {1, 3, false}}, []int{1, 2, 3}},
		}},
		{"votes about a dropped signer are cleared", []int{1, 2, 3, 4, 5}, []step{
			{[]vote{{1, 5, false}, {2, 5, false}, {3, 5, false}}, four},
			{[]vote{{2, 5, true}, {3, 5, true}, {4, 5, true}}, []int{1, 2, 3, 4, 5}},
			{[]vote{{2, 5, false}, {3, 5, false}}, []int{1, 2, 3, 4, 5}},
		}},
		{"several votes tracked apart", four, []step{
			{[]vote{{1, 5, true}, {1, 3, false}, {2, 5, true}, {2, 1, false}}, four},
			{[]vote{{3, 5, true}, {3, 1, false}}, []int{1, 2, 3, 4, 5}},
			{[]vote{{4, 5, true}, {4, 1, false}}, []int{2, 3, 4, 5}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Besu's test addresses, in ascending order as validator1..5.
			addr := func(i int) common.Address {
				return [...]common.Address{
					common.HexToAddress("000d836201318ec6899a67540690382780743280"),
					common.HexToAddress("001762430ea9c3a26e5749afdb70da5f78ddbb8c"),
					common.HexToAddress("001d14804b399c6ef80e64576f657660804fec0b"),
					common.HexToAddress("0032403587947b9f15622a68d104d54d33dbd1cd"),
					common.HexToAddress("00497e92cdc0e0b963d752b2296acb87da828b24"),
				}[i-1]
			}
			set := func(is []int) []common.Address {
				out := make([]common.Address, len(is))
				for j, i := range is {
					out[j] = addr(i)
				}
				return out
			}
			snap := newSnapshot(0, common.Hash{}, set(tc.initial))
			for i, st := range tc.steps {
				for _, v := range st.votes {
					if v.voter < 0 {
						snap.Votes = nil
						continue
					}
					snap.cast(Vote{Signer: addr(v.voter), Candidate: addr(v.candidate), Authorize: v.add})
				}
				if !slices.Equal(snap.Signers, set(st.want)) {
					t.Fatalf("step %d: signers %v, want validators %v", i+1, snap.Signers, st.want)
				}
			}
		})
	}
}

// The recency window follows the signer count: with n signers a signer
// may seal one of any n/2+1 consecutive blocks.
func TestRecencyWindow(t *testing.T) {
	for _, tc := range []struct {
		signers []string
		blocks  []string // signers of blocks 1..
		err     error
	}{
		{[]string{"A"}, []string{"A", "A", "A"}, nil},                // n=1: every block
		{[]string{"A", "B"}, []string{"A", "B", "A", "B"}, nil},      // n=2: every other block
		{[]string{"A", "B", "C"}, []string{"A", "B", "A", "C"}, nil}, // n=3: 1 of 2
		{[]string{"A", "B", "C"}, []string{"A", "A"}, ErrRecentlySigned},
		{[]string{"A", "B", "C", "D"}, []string{"A", "B", "A"}, ErrRecentlySigned}, // n=4: 1 of 3
		{[]string{"A", "B", "C", "D"}, []string{"A", "B", "C", "A"}, nil},
		{[]string{"A", "B", "C", "D", "E"}, []string{"A", "B", "A"}, ErrRecentlySigned}, // n=5: 1 of 3
		{[]string{"A", "B", "C", "D", "E"}, []string{"A", "B", "C", "A"}, nil},
	} {
		sc := scenario{name: "", signers: tc.signers, err: tc.err, want: tc.signers}
		for _, s := range tc.blocks {
			sc.blocks = append(sc.blocks, block{signer: s})
		}
		t.Run(string(rune('0'+len(tc.signers)))+"-"+joinNames(tc.blocks), sc.run)
	}
}

func joinNames(n []string) string {
	out := ""
	for _, s := range n {
		out += s
	}
	return out
}

// A signer voted out may not seal the next block, nor any later one.
func TestSignerVotedOut(t *testing.T) {
	scenario{name: "dropped signer seals", signers: []string{"A", "B", "C"},
		blocks: []block{{signer: "A", voted: "C"}, {signer: "B", voted: "C"}, {signer: "C"}},
		err:    ErrUnauthorizedSigner}.run(t)
}

// A snapshot survives its database encoding.
func TestSnapshotEncoding(t *testing.T) {
	acc := newAccounts()
	s := newSnapshot(7, common.Hash{7}, acc.addresses("A", "B", "C"))
	s.Recents[6] = acc.address("A")
	s.Recents[7] = acc.address("B")
	s.Votes = []Vote{{Signer: acc.address("A"), Candidate: acc.address("D"), Authorize: true}}
	data, err := s.marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := unmarshalSnapshot(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Number != 7 || got.Hash != s.Hash || !slices.Equal(got.Signers, s.Signers) ||
		len(got.Recents) != 2 || got.Recents[7] != s.Recents[7] || !slices.Equal(got.Votes, s.Votes) {
		t.Fatalf("round trip: %+v, want %+v", got, s)
	}
}
