package proctest

import (
	"net"
	"os"
	"strconv"
	"testing"
)

// FreePortRange returns the first of count consecutive free ports, for a
// program that takes a base port (basalt network up --base-port). It
// searches below the ephemeral range, where FreePort's ports come from, so
// the range does not collide with other tests' single ports.
func FreePortRange(t testing.TB, count int) int {
	t.Helper()
	for try := range 200 {
		base := 12000 + (os.Getpid()*7919+try*1013)%18000
		if rangeFree(base, count) {
			return base
		}
	}
	t.Fatalf("no %d consecutive free ports", count)
	return 0
}

func rangeFree(base, count int) bool {
	for p := base; p < base+count; p++ {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			return false
		}
		l.Close()
	}
	return true
}
