package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/node"
)

// newLogger returns the node's logger: --logging-format TEXT (slog's
// key=value lines) or JSON (one object per line, for log pipelines), at the
// --logging level, with Besu's level names (TRACE and ALL, which slog
// would print as DEBUG-4 and DEBUG-1048572).
func newLogger(w io.Writer, cfg *config.Config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel, ReplaceAttr: levelNames}
	if cfg.LogFormat == "JSON" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// levelNames writes the levels below DEBUG as Besu names them.
func levelNames(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 || a.Key != slog.LevelKey {
		return a
	}
	if l, ok := a.Value.Any().(slog.Level); ok && l < slog.LevelDebug {
		name := "ALL"
		if l >= config.LevelTrace {
			name = "TRACE"
		}
		return slog.String(slog.LevelKey, name)
	}
	return a
}

// printPaths prints what --print-paths-and-exit shows: the files and
// directories the node reads and writes, so that an operator can set their
// owner and permissions before the first start.
func printPaths(w io.Writer, cfg *config.Config) {
	paths := []struct{ what, path string }{
		{"data path", cfg.DataPath},
		{"database", node.DatabaseDir(cfg.DataPath)},
		{"node key", cfg.NodePrivateKeyFile},
		{"static nodes", cfg.P2P.StaticNodesFile},
	}
	if cfg.PIDPath != "" {
		paths = append(paths, struct{ what, path string }{"pid file", cfg.PIDPath})
	}
	for _, p := range paths {
		fmt.Fprintf(w, "%-13s %s\n", p.what+":", p.path)
	}
}

// writePIDFile writes the process ID to path (--pid-path) and returns the
// function that removes it at exit. An existing file is replaced: a
// leftover from a crashed run must not stop the node.
func writePIDFile(path string) (remove func(), err error) {
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("--pid-path: %w", err)
	}
	return func() {
		// Remove only our own file: another run may have replaced it.
		if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(os.Getpid()) {
			os.Remove(path)
		}
	}, nil
}
