package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// importOptions configure the import mode.
type importOptions struct {
	Genesis string
	Chain   string
	// Clients are NAME:PATH pairs; NAME (basalt or geth, optionally with a
	// suffix: basalt-main) says how to run the binary at PATH.
	Clients []string
	Runs    int
	WorkDir string
	// Generate, when Chain is empty, makes a dev-network chain of that
	// many blocks of GenerateTxs transfers each to import (Basalt only).
	Generate    int
	GenerateTxs int
}

// importRun is one client importing the chain once.
type importRun struct {
	Client    string  `json:"client"`
	Run       int     `json:"run"`
	WallSecs  float64 `json:"wallSeconds"`
	CPUSecs   float64 `json:"cpuSeconds"`
	MaxRSSMiB float64 `json:"maxRSSMiB"`
	// ImportSecs is the import time the client reports itself (basalt's
	// "Imported … in Xs", go-ethereum's "Import done in …"), 0 if none.
	ImportSecs float64 `json:"importSeconds"`
	Mgasps     float64 `json:"mgasPerSec"`
}

// importResult is the import mode's figures.
type importResult struct {
	Blocks int         `json:"blocks"`
	Mgas   float64     `json:"mgas"`
	Runs   []importRun `json:"runs"`
	// Median wall seconds and Mgas/s per client.
	MedianWallSecs map[string]float64 `json:"medianWallSeconds"`
	MedianMgasps   map[string]float64 `json:"medianMgasPerSec"`
}

func runImport(ctx context.Context, o importOptions, logf func(string, ...any)) (*importResult, error) {
	if len(o.Clients) == 0 || (o.Chain == "" && o.Generate == 0) || (o.Chain != "" && o.Genesis == "") {
		return nil, errors.New("import needs --genesis and --chain (or --generate N) and at least one --client NAME:PATH")
	}
	work := o.WorkDir
	if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "bench-import-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
	}
	if o.Chain == "" {
		var err error
		if o.Genesis, o.Chain, err = generateChain(ctx, work, o.Generate, o.GenerateTxs); err != nil {
			return nil, err
		}
	}
	blocks, gas, err := chainGas(o.Chain)
	if err != nil {
		return nil, err
	}
	res := &importResult{Blocks: blocks, Mgas: float64(gas) / 1e6, MedianWallSecs: map[string]float64{}, MedianMgasps: map[string]float64{}}
	logf("chain %s: %d blocks, %.1f Mgas", o.Chain, blocks, res.Mgas)
	// Interleave the clients (A, B, A, B, …) so that load from elsewhere on
	// the machine falls on all of them alike.
	for run := 1; run <= o.Runs; run++ {
		for _, spec := range o.Clients {
			name, bin, ok := strings.Cut(spec, ":")
			if !ok {
				return nil, fmt.Errorf("--client %q: want NAME:PATH (basalt:/path/to/basalt or geth:/path/to/geth)", spec)
			}
			dir := filepath.Join(work, fmt.Sprintf("%s-%d", name, run))
			r, err := importOnce(ctx, name, bin, dir, o.Genesis, o.Chain)
			os.RemoveAll(dir)
			if err != nil {
				return nil, err
			}
			r.Run = run
			secs := r.WallSecs
			if r.ImportSecs > 0 {
				secs = r.ImportSecs
			}
			r.Mgasps = res.Mgas / secs
			logf("%-8s run %d: %.2fs process (%.2fs import, %.0f Mgas/s), %.2fs CPU, %.0f MiB max RSS",
				name, run, r.WallSecs, r.ImportSecs, r.Mgasps, r.CPUSecs, r.MaxRSSMiB)
			res.Runs = append(res.Runs, *r)
		}
	}
	for _, spec := range o.Clients {
		name, _, _ := strings.Cut(spec, ":")
		var walls, rates []float64
		for _, r := range res.Runs {
			if r.Client == name {
				walls, rates = append(walls, r.WallSecs), append(rates, r.Mgasps)
			}
		}
		res.MedianWallSecs[name], res.MedianMgasps[name] = median(walls), median(rates)
	}
	return res, nil
}

var (
	basaltImported = regexp.MustCompile(`Imported \d+ blocks .* in ([0-9.]+)s`)
	gethImportDone = regexp.MustCompile(`Import done in ([0-9.]+[a-zµ]+)`)
)

// importOnce runs one client's import into a fresh data directory.
func importOnce(ctx context.Context, name, bin, dir, genesis, chainFile string) (*importRun, error) {
	var steps [][]string
	switch kind, _, _ := strings.Cut(name, "-"); kind {
	case "basalt":
		steps = [][]string{{"--data-path=" + dir, "--genesis-file=" + genesis, "blocks", "import", "--no-progress", "--from=" + chainFile}}
	case "geth":
		steps = [][]string{
			{"--datadir", dir, "init", genesis},
			{"--datadir", dir, "import", chainFile},
		}
	default:
		return nil, fmt.Errorf("unknown client %q (basalt or geth, optionally with a -suffix)", name)
	}
	r := &importRun{Client: name}
	for i, args := range steps {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s %s: %w\n%s", bin, strings.Join(args, " "), err, tail(out.Bytes()))
		}
		if i < len(steps)-1 {
			continue // geth init is set-up, not import
		}
		r.WallSecs = time.Since(start).Seconds()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.CPUSecs = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
			r.MaxRSSMiB = float64(ru.Maxrss) / 1024 // KiB on Linux
		}
		if m := basaltImported.FindSubmatch(out.Bytes()); m != nil {
			r.ImportSecs, _ = strconv.ParseFloat(string(m[1]), 64)
		} else if m := gethImportDone.FindSubmatch(out.Bytes()); m != nil {
			if d, err := time.ParseDuration(strings.ReplaceAll(string(m[1]), "µ", "u")); err == nil {
				r.ImportSecs = d.Seconds()
			}
		}
	}
	return r, nil
}

// chainGas counts the blocks of a concatenated-RLP chain file and their gas.
func chainGas(path string) (blocks int, gas uint64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	s := rlp.NewStream(bufio.NewReader(f), 0)
	for {
		var b types.Block
		if err := s.Decode(&b); err == io.EOF {
			return blocks, gas, nil
		} else if err != nil {
			return 0, 0, fmt.Errorf("%s block %d: %w", path, blocks+1, err)
		}
		blocks++
		gas += b.GasUsed()
	}
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
