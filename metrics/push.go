package metrics

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/push"
	"github.com/prometheus/common/expfmt"
)

// Push defaults (Besu's --metrics-push-*).
const (
	DefaultPushPort     = 9001
	DefaultPushInterval = 15 * time.Second
	DefaultPushJob      = "besu-client"
)

// PushConfig configures pushing to a Prometheus push gateway
// (--metrics-push-*).
type PushConfig struct {
	// Host and Port are the gateway's address.
	Host string
	Port int
	// Interval is the time between pushes; 0 means DefaultPushInterval.
	Interval time.Duration
	// Job is the job label the metrics are grouped under; "" means
	// DefaultPushJob.
	Job string
	// Logger receives push failures; nil discards them.
	Logger *slog.Logger
}

// Pusher pushes a registry to a push gateway on an interval, as Besu's
// MetricsPushGatewayService does: the first push at once, then one per
// interval, each adding to (not replacing) the job's group; on Stop the
// job's metrics are deleted from the gateway, so a stopped node does not
// look alive there.
type Pusher struct {
	p        *push.Pusher
	interval time.Duration
	log      *slog.Logger
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// StartPush starts pushing r; Stop ends it.
func (r *Registry) StartPush(cfg PushConfig) *Pusher {
	interval := cfg.Interval
	if interval <= 0 {
		interval = DefaultPushInterval
	}
	job := cfg.Job
	if job == "" {
		job = DefaultPushJob
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	url := "http://" + net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	client := &http.Client{Timeout: min(interval, 10*time.Second)}
	ps := &Pusher{
		// Text, as Besu's simpleclient pushes (push's default is protobuf).
		p:        push.New(url, job).Gatherer(r.Gatherer()).Client(client).Format(expfmt.FmtText),
		interval: interval,
		log:      log,
	}
	ctx, cancel := context.WithCancel(context.Background())
	ps.cancel = cancel
	ps.wg.Add(1)
	go func() {
		defer ps.wg.Done()
		ps.run(ctx)
	}()
	log.Info("Pushing metrics", "gateway", url, "job", job, "interval", interval)
	return ps
}

func (ps *Pusher) run(ctx context.Context) {
	t := time.NewTicker(ps.interval)
	defer t.Stop()
	failing := false
	for {
		err := ps.p.AddContext(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !failing:
			// Once per outage, not once per interval.
			ps.log.Warn("Could not push metrics", "err", err)
			failing = true
		case err == nil && failing:
			ps.log.Info("Pushing metrics again")
			failing = false
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Stop ends the pushes and deletes the job's metrics from the gateway.
func (ps *Pusher) Stop() {
	if ps == nil || ps.cancel == nil {
		return
	}
	ps.cancel()
	ps.wg.Wait()
	ps.cancel = nil
	if err := ps.p.Delete(); err != nil {
		ps.log.Debug("Could not delete the pushed metrics", "err", err)
	}
}
