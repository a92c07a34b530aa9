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

// directPeers delivers pushes straight to other managers, by URL.
type directPeers map[string]*manager.Manager

func (d directPeers) Push(ctx context.Context, u string, p *payload.EncryptedPayload) (string, error) {
	data, _ := p.MarshalCBOR()
	return d[u].StorePushed(ctx, data)
}

func (d directPeers) PushGroup(ctx context.Context, u string, body []byte, auth string) (string, error) {
	return d[u].StorePushedGroup(ctx, body, auth)
}

// pairOfManagers returns managers a (hosting 2 keys) and b (1 key) that
// know each other's keys and push to each other directly.
func pairOfManagers(t *testing.T) (a, b *manager.Manager, A1, A2, B keys.PublicKey) {
	peers := directPeers{}
	a, pa := ptmtest.Manager(t, 2, peers)
	b, pb := ptmtest.Manager(t, 1, peers)
	// Both tables say http://self:1/ for their own keys: give b another URL
	// in a's table and the reverse.
	peers["http://b/"], peers["http://a/"] = b, a
	a.Table.Prove(ctx, "http://b/", []keys.PublicKey{pb[0].Public})
	b.Table.Prove(ctx, "http://a/", []keys.PublicKey{pa[0].Public, pa[1].Public})
	return a, b, pa[0].Public, pa[1].Public, pb[0].Public
}

// TestGroupPushAuthentication: a pushed group is stored only when one of
// its members pushed it; deleting takes a member.
func TestGroupPushAuthentication(t *testing.T) {
	a, b, A1, A2, B := pairOfManagers(t)
	g, err := a.CreateGroup(ctx, manager.CreateGroupRequest{Addresses: []string{A1.String(), B.String()}, From: str(A1.String())})
	if err != nil {
		t.Fatal(err)
	}
	if found, _ := b.FindGroups(ctx, []string{A1.String(), B.String()}); len(found) != 1 {
		t.Fatalf("group not pushed to b: %v", found)
	}
	// An outsider pushes a deletion: unauthenticated, authenticated as
	// itself, or with a member's authentication of another body.
	outsider, _ := keys.Generate(nil)
	deleted := &payload.PrivacyGroup{Addresses: []string{A1.String(), B.String()}, State: payload.Deleted, Type: payload.Pantheon}
	stored, _ := b.Store.Get(ctx, []byte(g.PrivacyGroupID))
	sg, _ := payload.DecodePrivacyGroup(stored)
	deleted.RandomSeed, deleted.Name, deleted.Description = sg.RandomSeed, sg.Name, sg.Description
	body, _ := deleted.MarshalCBOR()
	outEnc := enclave.New([]keys.KeyPair{outsider}, nil)
	asOutsider := manager.GroupAuth{Sender: outsider.Public, Recipient: B}
	asOutsider.Box, _ = outEnc.Seal(outsider.Public, B, &asOutsider.Nonce, make([]byte, 64))
	forged := manager.GroupAuth{Sender: A1, Recipient: B, Box: make([]byte, 80)}
	for name, auth := range map[string]string{
		"none":              "",
		"garbage":           "x,y,z",
		"outsider":          asOutsider.String(),
		"forged member box": forged.String(),
	} {
		if _, err := b.StorePushedGroup(ctx, body, auth); ptm.CodeOf(err) != ptm.PrivacyGroupNotFromMember {
			t.Errorf("%s: %v", name, err)
		}
	}
	if found, _ := b.FindGroups(ctx, []string{A1.String(), B.String()}); len(found) != 1 {
		t.Fatalf("group tampered with: %v", found)
	}
	// The client API refuses a deleter that is not a member, or none.
	for _, from := range []*string{str(A2.String()), str(outsider.Public.String()), nil} {
		if _, err := a.DeleteGroup(ctx, g.PrivacyGroupID, from); ptm.CodeOf(err) != ptm.DeletePrivacyGroupShouldIncludeSelf {
			t.Errorf("delete from %v: %v", from, err)
		}
	}
	// B, a member, deletes it: the push is authenticated and a stores it.
	if _, err := b.DeleteGroup(ctx, g.PrivacyGroupID, str(B.String())); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RetrieveGroup(ctx, g.PrivacyGroupID); ptm.CodeOf(err) != ptm.PrivacyGroupNotFound {
		t.Errorf("deleted group on a: %v", err)
	}
}

