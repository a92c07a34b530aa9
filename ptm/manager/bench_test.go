package manager_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/basaltchain/basalt/ptm/internal/ptmtest"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
)

// okPeers accepts every push at once, so that a benchmark measures the
// manager's own work.
type okPeers struct{}

func (okPeers) Push(_ context.Context, _ string, p *payload.EncryptedPayload) (string, error) {
	return p.Digest(), nil
}

func (okPeers) PushGroup(context.Context, string, []byte, string) (string, error) { return "", nil }

// BenchmarkSendThreePeers measures Manager.Send of a 1 KiB payload to one
// key on each of three listed peers, in process, with pushes that succeed
// at once and a memory store: the CPU cost of the send path (table lookups,
// legacy group, encryption, stripping) without the network. It complements
// ptm/e2e's BenchmarkSendThreePeers, whose figures the machine's load
// blurs.
func BenchmarkSendThreePeers(b *testing.B) {
	m, pairs := ptmtest.Manager(b, 1, okPeers{})
	var to []string
	for i := range 3 {
		kp, _ := keys.Generate(nil)
		m.Table.Prove(context.Background(), fmt.Sprintf("http://peer%d:8080/", i), []keys.PublicKey{kp.Public})
		to = append(to, kp.Public.String())
	}
	from := pairs[0].Public.String()
	msg := make([]byte, 1024)
	rand.Read(msg)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := m.Send(context.Background(), manager.SendRequest{Payload: msg, From: &from, To: to}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
