package httpcall

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAnswerErr(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes
	for _, tc := range []struct {
		status     int
		body, text string
	}{
		{502, "  refused\n", "refused"},
		{502, "\n" + long + "\n", strings.Repeat("é", 100) + "…"},
		{404, "", ""},
		{301, "moved", "moved"},
	} {
		a := &Answer{Status: tc.status, Body: []byte(tc.body)}
		if a.OK() {
			t.Fatalf("%d is OK", tc.status)
		}
		var se *StatusError
		if !errors.As(a.Err(), &se) || se.Status != tc.status || se.Text != tc.text {
			t.Errorf("%d %q: Err() = %#v, want text %q", tc.status, tc.body, a.Err(), tc.text)
			continue
		}
		if want := fmt.Sprintf("HTTP %d: %s", tc.status, tc.text); se.Error() != want {
			t.Errorf("Error() = %q, want %q", se.Error(), want)
		}
		// The whole body stays for callers that parse it (an error code).
		if string(a.Body) != tc.body {
			t.Errorf("body %q, want %q", a.Body, tc.body)
		}
	}
	for _, st := range []int{200, 201, 204, 299} {
		if a := (&Answer{Status: st, Body: []byte("x")}); !a.OK() || a.Err() != nil {
			t.Errorf("%d: OK %v, Err %v", st, a.OK(), a.Err())
		}
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"aé", 2, "a…"}, // never half a rune
		{"éé", 3, "é…"},
		{"", 0, ""},
	} {
		got := Cut(tc.s, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