// TestLegacyGroupComesBack: a legacy send re-creates a deleted legacy
// group.
func TestLegacyGroupComesBack(t *testing.T) {
	a, _, A1, _, B := pairOfManagers(t)
	if _, err := a.Send(ctx, manager.SendRequest{Payload: []byte("x"), From: str(A1.String()), To: []string{B.String()}}); err != nil {
		t.Fatal(err)
	}
	found, _ := a.FindGroups(ctx, []string{A1.String(), B.String()})
	if len(found) != 1 || found[0].Type != payload.Legacy {
		t.Fatalf("legacy group: %v", found)
	}
	id := found[0].PrivacyGroupID
	if _, err := a.DeleteGroup(ctx, id, str(A1.String())); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, manager.SendRequest{Payload: []byte("x"), From: str(A1.String()), PrivacyGroupID: &id}); ptm.CodeOf(err) != ptm.PrivacyGroupNotFound {
		t.Fatalf("send to the deleted group: %v", err)
	}
	if _, err := a.Send(ctx, manager.SendRequest{Payload: []byte("y"), From: str(A1.String()), To: []string{B.String()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, manager.SendRequest{Payload: []byte("z"), From: str(A1.String()), PrivacyGroupID: &id}); err != nil {
		t.Errorf("send to the re-created legacy group: %v", err)
	}
	if found, _ := a.FindGroups(ctx, []string{B.String(), A1.String()}); len(found) != 1 {
		t.Errorf("find after re-creation: %v", found)
	}
}

// TestAccess: a caller limited to some keys (a tenant's token) acts only
// as them.
func TestAccess(t *testing.T) {
	a, _, A1, A2, B := pairOfManagers(t)
	open := ctx
	tenant := manager.WithAccess(ctx, manager.NewAccess([]keys.PublicKey{A2}))
	key, err := a.Send(open, manager.SendRequest{Payload: []byte("for A1"), From: str(B.String()), To: []string{A1.String()}})
	if ptm.CodeOf(err) != ptm.EnclaveNoMatchingPrivateKey {
		t.Fatalf("send from a key not hosted: %v", err)
	}
	key, err = a.Send(open, manager.SendRequest{Payload: []byte("for A1"), From: str(A1.String()), To: []string{A1.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Receive(tenant, key, nil); ptm.CodeOf(err) != ptm.EnclaveKeysCannotDecryptPayload {
		t.Errorf("tenant receives another key's payload: %v", err)
	}
	if _, err := a.Receive(tenant, key, str(A1.String())); ptm.CodeOf(err) != ptm.Forbidden {
		t.Errorf("tenant receives as another key: %v", err)
	}
	if _, err := a.Send(tenant, manager.SendRequest{Payload: []byte("x"), From: str(A1.String()), To: []string{B.String()}}); ptm.CodeOf(err) != ptm.Forbidden {
		t.Errorf("tenant sends as another key: %v", err)
	}
	// Without from, a tenant sends from its first key.
	key, err = a.Send(tenant, manager.SendRequest{Payload: []byte("mine"), To: []string{A2.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := a.Receive(tenant, key, nil); err != nil || got.SenderKey != A2.String() {
		t.Errorf("tenant's own payload: %v %v", got, err)
	}
	g, err := a.CreateGroup(open, manager.CreateGroupRequest{Addresses: []string{A1.String(), B.String()}, From: str(A1.String())})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.RetrieveGroup(tenant, g.PrivacyGroupID); ptm.CodeOf(err) != ptm.PrivacyGroupNotFound {
		t.Errorf("tenant retrieves another's group: %v", err)
	}
	if found, _ := a.FindGroups(tenant, []string{A1.String(), B.String()}); len(found) != 0 {
		t.Errorf("tenant finds another's group: %v", found)
	}
	if _, err := a.CreateGroup(tenant, manager.CreateGroupRequest{Addresses: []string{A1.String(), B.String()}, From: str(A1.String())}); ptm.CodeOf(err) != ptm.Forbidden {
		t.Errorf("tenant creates as another key: %v", err)
	}
	if _, err := a.DeleteGroup(tenant, g.PrivacyGroupID, str(A1.String())); ptm.CodeOf(err) != ptm.Forbidden {
		t.Errorf("tenant deletes as another key: %v", err)
	}
}

// FuzzParseGroupAuth: the parser of the group push header never panics,
// and what it accepts prints back the same.
func FuzzParseGroupAuth(f *testing.F) {
	k, _ := keys.Generate(nil)
	f.Add((&manager.GroupAuth{Sender: k.Public, Recipient: k.Public, Box: make([]byte, 80)}).String())
	f.Add(",,")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := manager.ParseGroupAuth(s)
		if err != nil {
			return
		}
		if b, err := manager.ParseGroupAuth(a.String()); err != nil || b.String() != a.String() {
			t.Fatalf("round trip of %q: %v", s, err)
		}
	})
}
