package localnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Files of a running network's supervisor in its directory.
const (
	pidFile   = "network.pid"   // the supervisor's PID while it runs
	readyFile = "network.ready" // written once the first block is produced
)

// Options are the supervisor's: where progress and logs go.
type Options struct {
	// Out receives progress and the endpoint table.
	Out io.Writer
	// Verbose, when set, receives every process's output, each line
	// prefixed with the process's name.
	Verbose io.Writer
	// Changed reports whether an option was given on the command line:
	// resuming a network, a given option must match the manifest.
	Changed func(option string) bool
}

// Network is a network's supervisor: it owns the child processes.
type Network struct {
	dir  string
	m    *Manifest
	opts Options
	bins binaries

	spawn     *spawner
	verboseMu sync.Mutex

	managers []*child
	nodes    []*child
	signer   *child
}

// Prepare checks everything `up` needs before anything is started or
// written: dir is empty (a new network of s, created here) or a stopped
// network's (resumed, with its own settings), the binaries are found, and
// every port is free.
func Prepare(dir string, s Settings, opts Options) (*Network, error) {
	m, err := dirState(dir)
	if err != nil {
		return nil, err
	}
	if m != nil {
		if pid, ok := runningPID(dir); ok {
			return nil, fmt.Errorf("the network in %s is already running (supervisor PID %d); stop it with `basalt network down --dir %s`", dir, pid, dir)
		}
		if err := sameSettings(dir, m.Settings, s, opts.Changed); err != nil {
			return nil, err
		}
		s = m.Settings
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	bins, err := findBinaries(s)
	if err != nil {
		return nil, err
	}
	if err := portsFree(s.Ports()); err != nil {
		return nil, err
	}
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	if w := ephemeralOverlap(s, ephemeralRangeFile); w != "" {
		fmt.Fprintln(opts.Out, w)
	}
	if m == nil {
		if m, err = create(dir, s); err != nil {
			return nil, err
		}
	}
	return &Network{dir: dir, m: m, opts: opts, bins: bins}, nil
}

// Manifest is the network's manifest.
func (n *Network) Manifest() *Manifest { return n.m }

// sameSettings checks that the options given for a resumed network are
// its own.
func sameSettings(dir string, have, want Settings, changed func(string) bool) error {
	if changed == nil {
		return nil
	}
	diff := func(opt string, a, b any) error {
		if changed(opt) && a != b {
			return fmt.Errorf("%s holds another network (--%s %v, not %v): leave --%s out to resume it, or choose another --dir", dir, opt, a, b, opt)
		}
		return nil
	}
	return errors.Join(
		diff("validators", have.Validators, want.Validators),
		diff("consensus", have.Consensus, want.Consensus),
		diff("privacy", have.Privacy, want.Privacy),
		diff("signer", have.Signer, want.Signer),
		diff("base-port", have.BasePort, want.BasePort),
		diff("milestone", have.Milestone, want.Milestone),
		diff("block-period", period(have), period(want)),
	)
}

// period is s's block period, 0 when invalid (compared, not parsed:
// "1s" and "1000ms" are one period).
func period(s Settings) time.Duration {
	d, _ := s.Period()
	return d
}

// portsFree checks every port can be listened on at 127.0.0.1.
func portsFree(ports []int) error {
	var taken []string
	for _, p := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			taken = append(taken, strconv.Itoa(p))
			continue
		}
		l.Close()
	}
	if len(taken) > 0 {
		return fmt.Errorf("port %s already in use: stop what listens there or choose another --base-port (the network uses %d ports per validator from it)",
			strings.Join(taken, ", "), portStride)
	}
	return nil
}

// binaries are the programs the network runs.
type binaries struct{ basalt, privacy, signer string }

