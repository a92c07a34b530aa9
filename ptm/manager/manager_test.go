package manager_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/internal/ptmtest"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
)

var ctx = context.Background()

func str(s string) *string { return &s }

// recordingPeers answers pushes like a healthy peer and records them.
type recordingPeers struct {
	mu     sync.Mutex
	pushes map[string][]*payload.EncryptedPayload
	groups map[string][]*payload.PrivacyGroup
	auths  []string
	fail   error
}

func (r *recordingPeers) Push(_ context.Context, u string, p *payload.EncryptedPayload) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return "", r.fail
	}
	r.pushes[u] = append(r.pushes[u], p)
	return p.Digest(), nil
}

func (r *recordingPeers) PushGroup(_ context.Context, u string, body []byte, auth string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return "", r.fail
	}
	g, err := payload.DecodePrivacyGroup(body)
	if err != nil {
		return "", err
	}
	r.groups[u] = append(r.groups[u], g)
	r.auths = append(r.auths, auth)
	members, _ := g.Members()
	return enclave.GroupIDString(members, g.RandomSeed, g.Type), nil
}

func TestSendStripsPerPeer(t *testing.T) {
	peers := &recordingPeers{pushes: map[string][]*payload.EncryptedPayload{}, groups: map[string][]*payload.PrivacyGroup{}}
	m, pairs := ptmtest.Manager(t, 2, peers)
	A, local := pairs[0].Public, pairs[1].Public
	var r1, r2, r3 keys.PublicKey
	for _, k := range []*keys.PublicKey{&r1, &r2, &r3} {
		kp, _ := keys.Generate(nil)
		*k = kp.Public
	}
	m.Table.Prove(ctx, "http://p1/", []keys.PublicKey{r1, r2})
	m.Table.Prove(ctx, "http://p2/", []keys.PublicKey{r3})
	key, err := m.Send(ctx, manager.SendRequest{Payload: []byte("x"), From: str(A.String()), To: []string{r1.String(), local.String(), r2.String(), r3.String(), r1.String()}})
	if err != nil {
		t.Fatal(err)
	}
	// One push per peer instance, stripped to its keys; none for the local key.
	if len(peers.pushes) != 2 || len(peers.pushes["http://p1/"]) != 1 || len(peers.pushes["http://p2/"]) != 1 {
		t.Fatalf("pushes: %v", peers.pushes)
	}
	if n := len(peers.pushes["http://p1/"][0].EncryptedKeys); n != 2 {
		t.Errorf("p1 got %d encrypted keys, want 2", n)
	}
	if n := len(peers.pushes["http://p2/"][0].EncryptedKeys); n != 1 {
		t.Errorf("p2 got %d encrypted keys, want 1", n)
	}
	// The local recipient reads the locally stored payload.
	got, err := m.Receive(ctx, key, str(local.String()))
	if err != nil || string(got.Payload) != "x" {
		t.Errorf("local recipient: %v", err)
	}

	// A failing peer fails the send and nothing is stored.
	peers.fail = errors.New("down")
	before := count(t, m)
	_, err = m.Send(ctx, manager.SendRequest{Payload: []byte("y"), From: str(A.String()), To: []string{r3.String()}})
	if ptm.CodeOf(err) != ptm.NodePropagatingToAllPeers {
		t.Errorf("failing peer: %v", err)
	}
	if count(t, m) != before {
		t.Error("a failed send stored something")
	}
	// A local-only send needs no peer.
	if _, err := m.Send(ctx, manager.SendRequest{Payload: []byte("z"), From: str(A.String()), To: []string{local.String()}}); err != nil {
		t.Errorf("local-only send: %v", err)
	}
}

func count(t *testing.T, m *manager.Manager) int {
	n := 0
	m.Store.ForEach(ctx, func(k, v []byte) error {
		if _, err := payload.DecodeEncryptedPayload(v); err == nil {
			n++
		}
		return nil
	})
	return n
}

// TestIndexBeforeGroup checks the crash ordering: an index entry whose
// group was never stored (a crash between the two writes) is skipped, and a
// later write completes it.
func TestIndexBeforeGroup(t *testing.T) {
	m, pairs := ptmtest.Manager(t, 1, nil)
	A := pairs[0].Public
	g, err := m.CreateGroup(ctx, manager.CreateGroupRequest{Addresses: []string{A.String()}, From: str(A.String()), Seed: []byte{1}})
	if err != nil {
		t.Fatal(err)
	}
	// Simulate the crash: drop the group, keep the index entry.
	m.Store.Delete(ctx, []byte(g.PrivacyGroupID))
	found, err := m.FindGroups(ctx, []string{A.String()})
	if err != nil || len(found) != 0 {
		t.Fatalf("find with a dangling index entry: %v %v", found, err)
	}
	// Creating it again (same seed, same id) does not duplicate the entry.
	if _, err := m.CreateGroup(ctx, manager.CreateGroupRequest{Addresses: []string{A.String(), A.String()}, From: str(A.String()), Seed: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	found, _ = m.FindGroups(ctx, []string{A.String()})
	if len(found) != 1 || found[0].PrivacyGroupID != g.PrivacyGroupID {
		t.Fatalf("find: %+v", found)
	}
	// A pushed copy of a group with no hosted member is refused.
	other, _ := keys.Generate(nil)
	data, _ := (&payload.PrivacyGroup{Addresses: []string{other.Public.String()}, State: payload.Active, Type: payload.Legacy}).MarshalCBOR()
	if _, err := m.StorePushedGroup(ctx, data, ""); ptm.CodeOf(err) != ptm.EnclaveNotPayloadOwner {
		t.Errorf("foreign group: %v", err)
	}
}
