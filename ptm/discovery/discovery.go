package discovery

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Orion's discovery timing: each URL is polled after a delay that starts at
// 500 ms and doubles after every poll up to 60 s; a poll times out after
// 1.5 s.
const (
	DefaultFirstDelay = 500 * time.Millisecond
	DefaultMaxDelay   = 60 * time.Second
	DefaultTimeout    = 1500 * time.Millisecond
)

// Poller posts this instance's CBOR party info to a node URL's /partyinfo
// and returns the CBOR reply.
type Poller interface {
	PartyInfo(ctx context.Context, nodeURL string, body []byte) ([]byte, error)
}

// Discovery polls the boot nodes and every URL in the table.
type Discovery struct {
	Table     *Table
	Poller    Poller
	BootNodes []string
	Log       *slog.Logger
	// Timing; zero values mean the Default* constants.
	FirstDelay, MaxDelay, Timeout time.Duration
}

// Run polls until ctx is done: one goroutine per known URL (other than this
// instance's own), started as URLs appear. It returns when all have stopped.
func (d *Discovery) Run(ctx context.Context) {
	first, maxDelay, timeout := d.FirstDelay, d.MaxDelay, d.Timeout
	if first <= 0 {
		first = DefaultFirstDelay
	}
	if maxDelay <= 0 {
		maxDelay = DefaultMaxDelay
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	polling := map[string]bool{d.Table.Self(): true}
	start := func(u string) {
		if polling[u] {
			return
		}
		polling[u] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.pollLoop(ctx, u, first, maxDelay, timeout, log)
		}()
	}
	for {
		for _, u := range d.BootNodes {
			start(u)
		}
		for _, u := range d.Table.URLs() {
			start(u)
		}
		select {
		case <-ctx.Done():
			return
		case <-d.Table.Changed():
		}
	}
}

func (d *Discovery) pollLoop(ctx context.Context, nodeURL string, delay, maxDelay, timeout time.Duration, log *slog.Logger) {
	timer := time.NewTimer(delay)
	defer timer.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		err := d.poll(ctx, nodeURL, timeout, log)
		switch {
		case err != nil && !failing:
			log.Warn("party info poll failed", "url", nodeURL, "err", err)
			failing = true
		case err != nil:
			log.Debug("party info poll failed", "url", nodeURL, "err", err)
		case failing:
			log.Info("party info poll succeeded again", "url", nodeURL)
			failing = false
		}
		delay = min(2*delay, maxDelay)
		timer.Reset(delay)
	}
}

func (d *Discovery) poll(ctx context.Context, nodeURL string, timeout time.Duration, log *slog.Logger) error {
	body, err := d.Table.PartyInfo().Encode()
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	reply, err := d.Poller.PartyInfo(pctx, nodeURL, body)
	if err != nil {
		return err
	}
	_, entries, err := DecodePartyInfo(reply)
	if err != nil {
		return err
	}
	n, err := d.Table.Merge(ctx, entries)
	if n > 0 {
		log.Info("discovered keys", "from", nodeURL, "added", n)
	}
	return err
}
