package localnet

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// modulePath is the module the companion programs are built from when they
// are not installed.
const modulePath = "github.com/basaltchain/basalt"

// buildFromCheckout builds cmd/name when basalt runs from a checkout of its
// module (`go run ./cmd/basalt network up`, which builds basalt alone), so the
// quickstart needs nothing installed. The binary goes to a per-user folder
// under the temporary directory; the Go build cache makes later builds quick.
// It reports false when there is no Go toolchain or the working directory is
// not in the module.
func buildFromCheckout(name string) (string, bool) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", false
	}
	want := modulePath
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != "" {
		want = bi.Main.Path
	}
	out, err := exec.Command(gobin, "list", "-m", "-f", "{{.Path}}\t{{.Dir}}").Output()
	if err != nil {
		return "", false
	}
	path, dir, ok := strings.Cut(strings.TrimSpace(string(out)), "\t")
	if !ok || path != want {
		return "", false
	}
	target := filepath.Join(os.TempDir(), fmt.Sprintf("basalt-network-bin-%d", os.Getuid()), name)
	fmt.Fprintf(os.Stderr, "building %s from %s (not found next to basalt nor on PATH)\n", name, dir)
	cmd := exec.Command(gobin, "build", "-o", target, "./cmd/"+name)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", false
	}
	return target, true
}
