package localnet

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBuildFromCheckout: run from this checkout (as `go run ./cmd/basalt`
// is), a companion program that is not installed is built and runs.
func TestBuildFromCheckout(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no Go toolchain")
	}
	p, ok := buildFromCheckout("basalt-signer")
	if !ok {
		t.Fatal("basalt-signer not built from the checkout")
	}
	out, err := exec.Command(p, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "basalt") {
		t.Fatalf("%s --version: %v: %s", p, err, out)
	}
}
