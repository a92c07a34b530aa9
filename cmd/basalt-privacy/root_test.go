package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/internal/version"
	"github.com/basaltchain/basalt/ptm/keys"
)

func runCLI(t *testing.T, ctx context.Context, stdin string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code := execute(ctx, args, strings.NewReader(stdin), &out, &out)
	return code, out.String()
}

func TestVersionAndUsage(t *testing.T) {
	ctx := context.Background()
	if code, out := runCLI(t, ctx, "", "--version"); code != 0 || out != version.ClientID("basalt-privacy", "")+"\n" {
		t.Errorf("--version: %d %q", code, out)
	}
	if code, out := runCLI(t, ctx, "", "--help"); code != 0 || !strings.Contains(out, "--generatekeys") || !strings.Contains(out, "ORION_<KEY>") {
		t.Errorf("--help: %d %q", code, out)
	}
	if code, _ := runCLI(t, ctx, "", "--bogus"); code != exitUsage {
		t.Errorf("unknown flag: exit %d", code)
	}
	if code, out := runCLI(t, ctx, "", filepath.Join(t.TempDir(), "missing.conf")); code != exitError || !strings.Contains(out, "missing.conf") {
		t.Errorf("missing config: %d %q", code, out)
	}
}

func TestGenerateKeys(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	code, out := runCLI(t, context.Background(), "\n\n", "-g", a+","+b)
	if code != 0 || strings.Count(out, "Enter password for key pair") != 2 {
		t.Fatalf("%d %s", code, out)
	}
	for _, base := range []string{a, b} {
		pub, err := keys.ReadPublicKeyFile(base + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		sk, err := keys.ReadPrivateKeyFile(base+".key", nil)
		if err != nil {
			t.Fatal(err)
		}
		if derived, _ := keys.PublicFor(sk); derived != pub {
			t.Errorf("%s: key pair mismatch", base)
		}
		if st, _ := os.Stat(base + ".key"); st.Mode().Perm() != 0o600 {
			t.Errorf("%s.key mode %v", base, st.Mode())
		}
	}
	if code, _ := runCLI(t, context.Background(), "", "-g", ","); code != exitUsage {
		t.Errorf("empty key name: exit %d", code)
	}
}

// TestRunStops starts the program in process on free ports and cancels it.
func TestRunStops(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "orion.conf")
	os.WriteFile(conf, []byte("nodeport = 0\nclientport = 0\nstorage = \"memory\"\nworkdir = \""+dir+"\"\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var out bytes.Buffer
	go func() { done <- execute(ctx, []string{conf}, strings.NewReader(""), &out, &out) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "orion.ports")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("did not stop")
	}
}

func TestLogLevel(t *testing.T) {
	if logLevel(0) != slog.LevelError || logLevel(1) != slog.LevelInfo || logLevel(2) != slog.LevelDebug || logLevel(4) >= slog.LevelDebug {
		t.Error("verbosity mapping")
	}
}
