package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuild(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	rev := "4f1c2a9b03de5e6f7a8b9c0d1e2f3a4b5c6d7e8f"
	for _, tc := range []struct {
		name     string
		override string
		bi       *debug.BuildInfo
		want     string
	}{
		{"link-time override wins", "v1.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.1.0"}}, "v1.2.0"},
		{"go install @version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.1.0"}}, "v1.1.0"},
		{"pseudo-version from the checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20260101120000-4f1c2a9b03de+dirty"}},
			"v0.1.1-0.20260101120000-4f1c2a9b03de+dirty"},
		{"commit only", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, "v0.1.0-dev+4f1c2a9b03de"},
		{"commit with local changes", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, "v0.1.0-dev+4f1c2a9b03de.dirty"},
		{"nothing recorded", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v0.1.0-dev"},
		{"no build information", "", nil, "v0.1.0-dev"},
	} {
		if got := fromBuild(tc.override, tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestClientID(t *testing.T) {
	v, p := Version(), runtime.GOOS+"-"+runtime.GOARCH+"/"+runtime.Version()
	if !strings.HasPrefix(v, "v") {
		t.Fatalf("Version() = %q", v)
	}
	for _, tc := range []struct{ identity, want string }{
		{"", "basalt/" + v + "/" + p},
		{"  ", "basalt/" + v + "/" + p},
		{"MyNode", "basalt/MyNode/" + v + "/" + p},
		{"a/b", "basalt/a-b/" + v + "/" + p},
	} {
		if got := ClientID("basalt", tc.identity); got != tc.want {
			t.Errorf("ClientID(%q) = %q, want %q", tc.identity, got, tc.want)
		}
	}
}
