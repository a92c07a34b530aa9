package txload

import (
	"crypto/ecdsa"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// fatalTB records a Fatalf and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestStreamAndCheck: a stream (the dev network is chain 1337) of transfers to a mining dev node is
// acknowledged and Check finds each mined once; a hash the stream
// believes acknowledged but no block holds makes Check fail.
func TestStreamAndCheck(t *testing.T) {
	n := devnode.Start(t, t.TempDir())
	var keys []*ecdsa.PrivateKey
	for i := range 3 {
		k, _ := devnode.Key(t, i)
		keys = append(keys, k)
	}
	s := Start(1337, keys, 30, &testnode.P2PNode{Node: n})
	time.Sleep(2 * time.Second)
	s.Stop()
	f := s.Check(t, n, 60*time.Second)
	if f.Acknowledged == 0 || f.Mined < f.Acknowledged || f.Duration <= 0 {
		t.Fatalf("figures %v", f)
	}

	lost := common.HexToHash("0x01")
	s.mu.Lock()
	s.acked[lost] = true
	s.mu.Unlock()
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Check(tb, n, 60*time.Second)
	}()
	<-done
	if !strings.Contains(tb.msg, "acknowledged transaction "+lost.Hex()+" is not in the chain") {
		t.Fatalf("Check with a lost transaction: %q", tb.msg)
	}
}
