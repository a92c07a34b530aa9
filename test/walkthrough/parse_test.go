package walkthrough

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// configPage is the page whose walkthrough writes config/example.toml.
const configPage = "docs/get-started/config-file.md"

// TestSampleConfig: the config file the config-file page's walkthrough
// writes is config/example.toml, so the sample in the repository is the one
// a node starts with in the test.
func TestSampleConfig(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, configPage))
	if err != nil {
		t.Fatal(err)
	}
	const start, end = "cat > config.toml <<'TOML'\n", "\nTOML\n"
	_, rest, ok := strings.Cut(string(readme), start)
	shown, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatal(configPage + " does not write config.toml")
	}
	sample, err := os.ReadFile(filepath.Join(root, "config", "example.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if shown+"\n" != string(sample) {
		t.Errorf(configPage+"'s config.toml differs from config/example.toml:\n%s\n---\n%s", shown, sample)
	}
}

// TestAnnotations checks the annotation grammar and the expected-output
// patterns.
func TestAnnotations(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want block
		err  string
	}{
		{in: "node", want: block{name: "node"}},
		{in: "node background wait=8545", want: block{name: "node", background: true, wait: "8545"}},
		{in: "node stop", want: block{name: "node", stop: true}},
		{in: "skip -- needs Vault", want: block{skip: "needs Vault"}},
		{in: "skip -- ", err: "a skip needs a reason"},
		{in: "skip", err: "want a walkthrough name"},
		{in: "node wait=8545", err: "wait= needs background"},
		{in: "node fast", err: `unknown word "fast"`},
	} {
		var b block
		err := b.annotate(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || b != tc.want):
			t.Errorf("%q: %+v %v, want %+v", tc.in, b, err, tc.want)
		}
	}
	b := block{line: 10, text: "curl x\n# {\"result\":\"0x…\"}\n# not output\n  # [1,...]\n"}
	es := b.expectations()
	if len(es) != 2 || es[0].line != 12 || es[1].line != 14 {
		t.Fatalf("expectations %+v", es)
	}
	for _, tc := range []struct {
		out  string
		want bool
	}{
		{`{"result":"0x1f"}`, true},
		{`prefix {"result":"0x"} suffix`, true},
		{`{"result":"0x1f"`, false},
		{"{\"result\":\"0x\n\"}", false}, // … stays within a line
	} {
		if got := es[0].pattern.MatchString(tc.out); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.out, got, tc.want)
		}
	}
}
