package layers

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/basaltchain/basalt"

// graph is the module's import graph: each of its packages (path relative
// to the module, "." for the root) and the module packages it imports,
// test files left out.
type graph map[string][]string

// loadGraph reads the graph with `go list` from the module root.
func loadGraph(t *testing.T) graph {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; the layer rules need `go list`")
	}
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	g := graph{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		pkg, ok := rel(fields[0])
		if !ok {
			continue
		}
		var imports []string
		for _, imp := range fields[1:] {
			if r, ok := rel(imp); ok {
				imports = append(imports, r)
			}
		}
		g[pkg] = imports
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if _, ok := g["consensus"]; !ok {
		t.Fatalf("go list listed no consensus package:\n%s", out)
	}
	return g
}

// rel returns a module package's path relative to the module.
func rel(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// deps returns the module packages pkgs depend on, pkgs included (as
// `go list -deps` does), sorted. A pattern ending in "/..." stands for the
// package and every package under it.
func (g graph) deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, imp := range g[p] {
			visit(imp)
		}
	}
	for _, p := range pkgs {
		roots := g.match(p)
		if len(roots) == 0 {
			t.Fatalf("no package matches %s", p)
		}
		for _, r := range roots {
			visit(r)
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// match returns the packages a pattern names.
func (g graph) match(pattern string) []string {
	base, tree := strings.CutSuffix(pattern, "/...")
	var out []string
	for p := range g {
		if p == base || tree && strings.HasPrefix(p, base+"/") {
			out = append(out, p)
		}
	}
	return out
}

// under reports whether pkg is pattern or, for "x/...", x or below it.
func under(pkg, pattern string) bool {
	base, tree := strings.CutSuffix(pattern, "/...")
	return pkg == base || tree && strings.HasPrefix(pkg, base+"/")
}

// TestLayers: the import rules of issue 31's first point ("layers point
// up") and second (the node's services apart from the JSON-RPC groups),
// each as the packages some packages must not depend on, directly or not.
func TestLayers(t *testing.T) {
	g := loadGraph(t)
	rules := []struct {
		name    string
		from    []string
		allowed []string // nil: see forbid
		forbid  []string
		except  []string // exceptions to forbid
	}{
		{name: "the consensus interface package imports nothing of Basalt",
			from: []string{"consensus"}, allowed: []string{"consensus"}},
		{name: "engines reach no JSON-RPC server, node services or privacy",
			from: []string{"consensus/..."}, forbid: []string{"api/...", "privacy/...", "ptm/...", "rpc", "rpc/auth", "graphql/...", "node/..."}},
		{name: "the chain store and the pool reach no JSON-RPC server",
			from: []string{"chain", "txpool"}, forbid: []string{"rpc", "rpc/auth", "api/..."}},
		{name: "the pool and the configuration take fee rules from feemarket, not consensus",
			from: []string{"txpool", "config"}, forbid: []string{"consensus"}},
		{name: "JSON-RPC types are a leaf",
			from: []string{"rpctypes"}, allowed: []string{"rpctypes"}},
		{name: "fee rules are a leaf",
			from: []string{"consensus/feemarket"}, allowed: []string{"consensus/feemarket"}},
		{name: "the privacy group id is a leaf",
			from: []string{"ptm/groupid"}, allowed: []string{"ptm/groupid"}},
		{name: "TLS trust is a leaf",
			from: []string{"internal/tlstrust"}, allowed: []string{"internal/tlstrust"}},
		{name: "the rule of unset settings is a leaf",
			from: []string{"internal/defaults"}, allowed: []string{"internal/defaults"}},
		{name: "fetching in parallel is a leaf",
			from: []string{"internal/fanout"}, allowed: []string{"internal/fanout"}},
		{name: "the HTTP client plumbing is a leaf",
			from: []string{"internal/httpcall"}, allowed: []string{"internal/httpcall"}},
		{name: "the BFT message transport needs only the consensus interfaces",
			from: []string{"p2p/subprotocol"}, allowed: []string{"p2p/subprotocol", "consensus"}},
		{name: "the node's privacy service uses nothing of the privacy manager but the group id",
			from: []string{"privacy/..."}, forbid: []string{"ptm/..."}, except: []string{"ptm/groupid"}},
		{name: "GraphQL resolves on the node's services, not on the JSON-RPC groups",
			from: []string{"graphql/..."}, forbid: []string{"api/..."}},
		{name: "the node's services know no front end and no JSON-RPC server",
			from: []string{"backend/..."}, forbid: []string{"api/...", "graphql/...", "rpc/...", "node/..."}},
	}
	for _, r := range rules {
		var bad []string
		for _, d := range g.deps(t, r.from...) {
			switch {
			case r.allowed != nil:
				if !slices.Contains(r.allowed, d) {
					bad = append(bad, d)
				}
			case slices.Contains(r.except, d):
			default:
				for _, f := range r.forbid {
					if under(d, f) {
						bad = append(bad, d)
						break
					}
				}
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s: %v depend on %v", r.name, r.from, bad)
		}
	}
}

// TestJournaledPoolImportsNoServer: the node's journaled pool defers its
// journal wait until a batch's reply through rpctypes, not the server
// package (a file-level rule: the node as a whole runs the server).
func TestJournaledPoolImportsNoServer(t *testing.T) {
	file := filepath.Join("..", "..", "node", "txstore.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p == module+"/rpc" {
			t.Errorf("%s imports %s", file, p)
		}
	}
}
