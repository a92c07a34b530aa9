package ethash

import (
	"math"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

const (
	// meterTick is the interval at which the local hash count is folded into
	// the moving average.
	meterTick = time.Second
	// meterWindow is the time constant of the exponential moving average.
	meterWindow = 10 * time.Second
	// meterIdle is how long without a local hash before the local rate
	// reads 0 (a miner between two Seal calls is not idle; one that stopped is).
	meterIdle = 3 * time.Second
	// remoteRateTTL is how long a rate reported by eth_submitHashrate counts.
	remoteRateTTL = 10 * time.Second
)

// hashMeter measures the local hash rate as an exponentially weighted moving
// average over 1-second ticks (time constant 10 s), folded lazily whenever
// hashes are marked or the rate is read, so it needs no goroutine of its own.
// It also keeps the rates remote miners report through eth_submitHashrate.
type hashMeter struct {
	mu       sync.Mutex
	now      func() time.Time
	pending  uint64    // hashes since lastTick
	lastTick time.Time // start of the current tick
	lastMark time.Time // last time a local hash was marked
	rate     float64   // hashes per second
	started  bool      // rate holds a value (the first tick initialises it)
	remote   map[common.Hash]remoteRate
}

type remoteRate struct {
	rate uint64
	seen time.Time
}

func newHashMeter(now func() time.Time) *hashMeter {
	return &hashMeter{now: now, remote: make(map[common.Hash]remoteRate)}
}

// mark records n locally computed hashes.
func (m *hashMeter) mark(n uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.fold(now)
	if m.lastTick.IsZero() {
		m.lastTick = now
	}
	m.pending += n
	m.lastMark = now
}

// fold applies the ticks elapsed up to now. Called with mu held.
func (m *hashMeter) fold(now time.Time) {
	if m.lastTick.IsZero() {
		return
	}
	if now.Sub(m.lastMark) > meterIdle {
		// Idle: forget the average so a restarted miner starts afresh.
		m.pending, m.rate, m.started = 0, 0, false
		m.lastTick = time.Time{}
		return
	}
	elapsed := now.Sub(m.lastTick)
	if elapsed < meterTick {
		return
	}
	ticks := int(elapsed / meterTick)
	alpha := 1 - math.Exp(-float64(meterTick)/float64(meterWindow))
	instant := float64(m.pending) / elapsed.Seconds()
	if !m.started {
		m.rate, m.started = instant, true
	} else {
		// The pending hashes spread over all elapsed ticks.
		for range ticks {
			m.rate += alpha * (instant - m.rate)
		}
	}
	m.pending = 0
	m.lastTick = m.lastTick.Add(time.Duration(ticks) * meterTick)
}

// submit records the rate a remote miner reported.
func (m *hashMeter) submit(id common.Hash, rate uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.expireRemote(now) // keeps the map bounded even if nobody reads the rate
	m.remote[id] = remoteRate{rate: rate, seen: now}
}

// expireRemote drops remote reports older than remoteRateTTL. Called with mu
// held.
func (m *hashMeter) expireRemote(now time.Time) {
	for id, r := range m.remote {
		if now.Sub(r.seen) > remoteRateTTL {
			delete(m.remote, id)
		}
	}
}

// total returns the local moving average plus the remote rates reported in
// the last 10 seconds.
func (m *hashMeter) total() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.fold(now)
	total := 0.0
	switch {
	case m.started:
		total = m.rate
	case m.pending > 0:
		// Less than a tick of history: report what there is.
		if elapsed := now.Sub(m.lastTick).Seconds(); elapsed > 0 {
			total = float64(m.pending) / elapsed
		}
	}
	m.expireRemote(now)
	for _, r := range m.remote {
		total += float64(r.rate)
	}
	return total
}
