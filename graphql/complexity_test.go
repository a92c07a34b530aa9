package graphql

import (
	"testing"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/testsupport/chaintest"
)

// TestComplexity checks Besu's cost rule on queries whose cost is known:
// the two of Besu's fixtures (204 each) and simple ones.
func TestComplexity(t *testing.T) {
	c := chaintest.Open(t, chain.NewMemoryDatabase())
	s, err := New(&backend.Backend{Chain: c.Chain}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		vars  map[string]any
		want  int
	}{
		{`{ block { number } }`, nil, 2},
		{`{ block { number hash } gasPrice }`, nil, 4},
		{`{ block { transactions { block { transactions { block { number }}}}}}`, nil, 204},
		{`{ __schema { types { fields { type { fields { name }}}}}}`, nil, 204},
		{`{ transaction(hash: "0x01") { block { number } } }`, nil, 102},
		{`{ __typename block { __typename } }`, nil, 3},
		{`{ block { ...F ...F } } fragment F on Block { number }`, nil, 3},
		{`{ block { ... on Block { number } } }`, nil, 2},
		{`{ block { number @skip(if: true) hash @include(if: false) } }`, nil, 1},
		{`query q($s: Boolean!) { block { number @skip(if: $s) hash } }`, map[string]any{"s": true}, 2},
		{`mutation { sendRawTransaction(data: "0x") }`, nil, 1},
	}
	for _, tc := range tests {
		doc, err := parseDocument(tc.query)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if got := s.complexity(doc, doc.ops[0], tc.vars); got != tc.want {
			t.Errorf("%s: cost %d, want %d", tc.query, got, tc.want)
		}
	}
}
