package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/basaltchain/basalt/bench/quorumnet"
	"github.com/basaltchain/basalt/localnet"
)

// networkOptions are the network mode's: which network, and how to start
// one when --dir holds none running.
type networkOptions struct {
	Dir        string
	Basalt     string // basalt binary that starts the network
	Validators int
	Consensus  string
	BasePort   int
	// BlockPeriod is --block-period of a network the harness starts ("":
	// network up's default).
	BlockPeriod string
	// GoQuorum, when set, is GoQuorum's geth: after Basalt's network the
	// same load runs on 4 GoQuorum QBFT validators (bench/quorumnet) from
	// GoQuorumPort.
	GoQuorum     string
	GoQuorumPort int
}

// networkResult is a network run: the network and its tps figures.
type networkResult struct {
	Dir        string     `json:"dir"`
	Validators int        `json:"validators"`
	Consensus  string     `json:"consensus"`
	Started    bool       `json:"started"` // the harness started (and stopped) the network
	TPS        *tpsResult `json:"tps"`
	Load       string     `json:"loadAvg"` // /proc/loadavg (1, 5, 15 min) when the load ended
	// GoQuorum is the same load on GoQuorum's network, and Ratio Basalt's
	// end-to-end TPS over GoQuorum's.
	GoQuorum     *tpsResult `json:"goquorum,omitempty"`
	GoQuorumLoad string     `json:"goquorumLoadAvg,omitempty"`
	Ratio        float64    `json:"ratio,omitempty"`
}

// loadAvg is the machine's load average over 1, 5 and 15 minutes.
func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// runNetwork runs the tps load against node 1 of the network `basalt
// network up` runs in o.Dir, from the manifest's funded dev key; when no
// network runs there it starts one in the background (`up --detach`) and
// stops it afterwards.
func runNetwork(ctx context.Context, o networkOptions, t tpsOptions, logf func(string, ...any)) (*networkResult, error) {
	r := &networkResult{Dir: o.Dir}
	if _, ok := localnet.Running(o.Dir); !ok {
		if err := startNetwork(ctx, o, logf); err != nil {
			return nil, err
		}
		r.Started = true
		defer func() {
			if !r.Started {
				return // stopped already, before GoQuorum's run
			}
			logf("stopping the network in %s", o.Dir)
			if out, err := exec.Command(o.Basalt, "network", "down", "--dir", o.Dir).CombinedOutput(); err != nil {
				logf("network down: %v\n%s", err, out)
			}
		}()
	}
	m, err := localnet.ReadManifest(o.Dir)
	if err != nil {
		return nil, err
	}
	r.Validators, r.Consensus = m.Validators, m.Consensus
	t.URL = m.Nodes[0].HTTP
	logf("tps against %s (%d %s validators)", t.URL, m.Validators, m.Consensus)
	r.TPS, err = runTPS(ctx, t, m.DevKey, logf)
	r.Load = loadAvg()
	if err != nil || o.GoQuorum == "" {
		return r, err
	}
	if r.Started {
		// One network at a time on the machine.
		logf("stopping the network in %s", o.Dir)
		if out, err := exec.Command(o.Basalt, "network", "down", "--dir", o.Dir).CombinedOutput(); err != nil {
			logf("network down: %v\n%s", err, out)
		}
		r.Started = false // the JSON line's "started" is false then
	}
	qdir, err := os.MkdirTemp("", "bench-goquorum-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(qdir)
	q, err := quorumnet.Start(ctx, quorumnet.Options{Geth: o.GoQuorum, Dir: qdir, BasePort: o.GoQuorumPort, Log: logf,
		// Room for the whole load, as network up's pool has: geth's
		// defaults (4,096 pending, 16 per sender) drop a burst.
		ExtraArgs: []string{"--txpool.globalslots", "65536", "--txpool.accountslots", "16384",
			"--txpool.globalqueue", "65536", "--txpool.accountqueue", "16384"}})
	if err != nil {
		return r, fmt.Errorf("goquorum: %w", err)
	}
	defer q.Stop()
	t.URL, t.PID = q.HTTP[0], q.PIDs()[0]
	logf("the same load against GoQuorum at %s", t.URL)
	r.GoQuorum, err = runTPS(ctx, t, quorumnet.DevKey, logf)
	r.GoQuorumLoad = loadAvg()
	if err == nil && r.GoQuorum.TPS > 0 {
		r.Ratio = r.TPS.TPS / r.GoQuorum.TPS
		logf("Basalt %.0f tx/s, GoQuorum %.0f tx/s end to end: ratio %.2f", r.TPS.TPS, r.GoQuorum.TPS, r.Ratio)
	}
	return r, err
}

// startNetwork runs `basalt network up --detach` for o.
func startNetwork(ctx context.Context, o networkOptions, logf func(string, ...any)) error {
	args := []string{"network", "up", "--detach", "--dir", o.Dir}
	if _, err := localnet.ReadManifest(o.Dir); errors.Is(err, fs.ErrNotExist) {
		// A new network; an existing one resumes with its own settings.
		args = append(args, "--validators", strconv.Itoa(o.Validators), "--consensus", o.Consensus, "--base-port", strconv.Itoa(o.BasePort))
		if o.BlockPeriod != "" {
			args = append(args, "--block-period", o.BlockPeriod)
		}
	}
	logf("starting: %s %v", o.Basalt, args)
	cmd := exec.CommandContext(ctx, o.Basalt, args...)
	cmd.Stderr = os.Stderr
	if out, err := cmd.Output(); err != nil {
		return fmt.Errorf("basalt network up: %w\n%s", err, out)
	}
	return nil
}

// defaultBasalt is the basalt binary next to bench, else "basalt" (PATH).
func defaultBasalt() string {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "basalt")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return "basalt"
}
