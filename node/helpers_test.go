package node

import (
	"math/big"
	"net"
	"testing"
)

func bigOne() *big.Int { return big.NewInt(1) }

func listen(tb testing.TB) (net.Listener, string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return ln, "http://" + ln.Addr().String()
}
