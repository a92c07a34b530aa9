// Command testreport reads `go test -json` events on standard input and
// prints what `go test` prints — each package's result line, and the
// output of failed tests — followed by every skipped test with the reason
// it gave. `go test ./...` shows nothing of a passing package, so a suite
// that skipped because an input is missing (../shared/conformance, npm
// packages, PostgreSQL, a GoQuorum binary, podman) would otherwise look
// like one that ran; .ci/run pipes its test run through this.
//
//	go test -json ./... | go run ./internal/testreport
//
// It exits 1 when a test or package failed, 0 otherwise.
package main

import (
	"fmt"
	"os"
)

func main() {
	r, err := scan(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if r.failed {
		os.Exit(1)
	}
}

// result is what scan found.
type result struct {
	failed bool
	skips  []skip
}
