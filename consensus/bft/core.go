package bft

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reasons Step rejects a message. A rejected message is not gossiped on.
var (
	ErrNoHeight        = errors.New("no height yet")
	ErrOldMessage      = errors.New("message for a past height or round")
	ErrTooFarAhead     = errors.New("message too far in the future")
	ErrNotValidator    = errors.New("author is not a validator")
	ErrWrongProposer   = errors.New("proposal from a validator that is not the round's proposer")
	ErrDuplicate       = errors.New("duplicate message")
	ErrInvalidDigest   = errors.New("digest does not match the block")
	ErrInvalidBlock    = errors.New("invalid proposed block")
	ErrInvalidSeal     = errors.New("invalid commit seal")
	ErrInvalidCert     = errors.New("invalid certificate")
	ErrPrepareProposer = errors.New("prepare from the round's proposer")
	ErrUnknownKind     = errors.New("unknown message kind")
)

// maxRoundLead bounds how many rounds ahead of the local round a message
// may be: a faulty validator must not make the core keep state for
// arbitrarily many rounds. Round timers double each round, so honest
// validators are never that far apart.
const maxRoundLead = 64

// maxTimerShift caps the exponent of the round timer so it cannot overflow.
const maxTimerShift = 20

// Core is the BFT state machine of one node. It is not safe for concurrent
// use: the adapter feeds it from one goroutine.
type Core struct {
	cfg   Config
	b     Backend
	rules Rules

	height    *Height
	round     uint32
	started   bool // the block timer of the height expired (round 0 timer running)
	committed bool // a block of this height was committed; waiting for the new head

	rs       *roundState
	prepared *preparedRecord // latest prepared certificate of this height

	roundChanges map[uint32]map[common.Address]*Message
	futureRounds map[uint32][]*Message
	future       map[uint64][]*Message
	buffered     int // messages in futureRounds and future
	// futureBy counts the messages in future by author: each validator
	// gets a share of FutureMessagesLimit, so one of them cannot fill the
	// buffer and push the others' messages out.
	futureBy map[common.Address]int
}

// roundState is what the core knows about the current round.
type roundState struct {
	proposal *Message
	digest   common.Hash
	building bool // a BuildBlock is outstanding
	cert     []*Message
	// certPrepares justify the latest prepared round in cert (QBFT).
	certPrepares []*Message
	prepares     map[common.Address]*Message
	commits      map[common.Address]*Message
	sentCommt    bool
	// unsealed are commits whose seal waits for the proposal: under QBFT
	// a seal signs a hash of the block with the commit round, not the
	// digest the commit names.
	unsealed map[common.Address]bool
}

// preparedRecord is a prepared certificate and its block.
type preparedRecord struct {
	cert  *PreparedCertificate
	block *types.Block
}

func newRoundState() *roundState {
	return &roundState{prepares: map[common.Address]*Message{}, commits: map[common.Address]*Message{},
		unsealed: map[common.Address]bool{}}
}

// New returns a core that waits for its first height.
func New(cfg Config, b Backend) *Core {
	if cfg.FutureMessagesLimit <= 0 {
		cfg.FutureMessagesLimit = 1000
	}
	if cfg.FutureMessagesMaxDistance == 0 {
		cfg.FutureMessagesMaxDistance = 10
	}
	rules := cfg.Rules
	if rules == nil {
		rules = IBFT2
	}
	return &Core{cfg: cfg, b: b, rules: rules, future: map[uint64][]*Message{}, futureBy: map[common.Address]int{}}
}

// View returns the current view (zero before the first height).
func (c *Core) View() View {
	if c.height == nil {
		return View{}
	}
	return View{Sequence: c.height.Sequence, Round: c.round}
}

// Validators returns the validators of the current height.
func (c *Core) Validators() []common.Address {
	if c.height == nil {
		return nil
	}
	return c.height.Validators
}

// IsValidator reports whether the local node validates the current height.
func (c *Core) IsValidator() bool { return c.isValidator(c.cfg.Self) }

// Buffered returns how many messages wait for a later height or round.
func (c *Core) Buffered() int { return c.buffered }

