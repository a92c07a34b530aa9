package p2p

import "testing"

// TestWholeBlockSends: up to Besu's 25 peers every peer lacking a block
// gets it whole; beyond, √n do and the others get its hash.
func TestWholeBlockSends(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1: 1, 25: 25, 26: 6, 99: 10, 100: 10} {
		if got := wholeBlockSends(n); got != want {
			t.Errorf("%d peers: %d whole, want %d", n, got, want)
		}
	}
}