// findBinaries finds basalt (this program), and basalt-privacy and
// basalt-signer when needed: next to basalt, else on PATH.
func findBinaries(s Settings) (binaries, error) {
	self, err := os.Executable()
	if err != nil {
		return binaries{}, err
	}
	b := binaries{basalt: self}
	find := func(name string) (string, error) {
		if p := filepath.Join(filepath.Dir(self), name); isExecutable(p) {
			return p, nil
		}
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		if p, ok := buildFromCheckout(name); ok {
			return p, nil
		}
		return "", fmt.Errorf("%s not found next to %s nor on PATH: install it with `go install ./cmd/...` (or build it next to basalt: go build -o %s ./cmd/%s)",
			name, self, filepath.Dir(self), name)
	}
	if s.Privacy {
		if b.privacy, err = find("basalt-privacy"); err != nil {
			return b, err
		}
	}
	if s.Signer {
		if b.signer, err = find("basalt-signer"); err != nil {
			return b, err
		}
	}
	return b, nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// runningPID returns the PID of dir's supervisor if it is running.
func runningPID(dir string) (int, bool) {
	data, err := os.ReadFile(filepath.Join(dir, pidFile))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil {
		return 0, false
	}
	// A supervisor killed with SIGKILL leaves its PID file behind, and the
	// PID may since be another program's: where /proc says, it must be a
	// `network up`.
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && !strings.Contains(string(cmdline), "network\x00up") {
		return 0, false
	}
	return pid, true
}

// abs is a manifest path, relative to the network's directory, made
// absolute.
func (n *Network) abs(rel string) string {
	p, err := filepath.Abs(filepath.Join(n.dir, rel))
	if err != nil {
		return filepath.Join(n.dir, rel)
	}
	return p
}

// Run starts the network, reports it once its first block is produced
// and supervises it until ctx ends (Ctrl-C) or a process exits; it then
// stops every process in order: signer, nodes, privacy managers.
func (n *Network) Run(ctx context.Context) error {
	start := time.Now()
	if err := os.WriteFile(filepath.Join(n.dir, pidFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return err
	}
	os.Remove(filepath.Join(n.dir, readyFile))
	n.spawn = newSpawner()
	defer func() {
		n.stop()
		n.spawn.close()
		os.Remove(filepath.Join(n.dir, readyFile))
		os.Remove(filepath.Join(n.dir, pidFile))
	}()
	height, err := n.startAll(ctx)
	if err == nil {
		err = n.waitBlock(ctx, height)
	}
	if err != nil {
		if ctx.Err() != nil {
			// Ctrl-C during start-up: a stop, not a failure.
			fmt.Fprintln(n.opts.Out, "stopping the network")
			return nil
		}
		return err
	}
	n.printTable(time.Since(start))
	if err := os.WriteFile(filepath.Join(n.dir, readyFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		fmt.Fprintln(n.opts.Out, "stopping the network")
		return nil
	case c := <-n.anyExit():
		return fmt.Errorf("%s exited (%v); see %s", c.name, c.err, filepath.Join(n.dir, "logs", c.name+".log"))
	}
}

// stop stops the signer, then the nodes, then the privacy managers.
func (n *Network) stop() {
	stopAll([]*child{n.signer}, 10*time.Second)
	stopAll(n.nodes, 20*time.Second)
	stopAll(n.managers, 10*time.Second)
}

// all lists every started child.
func (n *Network) all() []*child {
	cs := append(append([]*child{}, n.managers...), n.nodes...)
	if n.signer != nil {
		cs = append(cs, n.signer)
	}
	return cs
}

// anyExit delivers the first child to exit.
func (n *Network) anyExit() <-chan *child {
	ch := make(chan *child, len(n.all()))
	for _, c := range n.all() {
		go func() {
			<-c.done
			ch <- c
		}()
	}
	return ch
}

// startAll starts the managers, the nodes and the signer, each group once
// the previous answers, and returns node 1's height once all answer.
func (n *Network) startAll(ctx context.Context) (uint64, error) {
	m := n.m
	if m.Privacy {
		for _, nd := range m.Nodes {
			c, err := n.startChild(nd.Name+"-privacy", n.bins.privacy, n.abs(nd.PrivacyConfig))
			if err != nil {
				return 0, err
			}
			n.managers = append(n.managers, c)
		}
		for i, nd := range m.Nodes {
			if err := n.waitUp(ctx, n.managers[i], "answer /upcheck", func() bool {
				_, ok := get(ctx, nd.PrivacyURL+"/upcheck")
				return ok
			}); err != nil {
				return 0, err
			}
		}
	}
	for i, nd := range m.Nodes {
		c, err := n.startChild(nd.Name, n.bins.basalt, n.nodeArgs(i)...)
		if err != nil {
			return 0, err
		}
		n.nodes = append(n.nodes, c)
	}
	var height uint64
	for i, nd := range m.Nodes {
		if err := n.waitUp(ctx, n.nodes[i], "answer JSON-RPC", func() bool {
			h, err := blockNumber(ctx, nd.HTTP)
			if i == 0 {
				height = h
			}
			return err == nil
		}); err != nil {
			return 0, err
		}
	}
	if m.Signer {
		c, err := n.startChild("signer", n.bins.signer, n.signerArgs()...)
		if err != nil {
			return 0, err
		}
		n.signer = c
		if err := n.waitUp(ctx, c, "answer /upcheck", func() bool {
			_, ok := get(ctx, m.SignerURL+"/upcheck")
			return ok
		}); err != nil {
			return 0, err
		}
	}
	return height, nil
}

// waitUp polls up until it holds, failing if c exits or ctx ends first.
func (n *Network) waitUp(ctx context.Context, c *child, what string, up func() bool) error {
	deadline := time.Now().Add(60 * time.Second)
	for !up() {
		if c.exited() {
			return fmt.Errorf("%s exited during start-up (%v); its log:\n%s", c.name, c.err, tailFile(filepath.Join(n.dir, "logs", c.name+".log"), 30))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not %s within a minute; see %s", c.name, what, filepath.Join(n.dir, "logs", c.name+".log"))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
	return nil
}

// waitBlock waits until node 1 is past height: the network produces
// blocks. With privacy it also waits until every manager knows every
// other, so a private transaction can reach any member.
func (n *Network) waitBlock(ctx context.Context, height uint64) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		h, err := blockNumber(ctx, n.m.Nodes[0].HTTP)
		if err == nil && h > height && n.managersMeshed(ctx) {
			return nil
		}
		for _, c := range n.all() {
			if c.exited() {
				return fmt.Errorf("%s exited during start-up (%v); its log:\n%s", c.name, c.err, tailFile(filepath.Join(n.dir, "logs", c.name+".log"), 30))
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no block after height %d within two minutes; see the logs in %s", height, filepath.Join(n.dir, "logs"))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// managersMeshed reports whether every privacy manager knows all the
// others (true without privacy).
func (n *Network) managersMeshed(ctx context.Context) bool {
	if !n.m.Privacy {
		return true
	}
	for _, nd := range n.m.Nodes {
		body, ok := get(ctx, nd.PrivacyURL+"/knownnodes")
		if !ok {
			return false
		}
		for _, other := range n.m.Nodes {
			if other.Name == nd.Name {
				continue // a manager does not list itself
			}
			if !strings.Contains(string(body), strings.TrimSuffix(other.PrivacyNodeURL, "/")) {
				return false
			}
		}
	}
	return true
}

// MaxFutureBySender is the nodes' --tx-pool-max-future-by-sender. Besu's
// default, 200, lets one sender have 200 transactions in flight: 200 tx/s
// at one-second blocks. Load tools and enterprise back ends often send
// from one key (Caliper's ethereum connector: one account per worker), so
// the network takes ten seconds of 1,000 tx/s from one sender: a
// transaction waits for the block after next at that rate, and a burst
// the chain absorbs more slowly still fits. The pool (27,000 transactions
// by default) bounds it all the same.
const MaxFutureBySender = 10_000

// MaxPeers is the nodes' --max-peers in a network of n validators: every
// other validator and room for outside peers (a GoQuorum or Besu node
// joined to the network, a client syncing it). With Besu's default (25)
// a network of 30 is not a full mesh: each node redials the validators it
// has no room for every second, and consensus messages reach them only
// relayed.
func MaxPeers(n int) int { return max(25, n-1+10) }

// nodeArgs are node i's options.
func (n *Network) nodeArgs(i int) []string {
	m, nd := n.m, n.m.Nodes[i]
	s := m.Settings
	apis := "ETH,NET,WEB3,ADMIN,TXPOOL,DEBUG," + map[string]string{"qbft": "QBFT", "ibft2": "IBFT", "clique": "CLIQUE"}[s.Consensus]
	if s.Privacy {
		apis += ",EEA,PRIV"
	}
	args := []string{
		"--data-path=" + n.abs(nd.DataDir),
		"--genesis-file=" + n.abs(m.Genesis),
		"--node-private-key-file=" + n.abs(nd.KeyFile),
		"--p2p-enabled", "--p2p-host=127.0.0.1", "--p2p-interface=127.0.0.1",
		"--p2p-port=" + strconv.Itoa(nd.P2PPort),
		"--discovery-enabled=false",
		"--static-nodes-file=" + n.abs("static-nodes.json"),
		"--max-peers=" + strconv.Itoa(MaxPeers(s.Validators)),
		"--Xp2p-static-reconnect-seconds=1",
		"--rpc-http-enabled", "--rpc-http-host=127.0.0.1", "--rpc-http-port=" + strconv.Itoa(s.port(i, offHTTP)),
		"--rpc-http-api=" + apis, "--rpc-http-cors-origins=*",
		"--rpc-ws-enabled", "--rpc-ws-host=127.0.0.1", "--rpc-ws-port=" + strconv.Itoa(s.port(i, offWS)),
		"--rpc-ws-api=" + apis,
		"--graphql-http-enabled", "--graphql-http-host=127.0.0.1", "--graphql-http-port=" + strconv.Itoa(s.port(i, offGraphQL)),
		"--metrics-enabled", "--metrics-host=127.0.0.1", "--metrics-port=" + strconv.Itoa(s.port(i, offMetrics)),
		// A development network: the base fee prices public transactions;
		// private ones (gas price 0 by default, as in Besu) are not refused.
		"--min-gas-price=0",
		"--tx-pool-max-future-by-sender=" + strconv.Itoa(MaxFutureBySender),
	}
	if s.Privacy {
		args = append(args, "--privacy-enabled", "--privacy-url="+nd.PrivacyURL,
			"--privacy-public-key-file="+n.abs(nd.PrivacyKeyFile),
			"--privacy-marker-transaction-signing-key-file="+n.abs(nd.MarkerKeyFile))
	}
	return args
}

// signerArgs are the signer's options: in front of node 1, holding the
// first dev key.
func (n *Network) signerArgs() []string {
	s := n.m.Settings
	return []string{
		"--chain-id=" + strconv.FormatUint(n.m.ChainID, 10),
		"--downstream-http-host=127.0.0.1", "--downstream-http-port=" + strconv.Itoa(s.port(0, offHTTP)),
		"--http-listen-host=127.0.0.1", "--http-listen-port=" + strconv.Itoa(s.port(0, offSigner)),
		"--http-cors-origins=*",
		"raw-signer", "--key", n.m.DevKey,
	}
}

// tailFile returns the last lines of a file.
func tailFile(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	ls := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}

// Running reports the PID of the supervisor of the network in dir, if it
// runs.
func Running(dir string) (int, bool) { return runningPID(dir) }
