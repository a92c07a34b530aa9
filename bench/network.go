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
}

// networkResult is a network run: the network and its tps figures.
type networkResult struct {
	Dir        string     `json:"dir"`
	Validators int        `json:"validators"`
	Consensus  string     `json:"consensus"`
	Started    bool       `json:"started"` // the harness started (and stopped) the network
	TPS        *tpsResult `json:"tps"`
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
	return r, err
}

// startNetwork runs `basalt network up --detach` for o.
func startNetwork(ctx context.Context, o networkOptions, logf func(string, ...any)) error {
	args := []string{"network", "up", "--detach", "--dir", o.Dir}
	if _, err := localnet.ReadManifest(o.Dir); errors.Is(err, fs.ErrNotExist) {
		// A new network; an existing one resumes with its own settings.
		args = append(args, "--validators", strconv.Itoa(o.Validators), "--consensus", o.Consensus, "--base-port", strconv.Itoa(o.BasePort))
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
