package discovery

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/basaltchain/basalt/internal/defaults"
	"github.com/basaltchain/basalt/ptm/keys"
)

// Orion's discovery timing: each URL is polled after a delay that starts at
// 500 ms and doubles after every poll up to 60 s; a poll times out after
// 1.5 s.
const (
	DefaultFirstDelay = 500 * time.Millisecond
	DefaultMaxDelay   = 60 * time.Second
	DefaultTimeout    = 1500 * time.Millisecond
	// DefaultEvictAfter is how long a listed instance may stay unreachable
	// before its entries are dropped.
	DefaultEvictAfter = 10 * time.Minute
	// DefaultProvers is the number of proofs run at once.
	DefaultProvers = 4
)

// Poller calls other instances' node APIs.
type Poller interface {
	// PartyInfo posts this instance's CBOR party info to a node URL's
	// /partyinfo and returns the CBOR reply.
	PartyInfo(ctx context.Context, nodeURL string, body []byte) ([]byte, error)
	// Validate posts a CBOR ValidateRequest to a node URL's
	// /partyinfo/validate and returns the CBOR ValidateReply.
	Validate(ctx context.Context, nodeURL string, body []byte) ([]byte, error)
}

// Discovery polls the boot nodes and the listed instances, and proves the
// claims the table queues.
type Discovery struct {
	Table     *Table
	Poller    Poller
	BootNodes []string
	Log       *slog.Logger
	// Timing; zero values mean the Default* constants. EvictAfter < 0
	// never evicts.
	FirstDelay, MaxDelay, Timeout, EvictAfter time.Duration
	// Provers is the number of proofs run at once (0: DefaultProvers).
	Provers int
	// Rand is the source of challenges (nil: crypto/rand).
	Rand io.Reader
}

func (d *Discovery) defaults() {
	d.FirstDelay = defaults.Positive(d.FirstDelay, DefaultFirstDelay)
	d.MaxDelay = defaults.Positive(d.MaxDelay, DefaultMaxDelay)
	d.Timeout = defaults.Positive(d.Timeout, DefaultTimeout)
	d.EvictAfter = cmp.Or(d.EvictAfter, DefaultEvictAfter)
	d.Provers = defaults.Positive(d.Provers, DefaultProvers)
	if d.Rand == nil {
		d.Rand = rand.Reader
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
}

// poller is one URL's poll loop.
type poller struct {
	cancel context.CancelFunc
	kick   chan struct{}
}

// Run polls and proves until ctx is done: one goroutine per URL polled (the
// boot nodes and the listed instances, started and stopped as the table
// changes) and Provers goroutines taking claims from the table. When the
// table changes every poll is brought forward, so news spreads in about a
// second rather than at the next, up to 60 s away. Run returns when all its
// goroutines have stopped.
func (d *Discovery) Run(ctx context.Context) {
	d.defaults()
	var wg sync.WaitGroup
	defer wg.Wait()
	for range d.Provers {
		wg.Go(func() { d.proveLoop(ctx) })
	}
	boot := map[string]bool{}
	for _, u := range d.BootNodes {
		if c, err := Canonical(u); err == nil && c != d.Table.Self() {
			boot[c] = true
		}
	}
	loops := map[string]*poller{}
	refresh := func(kick bool) {
		want := map[string]bool{}
		for u := range boot {
			want[u] = true
		}
		for _, u := range d.Table.Peers() {
			want[u] = true
		}
		for u := range want {
			if p, ok := loops[u]; ok {
				if kick {
					signal(p.kick)
				}
				continue
			}
			pctx, cancel := context.WithCancel(ctx)
			p := &poller{cancel: cancel, kick: make(chan struct{}, 1)}
			loops[u] = p
			wg.Go(func() { d.pollLoop(pctx, u, boot[u], p.kick) })
		}
		for u, p := range loops {
			if !want[u] {
				p.cancel()
				delete(loops, u)
			}
		}
	}
	refresh(false)
	for {
		select {
		case <-ctx.Done():
			for _, p := range loops {
				p.cancel()
			}
			return
		case <-d.Table.Changed():
			refresh(true)
		}
	}
}

func (d *Discovery) pollLoop(ctx context.Context, u string, boot bool, kick <-chan struct{}) {
	delay := d.FirstDelay
	timer := time.NewTimer(delay)
	defer timer.Stop()
	var failingSince time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
			delay = d.FirstDelay
			timer.Reset(delay)
			continue
		case <-timer.C:
		}
		err := d.poll(ctx, u)
		switch {
		case err != nil && failingSince.IsZero():
			d.Log.Warn("party info poll failed", "url", u, "err", err)
			failingSince = time.Now()
		case err != nil:
			d.Log.Debug("party info poll failed", "url", u, "err", err)
			if d.EvictAfter > 0 && time.Since(failingSince) >= d.EvictAfter && d.Table.IsPeer(u) {
				if n, err := d.Table.Evict(ctx, u); err != nil {
					d.Log.Warn("evict unreachable instance", "url", u, "err", err)
				} else if n > 0 {
					d.Log.Warn("evicted unreachable instance", "url", u, "keys", n, "unreachable for", time.Since(failingSince).Round(time.Second))
				}
			}
		case !failingSince.IsZero():
			d.Log.Info("party info poll succeeded again", "url", u)
			failingSince = time.Time{}
			// It may have restarted with other keys: prove them again.
			d.Table.Recheck(u)
		}
		if ctx.Err() != nil {
			return
		}
		delay = min(2*delay, d.MaxDelay)
		timer.Reset(delay)
	}
}

