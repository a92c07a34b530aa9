package permissioning

import (
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// parseAccount reads an allowlist account as Besu does: "0x" and 40 hex
// digits, in any case; the list keeps it lower-cased.
func parseAccount(s string) (common.Address, string, bool) {
	if len(s) != 42 || s[0] != '0' || s[1] != 'x' {
		return common.Address{}, "", false
	}
	for _, c := range s[2:] {
		if !isHex(c) {
			return common.Address{}, "", false
		}
	}
	return common.HexToAddress(s), strings.ToLower(s), true
}

func isHex(c rune) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// accountList is an immutable accounts allowlist: the entries in order (as
// perm_getAccountsWhitelist lists them) and a set for the hot-path check.
type accountList struct {
	entries []string
	set     map[common.Address]struct{}
}

func newAccountList(entries []string) *accountList {
	l := &accountList{entries: entries, set: make(map[common.Address]struct{}, len(entries))}
	for _, e := range entries {
		a, _, _ := parseAccount(e)
		l.set[a] = struct{}{}
	}
	return l
}

func (l *accountList) has(a common.Address) bool {
	_, ok := l.set[a]
	return ok
}

// checkAccounts runs Besu's input checks on a request's accounts, in its
// order (empty, invalid, duplicates), and returns them lower-cased.
func checkAccounts(accounts []string) ([]string, error) {
	if len(accounts) == 0 {
		return nil, ErrAccountsEmpty
	}
	out := make([]string, len(accounts))
	for i, s := range accounts {
		_, norm, ok := parseAccount(s)
		if !ok {
			return nil, ErrAccountInvalid
		}
		out[i] = norm
	}
	seen := make(map[string]bool, len(out))
	for _, s := range out {
		if seen[s] {
			return nil, ErrAccountsDuplicated
		}
		seen[s] = true
	}
	return out, nil
}
