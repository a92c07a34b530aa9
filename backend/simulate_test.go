package backend

import (
	"math/big"
	"testing"
)

func TestHumanWei(t *testing.T) {
	for v, want := range map[int64]string{0: "0 wei", 1: "1 wei", 999: "999 wei", 1000: "1.00 kwei", 1_500_000_000: "1.50 gwei", 1e18: "1.00 ether"} {
		if got := humanWei(big.NewInt(v)); got != want {
			t.Errorf("humanWei(%d) = %q, want %q", v, got, want)
		}
	}
}
