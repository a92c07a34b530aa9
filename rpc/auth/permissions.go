package auth

import "strings"

// Permitted reports whether a user holding perms may call method (a
// JSON-RPC method name such as "eth_blockNumber"). As in Besu
// (JsonRpcMethod.getPermissions), the method is allowed by exactly one of
// these strings, compared case-sensitively:
//
//	*:*               every method
//	eth:*             every method of the group (the name before the first "_")
//	eth:blockNumber   the method itself (every "_" written as ":")
//
// No other pattern is a wildcard: an empty list allows nothing.
func Permitted(perms []string, method string) bool {
	group, _, ok := strings.Cut(method, "_")
	for _, p := range perms {
		switch {
		case p == "*:*":
			return true
		case !ok:
			// A name without a group is only reachable through "*:*".
		case len(p) == len(group)+2 && strings.HasPrefix(p, group) && strings.HasSuffix(p, ":*"):
			return true
		case sameWithColons(p, method):
			return true
		}
	}
	return false
}

// sameWithColons reports whether p is method with every "_" written as ":",
// without allocating (this runs for every request).
func sameWithColons(p, method string) bool {
	if len(p) != len(method) {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := method[i]
		if c == '_' {
			c = ':'
		}
		if p[i] != c {
			return false
		}
	}
	return true
}
