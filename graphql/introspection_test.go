package graphql_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/graphql"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/schema.golden from the served schema")

// graphiqlIntrospection is the introspection query GraphiQL and most client
// tools send (graphql-js getIntrospectionQuery). Its cost under Besu's
// rule is 280 (__Type.fields costs 100), over Besu's limit of 200: Besu
// refuses it, and so does Basalt (the README says how to introspect).
const graphiqlIntrospection = `
query IntrospectionQuery {
  __schema {
    queryType { name }
    mutationType { name }
    subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) {
    name description
    args { ...InputValue }
    type { ...TypeRef }
    isDeprecated deprecationReason
  }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`

// introspectionQuery reads every type, field, argument and input field with
// its type, within the complexity limit.
const introspectionQuery = `
query Schema {
  __schema {
    queryType { name }
    mutationType { name }
    subscriptionType { name }
    types {
      kind name
      fields { name args { name type { ...TypeRef } } type { ...TypeRef } }
      inputFields { name type { ...TypeRef } }
    }
  }
}
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }`

type typeRef struct {
	Kind   string   `json:"kind"`
	Name   *string  `json:"name"`
	OfType *typeRef `json:"ofType"`
}

func (t *typeRef) String() string {
	switch t.Kind {
	case "NON_NULL":
		return t.OfType.String() + "!"
	case "LIST":
		return "[" + t.OfType.String() + "]"
	}
	return *t.Name
}

type inputValue struct {
	Name string  `json:"name"`
	Type typeRef `json:"type"`
}

// TestSchemaIntrospection reads the schema by introspection and compares the served schema, one line per field, input
// field and scalar, with testdata/schema.golden: the field names, argument
// and result types of Besu's schema.graphqls (current Besu) plus the root
// fields account and protocolVersion of Besu 1.3. Run with -update after a
// deliberate change.
func TestSchemaIntrospection(t *testing.T) {
	svc, _ := smallService(t)
	status, body := svc.Execute(context.Background(), graphql.Request{Query: introspectionQuery})
	if status != 200 {
		t.Fatalf("status %d: %.500s", status, body)
	}
	var resp struct {
		Data struct {
			Schema struct {
				QueryType        struct{ Name string }
				MutationType     struct{ Name string }
				SubscriptionType *struct{ Name string }
				Types            []struct {
					Kind   string
					Name   string
					Fields []struct {
						Name string
						Args []inputValue
						Type typeRef
					}
					InputFields []inputValue
				}
			} `json:"__schema"`
		}
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	s := resp.Data.Schema
	if s.QueryType.Name != "Query" || s.MutationType.Name != "Mutation" || s.SubscriptionType != nil {
		t.Errorf("root types %+v", s)
	}
	var lines []string
	for _, typ := range s.Types {
		if strings.HasPrefix(typ.Name, "__") {
			continue
		}
		switch typ.Kind {
		case "SCALAR":
			lines = append(lines, "scalar "+typ.Name)
		case "OBJECT":
			for _, f := range typ.Fields {
				var args []string
				for _, a := range f.Args {
					args = append(args, a.Name+": "+a.Type.String())
				}
				sig := f.Name
				if len(args) > 0 {
					sig += "(" + strings.Join(args, ", ") + ")"
				}
				lines = append(lines, fmt.Sprintf("type %s.%s: %s", typ.Name, sig, f.Type.String()))
			}
		case "INPUT_OBJECT":
			for _, f := range typ.InputFields {
				lines = append(lines, fmt.Sprintf("input %s.%s: %s", typ.Name, f.Name, f.Type.String()))
			}
		default:
			lines = append(lines, strings.ToLower(typ.Kind)+" "+typ.Name)
		}
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "schema.golden")
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("served schema differs from %s (run with -update after a deliberate change):\n%s", golden, diffLines(string(want), got))
	}
}

func diffLines(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var out []string
	for l := range w {
		if !g[l] {
			out = append(out, "- "+l)
		}
	}
	for l := range g {
		if !w[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestSchemaSDL checks that the SDL the package embeds is what it serves:
// every type and field of Schema() appears in the golden listing.
func TestSchemaSDL(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "schema.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Address", "BigInt", "Bytes", "Bytes32", "Hash", "LogTopic", "Long", "VersionedHash"} {
		if !strings.Contains(graphql.Schema(), "scalar "+name) || !strings.Contains(string(want), "scalar "+name+"\n") {
			t.Errorf("scalar %s missing", name)
		}
	}
}

// TestFullIntrospectionRefused documents that GraphiQL's own introspection
// query exceeds Besu's complexity limit, as it does on Besu.
func TestFullIntrospectionRefused(t *testing.T) {
	svc, _ := smallService(t)
	status, body := svc.Execute(context.Background(), graphql.Request{Query: graphiqlIntrospection})
	want := `{"errors":[{"message":"maximum query complexity exceeded 280 > 200","extensions":{"classification":"ExecutionAborted"}}]}`
	if status != 400 || string(body) != want {
		t.Errorf("status %d, body %s", status, body)
	}
}