func (c *Core) isValidator(a common.Address) bool {
	if c.height == nil {
		return false
	}
	_, ok := slices.BinarySearchFunc(c.height.Validators, a, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })
	return ok
}

func (c *Core) quorum() int { return Quorum(len(c.height.Validators)) }

func (c *Core) proposer(round uint32) common.Address {
	return Proposer(c.height.Validators, c.height.ParentProposer, round)
}

// NewHeight starts consensus on the block after a new head. A height not
// above the current one is ignored (a stale head event).
func (c *Core) NewHeight(h Height) []Action {
	if c.height != nil && h.Sequence <= c.height.Sequence {
		return nil
	}
	if h.Rules != nil {
		c.rules = h.Rules
	}
	if h.BlockPeriod != 0 {
		c.cfg.BlockPeriod = h.BlockPeriod
	}
	if h.RequestTimeout != 0 {
		c.cfg.RequestTimeout = h.RequestTimeout
	}
	hh := h
	hh.Validators = slices.Clone(h.Validators)
	SortValidators(hh.Validators)
	c.height, c.round, c.started, c.committed = &hh, 0, false, false
	c.rs, c.prepared = newRoundState(), nil
	c.roundChanges = map[uint32]map[common.Address]*Message{}
	c.futureRounds = map[uint32][]*Message{}
	c.buffered = 0
	clear(c.futureBy)
	var replay []*Message
	for seq, msgs := range c.future {
		switch {
		case seq == h.Sequence:
			replay = msgs
			delete(c.future, seq)
		case seq < h.Sequence:
			delete(c.future, seq)
		default:
			c.buffered += len(msgs)
			for _, m := range msgs {
				c.futureBy[m.Author]++
			}
		}
	}
	acts := []Action{c.blockTimer()}
	for _, m := range replay {
		// Step, not step: a message of this height relays once it passes.
		a, _ := c.Step(m)
		acts = append(acts, a...)
	}
	return acts
}

// Timeout handles the expiry of a timer the core asked for. Expiries of
// timers of another view are ignored.
func (c *Core) Timeout(t Timer) []Action {
	if c.height == nil || c.committed || t.View != c.View() {
		return nil
	}
	switch t.Kind {
	case BlockTimer:
		if c.started {
			return nil
		}
		// The round-0 timer starts when the block period is over, for
		// every validator: with Besu's defaults (1 s period, 1 s timeout)
		// a timer started at the head would expire before the proposer
		// may even propose.
		c.started = true
		acts := []Action{c.roundTimer()}
		if c.IsValidator() && c.proposer(0) == c.cfg.Self && c.rs.proposal == nil && !c.rs.building {
			c.rs.building = true
			acts = append(acts, BuildBlock{View: c.View(), MinTime: c.minTime()})
		}
		return acts
	case RoundTimer:
		if !c.IsValidator() {
			return nil
		}
		return c.changeRound(c.round + 1)
	}
	return nil
}

// blockTimer is the timer of the block period. A period of whole seconds
// ends at the parent's timestamp plus the period, the same instant for
// every validator. Headers carry seconds, so a sub-second period (or one
// of 1.5 s) cannot be counted from the parent's timestamp: it runs from
// the head's arrival here, as Besu's xblockperiodmilliseconds.
func (c *Core) blockTimer() Action {
	t := Timer{Kind: BlockTimer, View: c.View()}
	if p := c.cfg.BlockPeriod; p%time.Second != 0 {
		return StartTimer{Timer: t, Delay: p}
	}
	return StartTimer{Timer: t, AtUnix: c.height.ParentTime + uint64(c.cfg.BlockPeriod/time.Second)}
}

// minTime is the least timestamp of the block: the parent's plus the
// whole seconds of the period. Under a sub-second period several blocks
// share a second, so a child may carry its parent's timestamp.
func (c *Core) minTime() uint64 { return c.height.ParentTime + uint64(c.cfg.BlockPeriod/time.Second) }

func (c *Core) roundTimer() Action {
	shift := min(c.round, maxTimerShift)
	return StartTimer{Timer: Timer{Kind: RoundTimer, View: c.View()}, Delay: c.cfg.RequestTimeout << shift}
}

