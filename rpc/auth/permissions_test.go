package auth

import "testing"

func TestPermitted(t *testing.T) {
	cases := []struct {
		perms  []string
		method string
		want   bool
	}{
		{[]string{"*:*"}, "eth_blockNumber", true},
		{[]string{"*:*"}, "admin_peers", true},
		{[]string{"eth:*"}, "eth_blockNumber", true},
		{[]string{"eth:*"}, "net_version", false},
		{[]string{"eth:blockNumber"}, "eth_blockNumber", true},
		{[]string{"eth:blockNumber"}, "eth_chainId", false},
		{[]string{"net:peerCount", "fakePermission"}, "net_peerCount", true}, // Besu's acceptance-test user
		{[]string{"fakePermission"}, "net_peerCount", false},
		{[]string{}, "eth_blockNumber", false},
		{nil, "eth_blockNumber", false},
		{[]string{""}, "eth_blockNumber", false},
		// No other wildcards, no case folding, no other separator.
		{[]string{"*:blockNumber"}, "eth_blockNumber", false},
		{[]string{"eth:block*"}, "eth_blockNumber", false},
		{[]string{"*"}, "eth_blockNumber", false},
		{[]string{"ETH:*"}, "eth_blockNumber", false},
		{[]string{"eth:blocknumber"}, "eth_blockNumber", false},
		{[]string{"eth_blockNumber"}, "eth_blockNumber", false},
		{[]string{"eth*"}, "eth_blockNumber", false},
		{[]string{"et:*"}, "eth_blockNumber", false},
		{[]string{"ethx*"}, "eth_blockNumber", false},
		// Every "_" is written ":" (Besu replaces them all).
		{[]string{"debug:trace:x"}, "debug_trace_x", true},
		{[]string{"debug:*"}, "debug_trace_x", true},
		{[]string{"debug:trace_x"}, "debug_trace_x", false},
		// A name without a group is reachable through *:* only.
		{[]string{"foo:*", "foo"}, "foo", false},
		{[]string{"*:*"}, "foo", true},
	}
	for _, tc := range cases {
		if got := Permitted(tc.perms, tc.method); got != tc.want {
			t.Errorf("Permitted(%q, %s) = %v, want %v", tc.perms, tc.method, got, tc.want)
		}
	}
}

func BenchmarkPermitted(b *testing.B) {
	perms := []string{"net:version", "eth:getBalance", "eth:blockNumber"}
	for b.Loop() {
		if !Permitted(perms, "eth_blockNumber") {
			b.Fatal("denied")
		}
	}
}
