package ptmtest

import (
	"context"
	"errors"
	"testing"

	"github.com/basaltchain/basalt/ptm/discovery"
	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
)

// NoPeers is a manager.Peers whose every push fails.
type NoPeers struct{}

// Push implements manager.Peers.
func (NoPeers) Push(context.Context, string, *payload.EncryptedPayload) (string, error) {
	return "", errors.New("no peers in this test")
}

// PushGroup implements manager.Peers.
func (NoPeers) PushGroup(context.Context, string, []byte, string) (string, error) {
	return "", errors.New("no peers in this test")
}

// Manager returns a manager over a memory store hosting n fresh key pairs,
// with peers, and its node table (own URL http://self:1/).
func Manager(t testing.TB, n int, peers manager.Peers) (*manager.Manager, []keys.KeyPair) {
	t.Helper()
	pairs := make([]keys.KeyPair, n)
	pubs := make([]keys.PublicKey, n)
	for i := range pairs {
		kp, err := keys.Generate(nil)
		if err != nil {
			t.Fatal(err)
		}
		pairs[i], pubs[i] = kp, kp.Public
	}
	table, err := discovery.NewTable(context.Background(), storage.NewMemory(), "http://self:1/", pubs, discovery.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if peers == nil {
		peers = NoPeers{}
	}
	return &manager.Manager{
		Enclave:    enclave.New(pairs, nil),
		Store:      storage.NewMemory(),
		Table:      table,
		Peers:      peers,
		MaxPayload: 1 << 20,
	}, pairs
}
