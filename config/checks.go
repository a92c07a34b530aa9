package config

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"strconv"
	"strings"

	"github.com/basaltchain/basalt/internal/cliconf"
)

// Value checks for options. Each returns a check func(string) error whose
// message completes "invalid value "x" for --name: ..." (cliconf's
// Value.Invalid), so that even an option Basalt does not act on rejects a
// value Besu would reject, with one line naming it.

// checkBool accepts true or false.
func checkBool(v string) error { _, err := cliconf.ParseBool(v); return err }

// checkAny accepts any text (paths, names, URLs Basalt does not read).
func checkAny(string) error { return nil }

// checkInt accepts a decimal integer from min to max.
func checkInt(min, max int64) func(string) error {
	return func(v string) error {
		_, err := parseInt64(v, min, max)
		return err
	}
}

// parseInt64 reads a decimal integer from min to max.
func parseInt64(v string, min, max int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, errors.New("expected an integer")
	}
	if n < min || n > max {
		if max == math.MaxInt64 {
			return 0, fmt.Errorf("must be at least %d", min)
		}
		return 0, fmt.Errorf("must be from %d to %d", min, max)
	}
	return n, nil
}

// checkFloat accepts a decimal number from min to max (inclusive).
func checkFloat(min, max float64) func(string) error {
	return func(v string) error {
		_, err := parseFloat(v, min, max)
		return err
	}
}

// parseFloat reads a decimal number from min to max (inclusive).
func parseFloat(v string, min, max float64) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errors.New("expected a number")
	}
	if f < min || f > max {
		return 0, fmt.Errorf("must be from %v to %v", min, max)
	}
	return f, nil
}

// checkEnum accepts one of values, in any case.
func checkEnum(values ...string) func(string) error {
	return func(v string) error {
		_, err := parseEnum(v, values...)
		return err
	}
}

// parseEnum returns which of values v is (upper-cased as written in
// values), case-insensitively.
func parseEnum(v string, values ...string) (string, error) {
	v = strings.TrimSpace(v)
	for _, x := range values {
		if strings.EqualFold(v, x) {
			return x, nil
		}
	}
	return "", fmt.Errorf("expected one of %s", strings.Join(values, ", "))
}

// checkWei accepts a non-negative integer, decimal or 0x hex (Besu's Wei).
func checkWei(v string) error { _, err := parseWei(v); return err }

// parseWei reads a non-negative integer, decimal or 0x hex (Besu's Wei).
func parseWei(v string) (*big.Int, error) {
	n, err := parseBig("", strings.TrimSpace(v), decOrHex)
	if err != nil {
		return nil, errors.New("expected a non-negative integer (decimal or 0x hex)")
	}
	return n, nil
}

// parseFraction reads a share of a whole: a decimal number above 0 and at
// most 1.
func parseFraction(v string) (float64, error) {
	f, err := parseFloat(v, 0, 1)
	if err == nil && f == 0 {
		err = errors.New("must be greater than 0 and at most 1")
	}
	return f, err
}

// nonEmpty is the apply of an option whose value may be anything but
// blank (a host, a path, a name): set takes it as given.
func nonEmpty(set func(c *Config, v string)) func(c *Config, v string) error {
	return func(c *Config, v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New("must not be empty")
		}
		set(c, v)
		return nil
	}
}

// checkEach applies check to every item of a comma-separated list.
func checkEach(check func(string) error) func(string) error {
	return func(v string) error {
		for _, item := range splitList(v) {
			if err := check(item); err != nil {
				return fmt.Errorf("%q: %v", item, err)
			}
		}
		return nil
	}
}

// checkAddress accepts a 20-byte hex address.
func checkAddress(v string) error { _, err := decodeAddress(v); return err }

// checkHex accepts hex bytes, 0x optional.
func checkHex(v string) error {
	if _, err := decodeHex(v); err != nil {
		return errors.New("not a hex string")
	}
	return nil
}

// checkNodeID accepts a node ID: 64 bytes of hex (a public key), 0x
// optional, as --banned-node-ids takes them.
func checkNodeID(v string) error {
	b, err := decodeHex(v)
	if err != nil || len(b) != 64 {
		return errors.New("expected a node ID (128 hex digits)")
	}
	return nil
}

// checkCIDR accepts an IP subnet (192.168.0.0/16) or a single address.
func checkCIDR(v string) error {
	if _, _, err := net.ParseCIDR(v); err == nil {
		return nil
	}
	if net.ParseIP(v) != nil {
		return nil
	}
	return errors.New("expected an IP subnet such as 10.0.0.0/8")
}

// checkPort accepts a TCP port (0 to 65535).
func checkPort(v string) error { _, err := parsePort(v); return err }

// checkBlockHash accepts Besu's --required-block value, <number>=<hash>.
func checkBlockHash(v string) error {
	n, h, ok := strings.Cut(v, "=")
	if !ok {
		return errors.New("expected <block number>=<block hash>")
	}
	if _, err := parseInt64(n, 0, math.MaxInt64); err != nil {
		return fmt.Errorf("block number: %v", err)
	}
	if b, err := decodeHex(h); err != nil || len(b) != 32 {
		return errors.New("block hash: expected 32 bytes of hex")
	}
	return nil
}

// isTrue reports whether v reads as true (for noteWhen and refusals).
func isTrue(v string) bool { b, err := cliconf.ParseBool(v); return err == nil && b }

// refuseTrue is the check of an option Basalt must refuse when enabled:
// reason says why in one line.
func refuseTrue(reason string) func(string) error {
	return func(v string) error {
		b, err := cliconf.ParseBool(v)
		if err != nil {
			return err
		}
		if b {
			return errors.New(reason)
		}
		return nil
	}
}

// refuseSet is the check of an option Basalt must refuse when given a
// value at all (after check accepts its form).
func refuseSet(check func(string) error, reason string) func(string) error {
	return func(v string) error {
		if err := check(v); err != nil {
			return err
		}
		if strings.TrimSpace(v) != "" {
			return errors.New(reason)
		}
		return nil
	}
}