// poll sends u what it may know of the table and offers its answer for
// proof. When u is listed and no longer claims a key listed at it, its keys
// are proven again.
func (d *Discovery) poll(ctx context.Context, u string) error {
	body, err := d.Table.PartyInfoFor(u).Encode()
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	reply, err := d.Poller.PartyInfo(pctx, u, body)
	if err != nil {
		return err
	}
	_, entries, err := DecodePartyInfo(reply)
	if err != nil {
		return err
	}
	st := d.Table.Offer(entries)
	switch {
	case st.Dropped > 0:
		d.Log.Warn("party info over the limits (maxpeers, maxkeysperpeer): claims dropped", "from", u, "queued", st.Queued, "dropped", st.Dropped)
	case st.Queued > 0:
		d.Log.Debug("party info claims queued for proof", "from", u, "queued", st.Queued)
	}
	for _, k := range d.Table.KeysAt(u) {
		if entries[k] != u {
			d.Table.Recheck(u)
			break
		}
	}
	return nil
}

func (d *Discovery) proveLoop(ctx context.Context) {
	for {
		c, ok := d.Table.Next()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-d.Table.Ready():
				continue
			}
		}
		if len(c.Keys) > 0 {
			d.prove(ctx, c)
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// challenge asks u to prove ks and returns what it proved. An error means
// u could not be asked (unreachable, or no proof endpoint).
func (d *Discovery) challenge(ctx context.Context, u string, ks []keys.PublicKey) (proven, failed []keys.PublicKey, err error) {
	proof, body, err := NewProof(d.Rand, u, ks)
	if err != nil {
		return nil, nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	reply, err := d.Poller.Validate(pctx, u, body)
	if err != nil {
		return nil, nil, err
	}
	proven, failed, err = proof.Check(reply)
	if err != nil {
		// A malformed answer proves nothing.
		return nil, ks, nil
	}
	return proven, failed, nil
}

// prove challenges a claim and applies the outcome to the table.
func (d *Discovery) prove(ctx context.Context, c Claim) {
	proven, failed, err := d.challenge(ctx, c.URL, c.Keys)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		var st interface{ HTTPStatus() int }
		if errors.As(err, &st) && st.HTTPStatus() == http.StatusNotFound {
			// An instance without the proof route (Orion, an older
			// basalt-privacy): its keys can never be listed.
			d.Log.Warn("instance cannot prove the keys it claims (no /partyinfo/validate: Orion?); they are not used", "url", c.URL, "keys", len(c.Keys))
			if !c.Recheck {
				d.Table.Cool(c.URL, RefusedCooldown)
			}
			return
		}
		d.Log.Debug("could not challenge claimed keys", "url", c.URL, "keys", len(c.Keys), "err", err)
		if !c.Recheck {
			// Unreachable listed instances are the eviction's business.
			d.Table.Cool(c.URL, UnreachableCooldown)
		}
		return
	}
	if len(failed) > 0 {
		d.Log.Warn("instance did not prove the keys it claims; they are not used for it", "url", c.URL, "failed", len(failed), "proven", len(proven))
		if _, err := d.Table.Forget(ctx, c.URL, failed); err != nil {
			d.Log.Warn("update node table", "err", err)
		}
	}
	if len(proven) == 0 {
		d.Table.Cool(c.URL, RefusedCooldown)
		return
	}
	added, conflicts, err := d.Table.Prove(ctx, c.URL, proven)
	if err != nil {
		d.Log.Warn("update node table", "err", err)
	}
	if len(added) > 0 {
		d.Log.Info("instance proved its keys", "url", c.URL, "keys", len(added))
	}
	for k, old := range conflicts {
		// Both URLs hold k now? Keep the listed one while it still
		// proves k; move k when it does not (the owner moved).
		stillProven, _, err := d.challenge(ctx, old, []keys.PublicKey{k})
		if err == nil && len(stillProven) == 1 {
			d.Table.Settle(k, c.URL, RefusedCooldown)
			continue
		}
		if moved, err := d.Table.Replace(ctx, k, old, c.URL); err != nil {
			d.Log.Warn("update node table", "err", err)
		} else if moved {
			d.Log.Info("key moved to the instance that proves it", "key", k.String(), "from", old, "to", c.URL)
		}
	}
}