// changeRound moves to round r after a round timeout: it sends a
// RoundChange carrying the latest prepared certificate.
func (c *Core) changeRound(r uint32) []Action {
	acts := c.startRound(r)
	m := &Message{Kind: KindRoundChange, View: c.View(), Author: c.cfg.Self}
	if c.prepared != nil {
		m.Prepared, m.Block = c.prepared.cert, c.prepared.block
	}
	if err := c.b.Sign(m); err != nil {
		return acts
	}
	acts = append(acts, Broadcast{Msg: m})
	acts = append(acts, c.addRoundChange(m)...)
	return acts
}

// startRound enters round r (above the current one) and replays the
// messages kept for it.
func (c *Core) startRound(r uint32) []Action {
	c.round, c.started = r, true
	c.rs = newRoundState()
	acts := []Action{c.roundTimer()}
	for rr, msgs := range c.futureRounds {
		if rr > r {
			continue
		}
		delete(c.futureRounds, rr)
		c.buffered -= len(msgs)
		if rr < r {
			continue
		}
		for _, m := range msgs {
			// Kept at this height, so relayed already: step, not Step.
			a, _ := c.step(m)
			acts = append(acts, a...)
		}
	}
	return acts
}

// Step handles a message from the network (or replayed from a buffer). It
// returns the actions it causes, and an error when it rejects the message.
// A message of the current height that passes the checks of its kind (or
// is kept for a later round of it) comes back first in the actions as a
// Relay: only those may be gossiped on. A message of a later height is
// kept without a Relay: its author is checked only against the current
// validators, which need not be its height's; it is relayed when it is
// replayed at its height and passes there (Besu gossips a future message
// once it is handled at its height, too).
func (c *Core) Step(m *Message) ([]Action, error) {
	if c.height == nil {
		return nil, ErrNoHeight
	}
	if m.View.Sequence > c.height.Sequence {
		return nil, c.keepFuture(m)
	}
	acts, err := c.step(m)
	if err != nil {
		return nil, err
	}
	return append([]Action{Relay{Msg: m}}, acts...), nil
}

// step is Step for a message that is not of a later height.
func (c *Core) step(m *Message) ([]Action, error) {
	if m.View.Sequence < c.height.Sequence {
		return nil, ErrOldMessage
	}
	if !c.isValidator(m.Author) {
		return nil, ErrNotValidator
	}
	if m.View.Round > c.round+maxRoundLead {
		return nil, ErrTooFarAhead
	}
	if c.committed {
		return nil, nil
	}
	switch m.Kind {
	case KindProposal:
		return c.handleProposal(m)
	case KindPrepare, KindCommit:
		switch {
		case m.View.Round < c.round:
			return nil, ErrOldMessage
		case m.View.Round > c.round:
			return nil, c.keepFutureRound(m)
		}
		if m.Kind == KindPrepare {
			return c.handlePrepare(m)
		}
		return c.handleCommit(m)
	case KindRoundChange:
		return c.handleRoundChange(m)
	}
	return nil, ErrUnknownKind
}

// keepFuture buffers a message of a later height. Its author must be a
// validator of the current height (the latest set the core knows; a
// validator voted in at the next height is missed, as a quorum of the
// others does not need it) and have room in its share of the buffer,
// FutureMessagesLimit divided among the validators. Beyond the limit
// the messages of the highest height go first (Besu's
// FutureMessageBuffer): the nearest heights are the ones needed soonest.
func (c *Core) keepFuture(m *Message) error {
	if m.View.Sequence > c.height.Sequence+c.cfg.FutureMessagesMaxDistance {
		return ErrTooFarAhead
	}
	if !c.isValidator(m.Author) {
		return ErrNotValidator
	}
	if c.futureBy[m.Author] >= c.futureShare() {
		return fmt.Errorf("%w: the author's share of the future-message buffer is full", ErrTooFarAhead)
	}
	for c.buffered >= c.cfg.FutureMessagesLimit {
		var top uint64
		for s := range c.future {
			top = max(top, s)
		}
		if top == 0 || top <= m.View.Sequence {
			return ErrTooFarAhead // m is the one to drop
		}
		for _, o := range c.future[top] {
			c.futureBy[o.Author]--
			if c.futureBy[o.Author] == 0 {
				delete(c.futureBy, o.Author)
			}
		}
		c.buffered -= len(c.future[top])
		delete(c.future, top)
	}
	c.future[m.View.Sequence] = append(c.future[m.View.Sequence], m)
	c.futureBy[m.Author]++
	c.buffered++
	return nil
}

