package rpctypes

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/internal/docgen"
)

// jsonError is one error value the code answers with: its code, message,
// and where it is written.
type jsonError struct {
	code    int
	message string
	where   string // package directory and variable (or function)
}

// moduleErrors finds every NewError(code, "message") with a constant code
// and message in the module's non-test Go files (codes written as named
// constants are resolved from the constants of the same package).
func moduleErrors(t *testing.T, root string) []jsonError {
	t.Helper()
	var out []jsonError
	fset := token.NewFileSet()
	pkgs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			if rel, _ := filepath.Rel(root, path); rel == filepath.Join("deploy", "k8stest") {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			pkgs[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range pkgs {
		parsed, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, dir)
		for _, p := range parsed {
			consts := map[string]int{}
			for _, f := range p.Files {
				ast.Inspect(f, func(n ast.Node) bool {
					vs, ok := n.(*ast.ValueSpec)
					if !ok {
						return true
					}
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if v, ok := intValue(vs.Values[i], nil); ok {
								consts[name.Name] = v
							}
						}
					}
					return true
				})
			}
			for _, f := range p.Files {
				var owner string
				ast.Inspect(f, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.FuncDecl:
						owner = n.Name.Name + "()"
					case *ast.ValueSpec:
						if len(n.Names) > 0 {
							owner = n.Names[0].Name
						}
					case *ast.CallExpr:
						name := ""
						switch fn := n.Fun.(type) {
						case *ast.Ident:
							name = fn.Name
						case *ast.SelectorExpr:
							name = fn.Sel.Name
						}
						if name != "NewError" || len(n.Args) != 2 {
							return true
						}
						code, ok := intValue(n.Args[0], consts)
						lit, ok2 := n.Args[1].(*ast.BasicLit)
						if !ok || !ok2 || lit.Kind != token.STRING {
							return true
						}
						msg, err := strconv.Unquote(lit.Value)
						if err != nil {
							return true
						}
						out = append(out, jsonError{code: code, message: msg, where: filepath.ToSlash(rel) + ": " + owner})
					}
					return true
				})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.code != b.code {
			return a.code > b.code
		}
		if a.message != b.message {
			return a.message < b.message
		}
		return a.where < b.where
	})
	return out
}

// intValue evaluates an integer literal, a negated one, or a name of
// consts (also as rpctypes.Name).
func intValue(e ast.Expr, consts map[string]int) (int, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.INT {
			return 0, false
		}
		v, err := strconv.Atoi(e.Value)
		return v, err == nil
	case *ast.UnaryExpr:
		if e.Op == token.SUB {
			v, ok := intValue(e.X, consts)
			return -v, ok
		}
	case *ast.Ident:
		v, ok := consts[e.Name]
		if !ok {
			v, ok = codeConsts[e.Name]
		}
		return v, ok
	case *ast.SelectorExpr:
		v, ok := codeConsts[e.Sel.Name]
		return v, ok
	}
	return 0, false
}

// codeConsts are this package's named codes, which other packages use.
var codeConsts = map[string]int{
	"CodeParseError": CodeParseError, "CodeInvalidRequest": CodeInvalidRequest, "CodeMethodNotFound": CodeMethodNotFound,
	"CodeInvalidParams": CodeInvalidParams, "CodeInternalError": CodeInternalError, "CodeMethodNotEnabled": CodeMethodNotEnabled,
	"CodeUnauthorized": CodeUnauthorized,
}

// TestReferenceErrors writes docs/reference/error-codes.md: every JSON-RPC
// error the code writes with a fixed code and message, by code.
func TestReferenceErrors(t *testing.T) {
	root := docgen.Root(t)
	errs := moduleErrors(t, root)
	if len(errs) < 50 {
		t.Fatalf("found only %d errors: the scan is broken", len(errs))
	}
	var b strings.Builder
	b.WriteString(docgen.Header("JSON-RPC error codes", "every `NewError(code, message)` of the module's code (rpctypes/reference_test.go)"))
	b.WriteString("The errors the node and `basalt-signer` answer with a fixed code and message, by code. The\n" +
		"codes and messages are Besu's (EthSigner's for the signer) wherever Besu has one; a message may\n" +
		"carry a reason in parentheses (`Invalid params (…)`), and errors built at run time (a revert,\n" +
		"an execution failure, a privacy manager's code passed through) are described with their\n" +
		"methods. Where a code differs from Besu's, and why: [compatibility](compatibility.md).\n\n")
	b.WriteString("| code | message | written in |\n|---|---|---|\n")
	seen := map[string][]string{}
	var order []string
	for _, e := range errs {
		k := fmt.Sprintf("%d\x00%s", e.code, e.message)
		if seen[k] == nil {
			order = append(order, k)
		}
		seen[k] = append(seen[k], e.where)
	}
	for _, k := range order {
		code, msg, _ := strings.Cut(k, "\x00")
		fmt.Fprintf(&b, "| %s | %s | %s |\n", code, docgen.Cell(msg), docgen.Cell(strings.Join(seen[k], "; ")))
	}
	docgen.Check(t, "docs/reference/error-codes.md", b.String())
}
