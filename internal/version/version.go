// Package version says which build of Basalt is running. The three
// programs (basalt, basalt-signer, basalt-privacy) come from one module and
// report one version, taken from the build itself rather than from a
// constant someone must remember to change:
//
//   - a release build's -ldflags "-X github.com/basaltchain/basalt/internal/version.override=v1.2.0";
//   - else the module version the Go toolchain stamped: v1.2.0 for
//     `go install github.com/basaltchain/basalt/cmd/...@v1.2.0`, and, since
//     Go 1.24, a version or pseudo-version from the repository's tags for
//     `go build`/`go install` in a git checkout (with +dirty for local
//     changes);
//   - else the commit the toolchain recorded (vcs.revision), as
//     v0.1.0-dev+<12 hex digits>[.dirty];
//   - else v0.1.0-dev (go run, -buildvcs=false, a checkout without git).
//
// ClientID formats it the way Besu names itself to peers and in
// web3_clientVersion: basalt/[identity/]v…/linux-amd64/go1.26.8.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// override is set at link time for release builds (see the package doc).
var override string

// fallback is the version of a build that records nothing about itself.
const fallback = "v0.1.0-dev"

var (
	once   sync.Once
	cached string
)

// Version returns the version of this build, e.g. "v0.1.0" or
// "v0.1.0-dev+4f1c2a9b03de.dirty" (see the package doc).
func Version() string {
	once.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			bi = nil
		}
		cached = fromBuild(override, bi)
	})
	return cached
}

// fromBuild picks the version from the link-time override and the build
// information (nil when the binary has none).
func fromBuild(override string, bi *debug.BuildInfo) string {
	if override != "" {
		return override
	}
	if bi == nil {
		return fallback
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return fallback
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := fallback + "+" + rev
	if dirty {
		v += ".dirty"
	}
	return v
}

// Platform is the operating system and architecture the binary runs on,
// with its Go version, as the last two parts of a client ID:
// "linux-amd64/go1.26.8" (Besu: "linux-x86_64/openjdk-java-17").
func Platform() string {
	return runtime.GOOS + "-" + runtime.GOARCH + "/" + runtime.Version()
}

// ClientID is how a program names itself to clients and peers, Besu's
// shape (BesuInfo.nodeName): program/[identity/]version/platform, e.g.
// "basalt/v0.1.0/linux-amd64/go1.26.8", or with --identity=MyNode
// "basalt/MyNode/v0.1.0/linux-amd64/go1.26.8". Spaces in identity are kept,
// as Besu keeps them; a "/" in it is replaced by "-" so that the parts stay
// parseable.
func ClientID(program, identity string) string {
	parts := []string{program}
	if identity = strings.TrimSpace(identity); identity != "" {
		parts = append(parts, strings.ReplaceAll(identity, "/", "-"))
	}
	return strings.Join(append(parts, Version(), Platform()), "/")
}
