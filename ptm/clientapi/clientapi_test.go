package clientapi

import (
	"strings"
	"testing"
)

func TestJavaSplit(t *testing.T) {
	tests := map[string][]string{
		"":      {""},
		"a":     {"a"},
		"a,b":   {"a", "b"},
		"a,b,":  {"a", "b"},
		",a":    {"", "a"},
		",":     {},
		"a,,b":  {"a", "", "b"},
		"a, b":  {"a", " b"},
		"a,b,,": {"a", "b"},
	}
	for in, want := range tests {
		got := javaSplit(in)
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("javaSplit(%q) = %q, want %q", in, got, want)
		}
	}
}
