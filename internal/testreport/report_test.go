package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestScan feeds events as test2json writes them: a passing package, a
// skipped test with its reason, a failed test, a build error line.
func TestScan(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"example/a"}`,
		`{"Action":"run","Package":"example/a","Test":"TestConformance"}`,
		`{"Action":"output","Package":"example/a","Test":"TestConformance","Output":"=== RUN   TestConformance\n"}`,
		`{"Action":"output","Package":"example/a","Test":"TestConformance","Output":"    jsonrpc_test.go:40: shared conformance data absent\n"}`,
		`{"Action":"output","Package":"example/a","Test":"TestConformance","Output":"--- SKIP: TestConformance (0.00s)\n"}`,
		`{"Action":"skip","Package":"example/a","Test":"TestConformance"}`,
		`{"Action":"run","Package":"example/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"example/a","Test":"TestOK","Output":"noise of a passing test\n"}`,
		`{"Action":"pass","Package":"example/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"example/a","Output":"ok  \texample/a\t0.1s\n"}`,
		`{"Action":"pass","Package":"example/a"}`,
		`{"Action":"run","Package":"example/b","Test":"TestBad"}`,
		`{"Action":"output","Package":"example/b","Test":"TestBad","Output":"    b_test.go:9: want 1, got 2\n"}`,
		`{"Action":"fail","Package":"example/b","Test":"TestBad"}`,
		`{"Action":"output","Package":"example/b","Output":"FAIL\texample/b\t0.2s\n"}`,
		`{"Action":"fail","Package":"example/b"}`,
		`# example/c`,
	}, "\n")
	var out bytes.Buffer
	r, err := scan(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !r.failed {
		t.Error("a failed test did not fail the report")
	}
	s := out.String()
	for _, want := range []string{"ok  \texample/a", "want 1, got 2", "FAIL\texample/b", "# example/c",
		"SKIP example/a TestConformance: shared conformance data absent"} {
		if !strings.Contains(s, want) {
			t.Errorf("the report lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "noise of a passing test") {
		t.Errorf("the report shows a passing test's output:\n%s", s)
	}
}