// futureShare is how many messages of later heights one author may have
// kept: FutureMessagesLimit divided among the current validators,
// rounded up.
func (c *Core) futureShare() int {
	n := max(1, len(c.height.Validators))
	return (c.cfg.FutureMessagesLimit + n - 1) / n
}

func (c *Core) keepFutureRound(m *Message) error {
	if c.buffered >= c.cfg.FutureMessagesLimit {
		return ErrTooFarAhead
	}
	for _, o := range c.futureRounds[m.View.Round] {
		if o.Kind == m.Kind && o.Author == m.Author {
			return ErrDuplicate
		}
	}
	c.futureRounds[m.View.Round] = append(c.futureRounds[m.View.Round], m)
	c.buffered++
	return nil
}

func (c *Core) handleProposal(m *Message) ([]Action, error) {
	if m.View.Round < c.round {
		return nil, ErrOldMessage
	}
	if m.Author != c.proposer(m.View.Round) {
		return nil, ErrWrongProposer
	}
	if m.Block == nil || m.Block.NumberU64() != m.View.Sequence {
		return nil, fmt.Errorf("%w: block number", ErrInvalidBlock)
	}
	if m.View.Round == c.round && c.rs.proposal != nil {
		return nil, ErrDuplicate
	}
	digest, err := c.b.Digest(m.Block)
	if err != nil || digest != m.Digest {
		return nil, ErrInvalidDigest
	}
	if c.rules.roundInHeader() {
		if r, err := c.b.BlockRound(m.Block); err != nil || r != m.View.Round {
			return nil, fmt.Errorf("%w: header round differs from the proposal's", ErrInvalidBlock)
		}
	}
	if m.View.Round == 0 {
		if len(m.RoundChanges) != 0 || len(m.Prepares) != 0 {
			return nil, fmt.Errorf("%w: round-change certificate in round 0", ErrInvalidCert)
		}
	} else if err := c.rules.checkJustification(c, m); err != nil {
		return nil, err
	}
	if err := c.b.Verify(m.Block); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidBlock, err)
	}
	var acts []Action
	if m.View.Round > c.round {
		// A valid round-change certificate proves a quorum moved on.
		acts = c.startRound(m.View.Round)
		if c.rs.proposal != nil {
			return acts, nil
		}
	}
	c.rs.proposal, c.rs.digest = m, digest
	if c.cfg.Self != m.Author && c.IsValidator() {
		acts = append(acts, c.prepare()...)
	}
	return append(acts, c.progress()...), nil
}

// prepare sends the local validator's Prepare of the round's proposal.
func (c *Core) prepare() []Action {
	p := &Message{Kind: KindPrepare, View: c.View(), Author: c.cfg.Self, Digest: c.rs.digest}
	if err := c.b.Sign(p); err != nil {
		return nil
	}
	c.rs.prepares[c.cfg.Self] = p
	return []Action{Broadcast{Msg: p}}
}

func (c *Core) handlePrepare(m *Message) ([]Action, error) {
	if !c.rules.proposerPrepares() && m.Author == c.proposer(c.round) {
		return nil, ErrPrepareProposer
	}
	if _, dup := c.rs.prepares[m.Author]; dup {
		return nil, ErrDuplicate
	}
	if c.rs.proposal != nil && m.Digest != c.rs.digest {
		return nil, ErrInvalidDigest
	}
	c.rs.prepares[m.Author] = m
	return c.progress(), nil
}

func (c *Core) handleCommit(m *Message) ([]Action, error) {
	if _, dup := c.rs.commits[m.Author]; dup {
		return nil, ErrDuplicate
	}
	if c.rs.proposal != nil && m.Digest != c.rs.digest {
		return nil, ErrInvalidDigest
	}
	if c.rs.proposal == nil && !c.rules.roundInHeader() {
		// The seal is checked once the proposal names the block.
		c.rs.commits[m.Author], c.rs.unsealed[m.Author] = m, true
		return nil, nil
	}
	if !c.validSeal(m) {
		return nil, ErrInvalidSeal
	}
	c.rs.commits[m.Author] = m
	return c.progress(), nil
}

