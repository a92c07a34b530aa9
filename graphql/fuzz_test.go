package graphql_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/basaltchain/basalt/graphql"
)

// FuzzExecute: whatever the document and variables, the service answers a
// JSON body with 200 or 400 and never panics.
func FuzzExecute(f *testing.F) {
	for _, s := range []string{
		`{ block { number hash transactions { hash from { address balance } } logs(filter: {}) { index } } }`,
		`{ blocks(from: 0, to: 2) { number ommers { hash } ommerAt(index: 0) { number } } }`,
		`query q($n: Long, $h: Hash) { block(number: $n) { number } b: block(hash: $h) { number } }`,
		`{ logs(filter: {fromBlock: 1, toBlock: 3, topics: [[], ["0x01"]]}) { index account { address } transaction { hash } } }`,
		`{ pending { transactionCount transactions { hash } account(address: "0x0000000000000000000000000000000000000001") { balance } } }`,
		`{ block(number: "0xffffffffffffffff") { number } }`,
		`{ __schema { types { name } } }`,
		`mutation { sendRawTransaction(data: "0xf8") }`,
	} {
		f.Add(s, `{"n": 1, "h": "0x01"}`)
	}
	svc, _ := smallService(f)
	f.Fuzz(func(t *testing.T, query, vars string) {
		var v map[string]any
		_ = json.Unmarshal([]byte(vars), &v)
		status, body := svc.Execute(context.Background(), graphql.Request{Query: query, Variables: v})
		if status != 200 && status != 400 {
			t.Fatalf("status %d: %s", status, body)
		}
		if !json.Valid(body) {
			t.Fatalf("invalid JSON %q", body)
		}
	})
}
