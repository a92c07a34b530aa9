package docgen

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records Errorf instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestCheck: a page equal to what the code writes passes; a stale or
// missing one fails naming the regenerate command; with update it is
// rewritten and then passes.
func TestCheck(t *testing.T) {
	file := filepath.Join(t.TempDir(), "page.md")
	for _, tc := range []struct {
		name, on, want string
		fails          bool
	}{
		{"missing", "", "# A\n", true},
		{"stale", "# A\n", "# B\n", true},
		{"fresh", "# B\n", "# B\n", false},
	} {
		if tc.on != "" {
			if err := os.WriteFile(file, []byte(tc.on), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r := &recorder{TB: t}
		check(r, file, "docs/page.md", tc.want, false)
		if got := len(r.errors) > 0; got != tc.fails {
			t.Errorf("%s: failed %v, want %v (%v)", tc.name, got, tc.fails, r.errors)
		}
	}
	r := &recorder{TB: t}
	check(r, file, "docs/page.md", "# C\n", true)
	check(r, file, "docs/page.md", "# C\n", false)
	if len(r.errors) > 0 {
		t.Errorf("after update: %v", r.errors)
	}
}
