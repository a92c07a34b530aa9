package cliconf

import (
	"errors"
	"strings"
)

// ParseBool reads a Bool option's value: true or false in any case,
// surrounding spaces ignored.
func ParseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errors.New("expected true or false")
}

// SplitList splits a comma-separated list, trimming spaces and dropping
// empty items; "" is an empty (nil) list.
func SplitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