// validSeal checks a commit's seal. Before the proposal is known the seal
// can only be checked against the digest, which is what IBFT 2.0 seals
// sign.
func (c *Core) validSeal(m *Message) bool {
	h := m.Digest
	if c.rs.proposal != nil {
		var err error
		if h, err = c.b.SealHash(c.rs.proposal.Block, c.round); err != nil {
			return false
		}
	}
	signer, err := c.b.SealSigner(h, m.CommitSeal)
	return err == nil && signer == m.Author
}

// checkUnsealed checks the seals of the commits that came before the
// proposal, dropping the invalid ones.
func (c *Core) checkUnsealed() {
	for a := range c.rs.unsealed {
		delete(c.rs.unsealed, a)
		if m := c.rs.commits[a]; m.Digest == c.rs.digest && !c.validSeal(m) {
			delete(c.rs.commits, a)
		}
	}
}

// progress sends the commit once the round is prepared and commits the
// block once a quorum committed. Prepares and commits that arrived before
// the proposal count only if they name its digest.
func (c *Core) progress() []Action {
	rs := c.rs
	if rs.proposal == nil {
		return nil
	}
	c.checkUnsealed()
	need := c.quorum() - 1
	if c.rules.proposerPrepares() {
		need = c.quorum()
	}
	var acts []Action
	if !rs.sentCommt && c.IsValidator() && c.count(rs.prepares) >= need {
		rs.sentCommt = true
		cert := &PreparedCertificate{Proposal: rs.proposal, PreparedRound: c.round, PreparedDigest: rs.digest}
		if c.rules.proposerPrepares() {
			cert.Proposal = nil // QBFT certificates name the round and digest
		}
		cert.Prepares = c.matching(rs.prepares)
		c.prepared = &preparedRecord{cert: cert, block: rs.proposal.Block}
		hash, err := c.b.SealHash(rs.proposal.Block, c.round)
		var seal []byte
		if err == nil {
			seal, err = c.b.CommitSeal(hash)
		}
		if err == nil {
			cm := &Message{Kind: KindCommit, View: c.View(), Author: c.cfg.Self, Digest: rs.digest, CommitSeal: seal}
			if err := c.b.Sign(cm); err == nil {
				rs.commits[c.cfg.Self] = cm
				acts = append(acts, Broadcast{Msg: cm})
			}
		}
	}
	if commits := c.matching(rs.commits); len(commits) >= c.quorum() {
		c.committed = true
		seals := make([][]byte, len(commits))
		for i, cm := range commits {
			seals[i] = cm.CommitSeal
		}
		acts = append(acts, CommitBlock{Block: rs.proposal.Block, Round: c.round, Seals: seals})
	}
	return acts
}

func (c *Core) count(msgs map[common.Address]*Message) int { return len(c.matching(msgs)) }

// matching returns the messages naming the round's digest, by author.
func (c *Core) matching(msgs map[common.Address]*Message) []*Message {
	out := make([]*Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Digest == c.rs.digest {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *Message) int { return bytes.Compare(a.Author[:], b.Author[:]) })
	return out
}

func (c *Core) handleRoundChange(m *Message) ([]Action, error) {
	if m.View.Round < c.round || m.View.Round == 0 {
		return nil, ErrOldMessage
	}
	if m.Prepared != nil {
		if err := c.rules.checkPrepared(c, m.Prepared, m.View.Round); err != nil {
			return nil, err
		}
		if m.Block == nil {
			return nil, fmt.Errorf("%w: prepared certificate without its block", ErrInvalidCert)
		}
		d, err := c.b.Digest(m.Block)
		if err != nil || d != m.Prepared.Digest() {
			return nil, fmt.Errorf("%w: prepared block does not match its certificate", ErrInvalidCert)
		}
	} else if m.Block != nil {
		return nil, fmt.Errorf("%w: block without a prepared certificate", ErrInvalidCert)
	}
	if _, dup := c.roundChanges[m.View.Round][m.Author]; dup {
		return nil, ErrDuplicate
	}
	return c.addRoundChange(m), nil
}

