package walkthrough

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

// root is the module root, from this package's directory.
const root = "../.."

// pages returns the pages whose walkthroughs run: README.md and every
// markdown file under docs/, in a stable order.
func pages(t *testing.T) []string {
	t.Helper()
	out := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out[1:])
	return out
}

// knownPorts are the ports the pages use; each walkthrough runs with free
// ports in their place.
var knownPorts = []string{"8545", "8546", "8547", "8555", "8565", "8575", "8590", "9545", "30303", "30304", "30305", "30306", "8888", "8889", "8890", "8080", "8081", "8082"}

// block is one ```sh block of a page with its annotation.
type block struct {
	file string
	line int // of the opening fence
	text string
	// name is the walkthrough; "" for a skipped block.
	name       string
	background bool
	wait       string // port to wait for after starting a background block
	stop       bool
	skip       string
}

var annotation = regexp.MustCompile(`^<!-- walkthrough: (.*) -->$`)

// parse returns the sh blocks of the page at path, failing the test for
// a block without an annotation or with a malformed one.
func parse(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []block
	var prev string
	var cur *block
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		case line == "```sh" || line == "```bash":
			cur = &block{file: path, line: n}
			m := annotation.FindStringSubmatch(prev)
			if m == nil {
				t.Errorf("%s:%d: a shell block without a walkthrough annotation (see test/walkthrough/doc.go)", path, n)
				cur.skip = "no annotation" // reported; not run as a step of anything
				break
			}
			if err := cur.annotate(m[1]); err != nil {
				t.Errorf("%s:%d: %v", path, n, err)
				cur.skip = "bad annotation"
			}
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// annotate reads an annotation's words into b.
func (b *block) annotate(s string) error {
	if reason, ok := strings.CutPrefix(s, "skip -- "); ok {
		if strings.TrimSpace(reason) == "" {
			return fmt.Errorf("a skip needs a reason")
		}
		b.skip = reason
		return nil
	}
	words := strings.Fields(s)
	if len(words) == 0 || words[0] == "skip" {
		return fmt.Errorf("annotation %q: want a walkthrough name, or skip -- <reason>", s)
	}
	b.name = words[0]
	for _, w := range words[1:] {
		switch {
		case w == "background":
			b.background = true
		case w == "stop":
			b.stop = true
		case strings.HasPrefix(w, "wait="):
			b.wait = strings.TrimPrefix(w, "wait=")
		default:
			return fmt.Errorf("annotation %q: unknown word %q", s, w)
		}
	}
	if b.wait != "" && !b.background {
		return fmt.Errorf("annotation %q: wait= needs background", s)
	}
	return nil
}

// expectation is a JSON line a page shows as a command's output.
type expectation struct {
	line    int
	text    string
	pattern *regexp.Regexp
}

// expectations returns the outputs b shows: comment lines holding JSON
// ("# {…}", "# […]"), as patterns in which "…" matches anything within a
// line.
func (b *block) expectations() []expectation {
	var out []expectation
	for i, l := range strings.Split(b.text, "\n") {
		c, ok := strings.CutPrefix(strings.TrimSpace(l), "# ")
		if !ok || (!strings.HasPrefix(c, "{") && !strings.HasPrefix(c, "[")) {
			continue
		}
		var re strings.Builder
		for j, part := range regexp.MustCompile(`…|\.\.\.`).Split(c, -1) {
			if j > 0 {
				re.WriteString(`[^\n]*?`)
			}
			re.WriteString(regexp.QuoteMeta(part))
		}
		out = append(out, expectation{line: b.line + 1 + i, text: c, pattern: regexp.MustCompile(re.String())})
	}
	return out
}

// TestWalkthroughs runs every walkthrough of README.md and of every page
// under docs/, and names the pages that hold none (only prose, or only
// skipped blocks, whose reasons it lists).
func TestWalkthroughs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the walkthroughs need %s", tool)
		}
	}
	bin := binaries(t)
	before := checkoutStatus(t)
	var idle []string
	for _, path := range pages(t) {
		walks := map[string][]block{}
		var order, skips []string
		for _, b := range parse(t, path) {
			if b.skip != "" {
				skips = append(skips, fmt.Sprintf("%s:%d: %s", b.file, b.line, b.skip))
				continue
			}
			if walks[b.name] == nil {
				order = append(order, b.name)
			}
			walks[b.name] = append(walks[b.name], b)
		}
		if len(skips) > 0 {
			t.Logf("blocks not run:\n  %s", strings.Join(skips, "\n  "))
		}
		if len(order) == 0 {
			idle = append(idle, path)
		}
		for _, name := range order {
			t.Run(path+"/"+name, func(t *testing.T) { run(t, bin, walks[name]) })
		}
	}
	t.Logf("pages without a walkthrough to run: %s", strings.Join(idle, ", "))
	if after := checkoutStatus(t); after != before {
		t.Errorf("the walkthroughs changed the checkout:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// binaries builds the three programs and returns a directory holding them
// under their names.
func binaries(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, pkg := range []string{"./cmd/basalt", "./cmd/basalt-privacy", "./cmd/basalt-signer"} {
		if err := os.Symlink(proctest.Build(t, pkg), filepath.Join(dir, filepath.Base(pkg))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkoutStatus is `git status --porcelain` of the checkout ("" when git
// cannot say), to catch a walkthrough that writes into it.
func checkoutStatus(t *testing.T) string {
	out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=all").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// marker separates the output of the steps.
const marker = "@@walkthrough-step "

// run runs the blocks of one walkthrough in one bash process in a new
// temporary directory.
func run(t *testing.T, bin string, blocks []block) {
	dir := t.TempDir()
	ports := map[string]string{}
	for _, p := range knownPorts {
		for {
			free := strconv.Itoa(proctest.FreePort(t))
			taken := false
			for _, q := range ports {
				taken = taken || q == free
			}
			if !taken {
				ports[p] = free
				break
			}
		}
	}
	portRE := regexp.MustCompile(`\b(` + strings.Join(knownPorts, "|") + `)\b`)
	rewrite := func(s string) string {
		return portRE.ReplaceAllStringFunc(s, func(p string) string { return ports[p] })
	}

	// Background steps run in subshells of the walkthrough's bash, all in
	// its process group (killed as a whole at the end); a stop step sends
	// their commands SIGTERM, as Ctrl-C in their terminal would SIGINT.
	var script strings.Builder
	script.WriteString(`set -euo pipefail
BG=()
stopall() { for p in "${BG[@]}"; do pkill -$1 -P $p 2>/dev/null || true; kill -$1 $p 2>/dev/null || true; done; }
trap 'stopall KILL' EXIT
`)
	for i, b := range blocks {
		fmt.Fprintf(&script, "echo; echo '%s%d'\n", marker, i)
		if b.stop {
			// SIGTERM: bash makes background commands ignore SIGINT;
			// basalt stops the same way on either.
			script.WriteString("stopall TERM\nfor p in \"${BG[@]}\"; do wait $p || true; done\nBG=()\n")
		}
		text := rewrite(b.text)
		if !b.background {
			script.WriteString(text)
			continue
		}
		fmt.Fprintf(&script, "( %s\n) > background-%d.log 2>&1 &\nBG+=($!)\n", text, i)
		if b.wait != "" {
			port, ok := ports[b.wait]
			if !ok {
				t.Fatalf("%s:%d: wait=%s is not one of the rewritten ports", b.file, b.line, b.wait)
			}
			fmt.Fprintf(&script, `up=
for i in $(seq 600); do
  if (exec 3<>/dev/tcp/127.0.0.1/%[1]s) 2>/dev/null; then up=1; break; fi
  if ! kill -0 $! 2>/dev/null; then break; fi
  sleep 0.1
done
if [ -z "$up" ]; then echo "the background step did not listen on port %[1]s" >&2; cat background-%[2]d.log >&2; exit 1; fi
`, port, i)
		}
	}
	script.WriteString("echo; echo '" + marker + "end'\n")

	// basalt's default ports move with the ones the text names, so a step
	// relying on a default (basalt --graphql-http-enabled) listens on the
	// rewritten port too. (The variables win over a config file: a page's
	// basalt config file leaves the ports to their defaults or to flags.)
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for v, p := range map[string]string{
		"BASALT_RPC_HTTP_PORT": "8545", "BASALT_RPC_WS_PORT": "8546", "BASALT_GRAPHQL_HTTP_PORT": "8547", "BASALT_P2P_PORT": "30303",
		"BASALT_METRICS_PORT": "9545",
	} {
		env = append(env, v+"="+ports[p])
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // a leftover holding the output open must not hang the test
	out, err := cmd.CombinedOutput()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // whatever of the walkthrough still runs
	steps := splitSteps(string(out))
	logs := func() string {
		var b strings.Builder
		matches, _ := filepath.Glob(filepath.Join(dir, "background-*.log"))
		sort.Strings(matches)
		for _, m := range matches {
			l, _ := os.ReadFile(m)
			fmt.Fprintf(&b, "--- %s\n%s", filepath.Base(m), tail(string(l), 40))
		}
		return b.String()
	}
	if err != nil {
		last := len(steps) - 1
		b := blocks[min(max(last, 0), len(blocks)-1)]
		t.Fatalf("%s:%d: step failed: %v\noutput:\n%s\nbackground logs:\n%s", b.file, b.line, err, tail(string(out), 60), logs())
	}
	for i, b := range blocks {
		// Each shown output, in order, somewhere after the previous one:
		// a command's output need not end its line (curl's does not).
		rest := steps[i]
		rb := b
		rb.text = rewrite(b.text) // the output names the ports the step used
		for _, e := range rb.expectations() {
			loc := e.pattern.FindStringIndex(rest)
			if loc == nil {
				t.Errorf("%s:%d: the output lacks\n  %s\noutput of the step:\n%s", b.file, e.line, e.text, steps[i])
				break
			}
			rest = rest[loc[1]:]
		}
	}
	if t.Failed() {
		t.Logf("background logs:\n%s", logs())
	} else if testing.Verbose() {
		t.Logf("output:\n%s", out)
	}
}

// splitSteps splits the walkthrough's output at the step markers.
func splitSteps(out string) []string {
	var steps []string
	for _, part := range strings.Split(out, marker)[1:] {
		_, rest, _ := strings.Cut(part, "\n")
		steps = append(steps, rest)
	}
	return steps
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestMain removes the binaries the walkthroughs built.
func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}
