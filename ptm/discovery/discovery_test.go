package discovery

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
)

var ctx = context.Background()

func pair(t testing.TB) keys.KeyPair {
	kp, err := keys.Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

// key returns a random public key. The table does not care whether it is a
// curve point, and this is much cheaper than generating a pair.
func key(t testing.TB) keys.PublicKey {
	var k keys.PublicKey
	if _, err := rand.Read(k[:]); err != nil {
		t.Fatal(err)
	}
	return k
}

func newTable(t testing.TB, kv storage.KV, self string, own []keys.PublicKey, opts Options) *Table {
	t.Helper()
	if kv == nil {
		kv = storage.NewMemory()
	}
	tb, err := NewTable(ctx, kv, self, own, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// docker/ha/partyinfo.cbor in ConsenSys/orion, as Jackson-CBOR wrote it
// (indefinite-length maps, no "url").
const orionPartyInfo = "bf676e6f6465504b73bf782c4468444a436b53756547717a2f73694a4375414152446f5776507041497a6e78365757704a4f4f3037476f3d7818687474703a2f2f6578616d706c652e636f6d3a393030312fff686e6f646555524c73817818687474703a2f2f6578616d706c652e636f6d3a393030312fff"

func TestDecodeOrionPartyInfo(t *testing.T) {
	data, _ := hex.DecodeString(orionPartyInfo)
	p, entries, err := DecodePartyInfo(data)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := keys.ParsePublicKey("DhDJCkSueGqz/siJCuAARDoWvPpAIznx6WWpJOO07Go=")
	if len(entries) != 1 || entries[k] != "http://example.com:9001/" || p.URL != "" || len(p.NodeURLs) != 1 {
		t.Errorf("decoded %+v %v", p, entries)
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":        "http://127.0.0.1:8080/",
		"HTTP://Node.Example:8080/x?y": "http://node.example:8080/",
		"https://h/":                   "https://h/",
		"http://[::1]:80/":             "http://[::1]:80/",
	} {
		if got, err := Canonical(in); err != nil || got != want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "no-scheme", "http://", "ftp://h/", "http:///x", "http://u:p@h/", "http://h:/"} {
		if _, err := Canonical(bad); err == nil {
			t.Errorf("Canonical(%q) accepted", bad)
		}
	}
	for a, b := range map[string]string{"http://h:443/": "https://H/", "http://h/": "http://h:80/a"} {
		if Endpoint(a) != Endpoint(b) || Endpoint(a) == "" {
			t.Errorf("Endpoint(%q) %q != Endpoint(%q) %q", a, Endpoint(a), b, Endpoint(b))
		}
	}
	if Endpoint("http://h:1/") == Endpoint("http://h:2/") || Endpoint("::") != "" {
		t.Error("endpoints of different ports are equal, or garbage has one")
	}
}

func TestPartyInfoRoundTrip(t *testing.T) {
	own := key(t)
	table := newTable(t, nil, "http://me:8080/", []keys.PublicKey{own}, Options{})
	other := key(t)
	table.Prove(ctx, "http://peer:8080/", []keys.PublicKey{other})
	data, err := table.PartyInfo().Encode()
	if err != nil {
		t.Fatal(err)
	}
	p, entries, err := DecodePartyInfo(data)
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != "http://me:8080/" || len(p.NodeURLs) != 2 || entries[own] != "http://me:8080/" || entries[other] != "http://peer:8080/" {
		t.Errorf("round trip: %+v %v", p, entries)
	}
	for name, bad := range map[string]map[string]any{
		"bad key":     {"nodePKs": map[string]string{"xx": "http://h/"}},
		"bad url":     {"nodePKs": map[string]string{own.String(): "not a url"}},
		"no host":     {"nodePKs": map[string]string{own.String(): "http:///x"}},
		"nodePKs int": {"nodePKs": 3},
	} {
		data, _ := payload.Marshal(bad)
		if _, _, err := DecodePartyInfo(data); !errors.Is(err, payload.ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestOfferIsNotListing: a claim is only queued; the table lists it once
// proved, and never lets a claim take over an own key or a listed one.
func TestOfferIsNotListing(t *testing.T) {
	own, a, b := key(t), key(t), key(t)
	table := newTable(t, nil, "http://me/", []keys.PublicKey{own}, Options{})
	st := table.Offer(map[keys.PublicKey]string{a: "http://a/", b: "http://a/", own: "http://impostor/"})
	if st.Queued != 2 || st.Ignored != 1 {
		t.Errorf("offer: %+v", st)
	}
	if _, ok := table.URLFor(a); ok || len(table.Entries()) != 1 || len(table.Peers()) != 0 {
		t.Fatalf("a claim was listed: %v", table.Entries())
	}
	select {
	case <-table.Ready():
	default:
		t.Error("no claim signalled")
	}
	c, ok := table.Next()
	if !ok || c.URL != "http://a/" || len(c.Keys) != 2 || c.Recheck {
		t.Fatalf("next: %+v %v", c, ok)
	}
	if _, ok := table.Next(); ok {
		t.Error("second claim")
	}
	added, conflicts, err := table.Prove(ctx, "http://a/", []keys.PublicKey{a})
	if err != nil || len(added) != 1 || len(conflicts) != 0 {
		t.Fatalf("prove: %v %v %v", added, conflicts, err)
	}
	select {
	case <-table.Changed():
	default:
		t.Error("no change signalled")
	}
	if u, _ := table.URLFor(a); u != "http://a/" {
		t.Errorf("a at %q", u)
	}
	if _, ok := table.URLFor(b); ok {
		t.Error("unproven b listed")
	}
	// Claims of a listed entry at another URL are conflicts, not changes.
	table.Offer(map[keys.PublicKey]string{a: "http://other/"})
	c, _ = table.Next()
	added, conflicts, _ = table.Prove(ctx, c.URL, c.Keys)
	if len(added) != 0 || conflicts[a] != "http://a/" {
		t.Errorf("conflict: %v %v", added, conflicts)
	}
	if u, _ := table.URLFor(a); u != "http://a/" {
		t.Errorf("a moved by a claim: %q", u)
	}
	// Once settled, the same claim is ignored; Replace moves it.
	table.Settle(a, "http://other/", time.Minute)
	if st := table.Offer(map[keys.PublicKey]string{a: "http://other/"}); st.Queued != 0 {
		t.Errorf("settled claim queued: %+v", st)
	}
	if ok, _ := table.Replace(ctx, a, "http://a/", "http://other/"); !ok {
		t.Error("replace")
	}
	if u, _ := table.URLFor(a); u != "http://other/" || table.IsPeer("http://a/") {
		t.Errorf("after replace: %q %v", u, table.Peers())
	}
	// Own URL and own keys cannot be listed for others.
	if added, _, _ := table.Prove(ctx, "http://me/", []keys.PublicKey{b}); len(added) != 0 {
		t.Error("a key listed at our own URL")
	}
	if added, _, _ := table.Prove(ctx, "http://x/", []keys.PublicKey{own}); len(added) != 0 {
		t.Error("own key listed elsewhere")
	}
}

// TestTableLimits: the attack of a party-info table of 5000 made-up keys
// queues no more than the limits allow, and a full table takes no more.
func TestTableLimits(t *testing.T) {
	table := newTable(t, nil, "http://me/", nil, Options{Limits: Limits{MaxPeers: 3, MaxKeysPerPeer: 4}})
	flood := map[keys.PublicKey]string{}
	for i := range 5000 {
		flood[key(t)] = fmt.Sprintf("http://10.0.%d.%d:8080/", i/250, i%250)
	}
	for range 100 {
		flood[key(t)] = "http://one:1/"
	}
	st := table.Offer(flood)
	if table.Pending() != 3 || st.Queued > 3*4 || st.Queued+st.Dropped+st.Ignored != len(flood) {
		t.Fatalf("flood: pending %d, %+v", table.Pending(), st)
	}
	var proven int
	for {
		c, ok := table.Next()
		if !ok {
			break
		}
		if len(c.Keys) > 4 {
			t.Errorf("%d keys claimed for %s", len(c.Keys), c.URL)
		}
		added, _, _ := table.Prove(ctx, c.URL, c.Keys)
		proven += len(added)
	}
	if len(table.Peers()) != 3 || proven > 12 {
		t.Errorf("peers %v, %d keys", table.Peers(), proven)
	}
	// A fourth instance does not fit; more keys for a full one do not either.
	if added, _, _ := table.Prove(ctx, "http://fourth/", []keys.PublicKey{key(t)}); len(added) != 0 {
		t.Error("fourth peer listed")
	}
	if st := table.Offer(map[keys.PublicKey]string{key(t): "http://fourth/"}); st.Dropped != 1 {
		t.Errorf("fourth peer's claim: %+v", st)
	}
	one := table.Peers()[0]
	table.Prove(ctx, one, []keys.PublicKey{key(t), key(t), key(t), key(t), key(t)})
	if n := len(table.KeysAt(one)); n > 4 {
		t.Errorf("%d keys at %s", n, one)
	}
	// Eviction frees room.
	if n, _ := table.Evict(ctx, one); n == 0 || table.IsPeer(one) {
		t.Errorf("evict: %d", n)
	}
	if added, _, _ := table.Prove(ctx, "http://fourth/", []keys.PublicKey{key(t)}); len(added) != 1 {
		t.Error("no room after eviction")
	}
}

func TestCooldown(t *testing.T) {
	table := newTable(t, nil, "http://me/", nil, Options{})
	now := time.Unix(1000, 0)
	table.now = func() time.Time { return now }
	table.Cool("http://bad/", time.Minute)
	if st := table.Offer(map[keys.PublicKey]string{key(t): "http://bad/"}); st.Queued != 0 {
		t.Errorf("cooling URL queued: %+v", st)
	}
	now = now.Add(2 * time.Minute)
	if st := table.Offer(map[keys.PublicKey]string{key(t): "http://bad/"}); st.Queued != 1 {
		t.Errorf("after the cool-down: %+v", st)
	}
	// The map of cool-downs stays bounded whatever URLs are claimed.
	for i := range 10_000 {
		table.Cool(fmt.Sprintf("http://h%d/", i), time.Hour)
	}
	if n := len(table.cooldown); n > 4*DefaultMaxPeers+64 {
		t.Errorf("%d cool-downs kept", n)
	}
}

// TestFixedPeers: with discovery off only the fixed URLs are listed and
// nothing is passed on.
func TestFixedPeers(t *testing.T) {
	own, a, b := key(t), key(t), key(t)
	table := newTable(t, nil, "http://me/", []keys.PublicKey{own}, Options{Fixed: []string{"http://a:1"}})
	st := table.Offer(map[keys.PublicKey]string{a: "http://a:1/", b: "http://b:1/"})
	if st.Queued != 1 || st.Ignored != 1 {
		t.Errorf("offer: %+v", st)
	}
	table.Prove(ctx, "http://a:1/", []keys.PublicKey{a})
	if added, _, _ := table.Prove(ctx, "http://b:1/", []keys.PublicKey{b}); len(added) != 0 {
		t.Error("a URL outside the fixed list was listed")
	}
	if p := table.PartyInfoFor("http://a:1/"); len(p.NodePKs) != 1 || p.NodePKs[own.String()] != "http://me/" {
		t.Errorf("party info to a fixed peer: %v", p.NodePKs)
	}
}

// TestPartyInfoFor: an instance that proved nothing learns only our own
// keys; a listed one gets the table.
func TestPartyInfoFor(t *testing.T) {
	own, a := key(t), key(t)
	table := newTable(t, nil, "http://me/", []keys.PublicKey{own}, Options{})
	table.Prove(ctx, "http://a/", []keys.PublicKey{a})
	if p := table.PartyInfoFor("http://stranger/"); len(p.NodePKs) != 1 || p.URL != "http://me/" {
		t.Errorf("to a stranger: %v", p.NodePKs)
	}
	if p := table.PartyInfoFor("http://a/"); len(p.NodePKs) != 2 {
		t.Errorf("to a listed peer: %v", p.NodePKs)
	}
}

func TestTablePersistence(t *testing.T) {
	kv := storage.NewMemory()
	own, a, b := key(t), key(t), key(t)
	table := newTable(t, kv, "http://me/", []keys.PublicKey{own}, Options{})
	table.Prove(ctx, "http://a/", []keys.PublicKey{a})
	table.Prove(ctx, "http://b/", []keys.PublicKey{b})
	table.Forget(ctx, "http://b/", []keys.PublicKey{b})
	// A persisted table is reloaded, its entries queued to be proven
	// again; own keys get the (new) URL.
	kv.Put(ctx, []byte("a payload key, not a node entry, 44 bytes.."), []byte("x"))
	again := newTable(t, kv, "http://me-now/", []keys.PublicKey{own}, Options{})
	if u, _ := again.URLFor(a); u != "http://a/" || len(again.Entries()) != 2 {
		t.Errorf("reloaded: %v", again.Entries())
	}
	if u, _ := again.URLFor(own); u != "http://me-now/" {
		t.Errorf("own URL after reload: %s", u)
	}
	if c, ok := again.Next(); !ok || !c.Recheck || c.URL != "http://a/" {
		t.Errorf("reloaded entries not re-checked: %+v", c)
	}
	// With discovery off, entries of other URLs are dropped on load.
	fixed := newTable(t, kv, "http://me/", []keys.PublicKey{own}, Options{Fixed: []string{"http://z/"}})
	if _, ok := fixed.URLFor(a); ok {
		t.Error("entry outside the fixed list loaded")
	}
	if err := Clear(ctx, kv); err != nil {
		t.Fatal(err)
	}
	if cleared := newTable(t, kv, "http://me/", nil, Options{}); len(cleared.Entries()) != 0 {
		t.Errorf("after Clear: %v", cleared.Entries())
	}
	if _, err := kv.Get(ctx, []byte("a payload key, not a node entry, 44 bytes..")); err != nil {
		t.Error("Clear removed a non-table entry")
	}
}

// TestProof: the owner of a key answers its challenge; nobody else can,
// not even by relaying it to the owner.
func TestProof(t *testing.T) {
	owner := pair(t)
	ownerEnc := enclave.New([]keys.KeyPair{owner}, nil)
	other := pair(t)
	otherEnc := enclave.New([]keys.KeyPair{other}, nil)
	stranger := key(t)

	proof, body, err := NewProof(rand.Reader, "http://owner:8080/", []keys.PublicKey{owner.Public, stranger})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := Answer(ownerEnc, "http://OWNER:8080", body)
	if err != nil {
		t.Fatal(err)
	}
	proven, failed, err := proof.Check(reply)
	if err != nil || !slices.Equal(proven, []keys.PublicKey{owner.Public}) || !slices.Equal(failed, []keys.PublicKey{stranger}) {
		t.Errorf("owner: proven %v failed %v %v", proven, failed, err)
	}
	// Another instance cannot open it.
	reply, _ = Answer(otherEnc, "http://owner:8080/", body)
	if proven, _, _ := proof.Check(reply); len(proven) != 0 {
		t.Error("a non-owner proved the key")
	}
	// A squatter at http://squat/ relays a challenge for its own URL to
	// the owner: the owner refuses, the URL inside is not its own.
	proof, body, _ = NewProof(rand.Reader, "http://squat:8080/", []keys.PublicKey{owner.Public})
	reply, _ = Answer(ownerEnc, "http://owner:8080/", body)
	if proven, _, _ := proof.Check(reply); len(proven) != 0 {
		t.Error("a relayed challenge was answered")
	}
	// The endpoint is no decryption oracle: a payload's encrypted key,
	// posed as a challenge, is not opened.
	sender := pair(t)
	p, _ := enclave.New([]keys.KeyPair{sender}, nil).Encrypt([]byte("secret"), sender.Public, []keys.PublicKey{owner.Public}, nil)
	req := ValidateRequest{URL: "http://owner:8080/", Challenges: []Challenge{{Key: owner.Public.String(), Sender: sender.Public[:], Nonce: p.Nonce[:], Box: p.EncryptedKeys[0]}}}
	data, _ := payload.Marshal(&req)
	reply, _ = Answer(ownerEnc, "http://owner:8080/", data)
	var r ValidateReply
	if err := payload.Unmarshal(reply, &r); err != nil || len(r.Answers) != 1 || len(r.Answers[0]) != 0 {
		t.Errorf("payload key answered: %v %x", err, r.Answers)
	}
	// One open per hosted key, however many challenges: the rest are
	// refused.
	proof, body, _ = NewProof(rand.Reader, "http://owner:8080/", []keys.PublicKey{owner.Public, owner.Public, owner.Public})
	reply, _ = Answer(ownerEnc, "http://owner:8080/", body)
	if proven, _, _ := proof.Check(reply); len(proven) != 1 {
		t.Errorf("%d of 3 repeated challenges answered", len(proven))
	}
	// Malformed answers.
	if _, _, err := proof.Check([]byte{0xa0}); err == nil {
		t.Error("an answer without answers accepted")
	}
	if _, err := Answer(ownerEnc, "http://owner:8080/", []byte{0xa0}); !errors.Is(err, ErrNoChallenge) {
		t.Errorf("empty request: %v", err)
	}
}

// node is an instance of fakeNet.
type node struct {
	url   string
	table *Table
	enc   *enclave.Enclave
}

// fakeNet is a Poller over in-memory instances.
type fakeNet struct {
	mu     sync.Mutex
	nodes  map[string]*node
	calls  map[string][]time.Time
	proofs map[string]int
}

func (f *fakeNet) node(u string) *node {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nodes[u]
}

func (f *fakeNet) PartyInfo(ctx context.Context, u string, body []byte) ([]byte, error) {
	f.mu.Lock()
	f.calls[u] = append(f.calls[u], time.Now())
	f.mu.Unlock()
	n := f.node(u)
	if n == nil {
		return nil, errors.New("connection refused")
	}
	_, entries, err := DecodePartyInfo(body)
	if err != nil {
		return nil, err
	}
	n.table.Offer(entries)
	return n.table.OwnPartyInfo().Encode()
}

func (f *fakeNet) Validate(ctx context.Context, u string, body []byte) ([]byte, error) {
	f.mu.Lock()
	f.proofs[u]++
	f.mu.Unlock()
	n := f.node(u)
	if n == nil {
		return nil, errors.New("connection refused")
	}
	return Answer(n.enc, n.url, body)
}

func (f *fakeNet) add(t *testing.T, u string, claims ...keys.PublicKey) *node {
	kp := pair(t)
	n := &node{url: u, enc: enclave.New([]keys.KeyPair{kp}, nil)}
	n.table = newTable(t, nil, u, append([]keys.PublicKey{kp.Public}, claims...), Options{})
	f.mu.Lock()
	f.nodes[u] = n
	f.mu.Unlock()
	return n
}

// TestDiscoveryConverges: three instances find each other through one, a
// squatter claiming a key it does not hold is never listed, and an
// unreachable URL is polled with growing delays.
func TestDiscoveryConverges(t *testing.T) {
	net := &fakeNet{nodes: map[string]*node{}, calls: map[string][]time.Time{}, proofs: map[string]int{}}
	a, b, c := net.add(t, "http://a/"), net.add(t, "http://b/"), net.add(t, "http://c/")
	// The squatter claims c's key (its table says so, and it answers
	// party info with it), but holds only its own.
	cKey := c.table.OwnPartyInfo()
	var victim keys.PublicKey
	for ks := range cKey.NodePKs {
		victim, _ = keys.ParsePublicKey(ks)
	}
	squat := net.add(t, "http://squat/", victim)
	cctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i, n := range []*node{a, b, c, squat} {
		var boot []string
		if i > 0 {
			boot = []string{"http://a/", "http://down/"}
		}
		d := &Discovery{Table: n.table, Poller: net, BootNodes: boot, FirstDelay: 5 * time.Millisecond, MaxDelay: 40 * time.Millisecond}
		wg.Go(func() { d.Run(cctx) })
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		done := true
		for _, n := range []*node{a, b, c} {
			// Own key, the two others and the squatter's own key.
			done = done && len(n.table.Entries()) == 4
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tables did not converge: a %v b %v c %v", a.table.Entries(), b.table.Entries(), c.table.Entries())
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	wg.Wait()
	for _, n := range []*node{a, b} {
		if u, _ := n.table.URLFor(victim); u != "http://c/" {
			t.Errorf("%s lists c's key at %q", n.url, u)
		}
	}
	net.mu.Lock()
	defer net.mu.Unlock()
	if net.proofs["http://squat/"] == 0 {
		t.Error("the squatter was never challenged")
	}
	// Polls of an unreachable URL back off: the gaps grow.
	calls := net.calls["http://down/"]
	if len(calls) < 3 {
		t.Fatalf("%d polls of the down node", len(calls))
	}
	if net.proofs["http://down/"] != 0 {
		t.Error("an URL nobody claimed a key at was challenged")
	}
}

// TestEviction: a listed instance that stops answering is dropped after the
// eviction period; its boot-node poll goes on, and it is listed again when
// it comes back.
func TestEviction(t *testing.T) {
	net := &fakeNet{nodes: map[string]*node{}, calls: map[string][]time.Time{}, proofs: map[string]int{}}
	a, b := net.add(t, "http://a/"), net.add(t, "http://b/")
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	d := &Discovery{Table: a.table, Poller: net, BootNodes: []string{"http://b/"}, FirstDelay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond, EvictAfter: 100 * time.Millisecond}
	wg.Go(func() { d.Run(cctx) })
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: %v", what, a.table.Entries())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	wait("b listed", func() bool { return a.table.IsPeer("http://b/") })
	net.mu.Lock()
	delete(net.nodes, "http://b/")
	net.mu.Unlock()
	wait("b evicted", func() bool { return !a.table.IsPeer("http://b/") })
	net.mu.Lock()
	net.nodes["http://b/"] = b
	net.mu.Unlock()
	wait("b listed again", func() bool { return a.table.IsPeer("http://b/") })
	cancel()
}