// addRoundChange records a valid RoundChange; on a quorum for a round not
// below the current one the core moves there, and its proposer proposes.
func (c *Core) addRoundChange(m *Message) []Action {
	r := m.View.Round
	if c.roundChanges[r] == nil {
		c.roundChanges[r] = map[common.Address]*Message{}
	}
	c.roundChanges[r][m.Author] = m
	if len(c.roundChanges[r]) < c.quorum() {
		return c.catchUp()
	}
	var acts []Action
	if r > c.round {
		acts = c.startRound(r)
	}
	if r != c.round || c.proposer(r) != c.cfg.Self || c.rs.proposal != nil || c.rs.building {
		return acts
	}
	cert := make([]*Message, 0, len(c.roundChanges[r]))
	for _, rc := range c.roundChanges[r] {
		cert = append(cert, rc)
	}
	slices.SortFunc(cert, func(a, b *Message) int { return bytes.Compare(a.Author[:], b.Author[:]) })
	c.rs.cert, c.rs.certPrepares = cert, nil
	if best := bestPrepared(cert); best != nil {
		// A block may have been committed by some in the prepared round:
		// re-propose it, in this round, rather than a new one.
		block, err := c.b.WithRound(best.Block, r)
		if err != nil {
			return acts
		}
		c.rs.certPrepares = best.Prepared.Prepares
		return append(acts, c.propose(block)...)
	}
	c.rs.building = true
	return append(acts, BuildBlock{View: c.View(), MinTime: c.minTime()})
}

// catchUp moves a validator that fell behind in rounds (it restarted, or
// was cut off) to where the others are: once f+1 validators, so at least
// one honest one, asked for rounds above the current one, it moves to the
// lowest of those rounds and asks for it too. Without it a late validator
// climbs one round timeout at a time while the others wait ever longer,
// each round's timer doubling. (QBFT's rule; Besu's IBFT 2.0 waits.)
func (c *Core) catchUp() []Action {
	if !c.IsValidator() {
		return nil
	}
	ahead := map[common.Address]uint32{}
	for r, rcs := range c.roundChanges {
		if r <= c.round {
			continue
		}
		for a := range rcs {
			if cur, ok := ahead[a]; !ok || r < cur {
				ahead[a] = r
			}
		}
	}
	if len(ahead) < FaultTolerance(len(c.height.Validators))+1 {
		return nil
	}
	target := uint32(0)
	for _, r := range ahead {
		if target == 0 || r < target {
			target = r
		}
	}
	return c.changeRound(target)
}

// bestPrepared returns the round change with the latest prepared
// certificate, or nil when none carries one.
func bestPrepared(rcs []*Message) *Message {
	var best *Message
	for _, rc := range rcs {
		if rc.Prepared != nil && (best == nil || rc.Prepared.Round() > best.Prepared.Round()) {
			best = rc
		}
	}
	return best
}

// Proposed hands the core the block it asked for with BuildBlock. A block
// for another view, or once the round has a proposal, is ignored.
func (c *Core) Proposed(v View, block *types.Block) []Action {
	if c.height == nil || c.committed || v != c.View() || c.rs.proposal != nil {
		return nil
	}
	c.rs.building = false
	return c.propose(block)
}

func (c *Core) propose(block *types.Block) []Action {
	digest, err := c.b.Digest(block)
	if err != nil {
		return nil
	}
	m := &Message{Kind: KindProposal, View: c.View(), Author: c.cfg.Self, Digest: digest, Block: block}
	if c.round > 0 {
		m.RoundChanges = c.rs.cert
		if c.rules.proposerPrepares() {
			m.Prepares = c.rs.certPrepares
		}
	}
	if err := c.b.Sign(m); err != nil {
		return nil
	}
	c.rs.proposal, c.rs.digest = m, digest
	acts := []Action{Broadcast{Msg: m}}
	if c.rules.proposerPrepares() {
		acts = append(acts, c.prepare()...)
	}
	return append(acts, c.progress()...)
}
