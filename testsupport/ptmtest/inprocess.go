package ptmtest

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/ptm/config"
	"github.com/basaltchain/basalt/ptm/instance"
	"github.com/basaltchain/basalt/ptm/keys"
)

// InProcess is an instance running inside the test process.
type InProcess struct {
	*API
	Inst *instance.Instance
	Conf Conf
	Keys []keys.PublicKey
}

// StartInProcess writes c's config, loads it like the binary does and starts
// the instance; it is closed when the test ends (or by Close).
func StartInProcess(t testing.TB, c Conf) *InProcess {
	t.Helper()
	path, ks := c.Write(t)
	cfg, err := config.Load(path, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	in, err := instance.Start(context.Background(), cfg, instance.Options{Version: "test", Log: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return &InProcess{API: NewAPI(in.ClientURL()), Inst: in, Conf: c, Keys: ks}
}

// NodeAPI returns an API for the instance's node port.
func (p *InProcess) NodeAPI() *API { return NewAPI(p.Inst.NodeURL()) }

// Close stops the instance.
func (p *InProcess) Close() { p.Inst.Close() }

// testLogger logs through t.Log when the test runs with -v, else discards.
func testLogger(t testing.TB) *slog.Logger {
	if !testing.Verbose() {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
