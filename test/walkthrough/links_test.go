package walkthrough

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/internal/docgen"
)

// pending are pages the documentation map links that are written on other
// branches at the same time as it; a link to one of them is accepted while
// the file is absent. Remove an entry once its page is merged.
var pending = map[string]bool{}

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`^#+ (.*)$`)
	nonSlug = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// slug is GitHub's anchor of a heading: lower case, punctuation dropped,
// spaces as dashes.
func slug(h string) string {
	return strings.ReplaceAll(nonSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
}

// proseLines returns the lines of a markdown file outside code fences.
func proseLines(text string) []string {
	var out []string
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
			continue
		}
		if !fence {
			out = append(out, l)
		}
	}
	return out
}

// anchors returns the heading anchors of a markdown file.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, l := range proseLines(text) {
		if m := heading.FindStringSubmatch(l); m != nil {
			out[slug(m[1])] = true
		}
	}
	return out
}

// TestLinks: every relative link of README.md and the docs/ pages leads to a
// file of the repository (never outside it) and, with a #fragment into a
// markdown file, to one of its headings.
func TestLinks(t *testing.T) {
	texts := map[string]string{}
	read := func(p string) (string, bool) {
		if s, ok := texts[p]; ok {
			return s, true
		}
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return "", false
		}
		texts[p] = string(b)
		return string(b), true
	}
	for _, page := range pages(t) {
		text, ok := read(page)
		if !ok {
			t.Fatalf("cannot read %s", page)
		}
		for n, l := range proseLines(text) {
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				file := page
				if path != "" {
					file = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), path)))
				}
				if file == ".." || strings.HasPrefix(file, "../") {
					t.Errorf("%s (prose line %d): %s points outside the repository", page, n+1, target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, file)); err != nil {
					if !pending[file] {
						t.Errorf("%s (prose line %d): %s: no such file %s", page, n+1, target, file)
					}
					continue
				}
				if frag == "" || !strings.HasSuffix(file, ".md") {
					continue
				}
				body, _ := read(file)
				if !anchors(body)[frag] {
					t.Errorf("%s (prose line %d): %s: %s has no heading #%s", page, n+1, target, file, frag)
				}
			}
		}
	}
}

// TestSlug checks the anchor rule on headings the pages use.
func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Simulating blocks (eth_simulateV1)":            "simulating-blocks-eth_simulatev1",
		"A consortium network (local permissioning)":    "a-consortium-network-local-permissioning",
		"Caliper — the simple workload beside GoQuorum": "caliper--the-simple-workload-beside-goquorum",
		"`network up`": "network-up",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}

// TestRegenerateCommand: the documentation map gives the command that
// regenerates the generated reference pages, the one their staleness
// errors name.
func TestRegenerateCommand(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\n"+docgen.Command+"\n") {
		t.Errorf("docs/README.md does not give the command %q", docgen.Command)
	}
}

// TestIndex: every page under docs/ is linked from the map, docs/README.md,
// so a newcomer can find it.
func TestIndex(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, l := range proseLines(string(b)) {
		for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
			path, _, _ := strings.Cut(m[1], "#")
			linked[filepath.ToSlash(filepath.Join("docs", path))] = true
		}
	}
	for _, p := range pages(t) {
		if strings.HasPrefix(p, "docs/") && p != "docs/README.md" && !linked[p] {
			t.Errorf("%s is not linked from docs/README.md", p)
		}
	}
}
