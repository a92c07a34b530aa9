package e2e

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/internal/tlstrust"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

// The tests of this file play the attacks of issue 23 against real
// processes, each with a fake peer (ptmtest.FakePeer) in the attacker's
// role, and check that legitimate traffic still flows.

// known returns an instance's /knownnodes as key -> URL.
func known(t *testing.T, p *ptmtest.Process) map[string]string {
	t.Helper()
	var nodes []struct{ PublicKey, NodeURL string }
	r := p.Must(t, "GET", "/knownnodes", "", nil)
	if r.Status != 200 || json.Unmarshal(r.Body, &nodes) != nil {
		t.Fatalf("knownnodes: %v", r)
	}
	out := map[string]string{}
	for _, n := range nodes {
		out[n.PublicKey] = n.NodeURL
	}
	return out
}

// waitListed waits until p lists k at nodeURL.
func waitListed(t *testing.T, p *ptmtest.Process, k keys.PublicKey, nodeURL string) {
	t.Helper()
	ptmtest.WaitFor(t, 20*time.Second, fmt.Sprintf("%s to list %s at %s", p.Conf.Dir, k, nodeURL), func() bool {
		var nodes []struct{ PublicKey, NodeURL string }
		r, err := p.Do("GET", "/knownnodes", "", nil)
		if err != nil || json.Unmarshal(r.Body, &nodes) != nil {
			return false
		}
		for _, n := range nodes {
			if n.PublicKey == k.String() && n.NodeURL == nodeURL {
				return true
			}
		}
		return false
	})
}

// pair starts instances a (hosting keysA, default one key "a") and b (key
// "b", booting from a) and waits until each lists the other.
func pair(t *testing.T, extraA, extraB string, keysA ...string) (a, b *ptmtest.Process) {
	t.Helper()
	if len(keysA) == 0 {
		keysA = []string{"a"}
	}
	dir := t.TempDir()
	a = ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: keysA, Extra: extraA})
	b = ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, OtherNodes: []string{a.NodeURL()}, Extra: extraB})
	waitListed(t, a, b.Keys[0], b.NodeURL())
	waitListed(t, b, a.Keys[0], a.NodeURL())
	return a, b
}

// roundTrip sends msg from p's first key to `to` on q and checks q reads it.
func roundTrip(t *testing.T, p, q *ptmtest.Process, to keys.PublicKey, msg string) {
	t.Helper()
	key := p.Send(t, []byte(msg), p.Keys[0], to)
	if got, r, err := q.Receive(key, &to); got == nil || string(got.Payload) != msg {
		t.Errorf("%s -> %s: %v %v", p.Conf.Dir, q.Conf.Dir, r, err)
	}
}

// TestAttackKeySquatting is attack 1: a fake peer claims a key no instance
// has registered yet. The claim is challenged and fails, the key is not
// listed and nothing is pushed to the fake peer; when the key's owner
// starts, the key is routed to it; a second squatter relaying the
// challenges to the owner fails too.
func TestAttackKeySquatting(t *testing.T) {
	t.Parallel()
	a, b := pair(t, "", "")
	cDir := filepath.Join(t.TempDir(), "c")
	K := ptmtest.KeyFiles(t, cDir, "c") // C's key; C is not running yet
	A := a.Keys[0]

	m := ptmtest.NewFakePeer(t, "")
	r, reply := m.PostPartyInfo(t, a.NodeURL(), m.URL, map[string]string{K.String(): m.URL})
	if r.Status != 200 || len(reply) != 1 || reply[A] != a.NodeURL() {
		t.Fatalf("party info: %v %v", r, reply)
	}
	ptmtest.WaitFor(t, 20*time.Second, "A to challenge the squatter", func() bool { return m.Count("/partyinfo/validate") > 0 })
	if u, ok := known(t, a)[K.String()]; ok {
		t.Fatalf("A lists the squatted key at %s", u)
	}
	r = a.Must(t, "POST", "/send", "application/json", map[string]any{"payload": "c2VjcmV0", "from": A.String(), "to": []string{K.String()}})
	if r.Status != 500 || r.Error() != "NodeMissingPeerUrl" {
		t.Errorf("send to the squatted key: %v", r)
	}
	roundTrip(t, a, b, b.Keys[0], "A to B during the attack")

	// The owner starts and proves its key.
	c := ptmtest.StartProcess(t, ptmtest.Conf{Dir: cDir, Keys: []string{"c"}, OtherNodes: []string{a.NodeURL()}})
	waitListed(t, a, K, c.NodeURL())
	roundTrip(t, a, c, K, "A to the real owner of K")

	// A second squatter relays A's challenges to C and answers with C's
	// answers: C refuses a challenge for another URL than its own.
	m2 := ptmtest.NewFakePeer(t, "")
	m2.Relay(c.NodeURL())
	m2.PostPartyInfo(t, a.NodeURL(), m2.URL, map[string]string{K.String(): m2.URL})
	ptmtest.WaitFor(t, 20*time.Second, "the relayed challenge", func() bool { return len(m2.Relayed()) > 0 })
	for _, ans := range m2.Relayed() {
		if len(ans) != 0 {
			t.Errorf("C answered a relayed challenge: %x", ans)
		}
	}
	if u := known(t, a)[K.String()]; u != c.NodeURL() {
		t.Errorf("K at %s after the relay attack", u)
	}
	roundTrip(t, a, c, K, "A to C after the relay attack")
	if n := m.Count("/push") + m2.Count("/push"); n != 0 {
		t.Errorf("%d pushes reached the squatters", n)
	}
}

// TestAttackTableFlood is attack 2: 5000 made-up keys at 40 URLs in one
// party-info push. At most maxpeers URLs are challenged, with at most
// maxkeysperpeer keys each, none is polled or listed, and a real instance
// that joins afterwards is still found.
func TestAttackTableFlood(t *testing.T) {
	t.Parallel()
	a, b := pair(t, "maxpeers = 8\nmaxkeysperpeer = 16", "")
	sinks := make([]*ptmtest.FakePeer, 40)
	for i := range sinks {
		sinks[i] = ptmtest.NewFakePeer(t, "")
	}
	entries := map[string]string{}
	for i := range 5000 {
		var k keys.PublicKey
		rand.Read(k[:])
		entries[k.String()] = sinks[i%len(sinks)].URL
	}
	m := ptmtest.NewFakePeer(t, "")
	start := time.Now()
	r, reply := m.PostPartyInfo(t, a.NodeURL(), m.URL, entries)
	t.Logf("flood of %d keys answered in %v", len(entries), time.Since(start))
	if r.Status != 200 || len(reply) != 1 {
		t.Fatalf("flood answer: %v %v", r.Status, reply)
	}
	challenged := func() (urls, polled int) {
		for _, s := range sinks {
			if s.Count("/partyinfo/validate") > 0 {
				urls++
			}
			polled += s.Count("/partyinfo")
			for _, n := range s.Challenges() {
				if n > 16 {
					t.Errorf("%d challenges in one request to %s", n, s.URL)
				}
			}
		}
		return urls, polled
	}
	ptmtest.WaitFor(t, 20*time.Second, "A to challenge the flood's URLs", func() bool { n, _ := challenged(); return n >= 8 })
	if got := known(t, a); len(got) != 1 || got[b.Keys[0].String()] != b.NodeURL() {
		t.Errorf("A lists %d entries after the flood: %v", len(got), got)
	}
	roundTrip(t, a, b, b.Keys[0], "A to B after the flood")
	roundTrip(t, b, a, a.Keys[0], "B to A after the flood")
	// A third instance still joins.
	c := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(t.TempDir(), "c"), Keys: []string{"c"}, OtherNodes: []string{a.NodeURL()}})
	waitListed(t, a, c.Keys[0], c.NodeURL())
	roundTrip(t, a, c, c.Keys[0], "A to C after the flood")
	if n, polled := challenged(); n > 8 || polled != 0 {
		t.Errorf("%d of the flood's URLs challenged (limit 8), %d polls", n, polled)
	}
	// B hears of C from A, and of nothing else.
	waitListed(t, b, c.Keys[0], c.NodeURL())
	if got := known(t, b); len(got) != 2 {
		t.Errorf("B lists %v", got)
	}
}

// TestAttackGroupTampering is attack 3: pushing state DELETED for a legacy
// group of two other members. The push is refused whatever
// authentication the fake peer makes up; a real member's deletion works,
// and the next legacy send brings the legacy group back.
func TestAttackGroupTampering(t *testing.T) {
	t.Parallel()
	a, b := pair(t, "", "")
	A, B := a.Keys[0], b.Keys[0]
	// The legacy group of A and B exists on both: each has sent to the other.
	roundTrip(t, a, b, B, "A to B")
	roundTrip(t, b, a, A, "B to A")
	find := func(p *ptmtest.Process) []map[string]any {
		var out []map[string]any
		r := p.Must(t, "POST", "/findPrivacyGroup", "application/json", map[string]any{"addresses": []string{A.String(), B.String()}})
		if r.Status != 200 || json.Unmarshal(r.Body, &out) != nil {
			t.Fatalf("find: %v", r)
		}
		return out
	}
	groups := find(a)
	if len(groups) != 1 || groups[0]["type"] != "LEGACY" || len(find(b)) != 1 {
		t.Fatalf("legacy group: %v %v", groups, find(b))
	}
	id := groups[0]["privacyGroupId"].(string)

	m := ptmtest.NewFakePeer(t, "")
	deleted := &payload.PrivacyGroup{Addresses: []string{B.String(), A.String()}, Name: payload.LegacyName, Description: payload.LegacyDescription, State: payload.Deleted, Type: payload.Legacy}
	body, _ := deleted.MarshalCBOR()
	asItself := manager.GroupAuth{Sender: m.Pair.Public, Recipient: B, Box: make([]byte, 80)}
	asMember := manager.GroupAuth{Sender: A, Recipient: B, Box: make([]byte, 80)}
	rand.Read(asMember.Box)
	for _, p := range []*ptmtest.Process{a, b} {
		for name, auth := range map[string]string{"none": "", "as itself": asItself.String(), "as a member, forged": asMember.String()} {
			var headers []string
			if auth != "" {
				headers = []string{manager.GroupAuthHeader, auth}
			}
			r, err := m.Post(p.NodeURL(), "/pushPrivacyGroup", body, headers...)
			if err != nil || r.Status != 403 || r.Error() != "PrivacyGroupNotFromMember" {
				t.Errorf("push DELETED to %s (%s): %v %v", p.Conf.Dir, name, r, err)
			}
		}
	}
	for _, p := range []*ptmtest.Process{a, b} {
		if got := find(p); len(got) != 1 {
			t.Errorf("group gone on %s: %v", p.Conf.Dir, got)
		}
		p.SendToGroup(t, []byte("still there"), p.Keys[0], id)
	}

	// A member deletes it: gone on both. A legacy send brings it back on
	// the sender's side.
	if r := a.Must(t, "POST", "/deletePrivacyGroup", "application/json", map[string]any{"privacyGroupId": id, "from": A.String()}); r.Status != 200 {
		t.Fatalf("member's delete: %v", r)
	}
	for _, p := range []*ptmtest.Process{a, b} {
		if got := find(p); len(got) != 0 {
			t.Errorf("group left on %s: %v", p.Conf.Dir, got)
		}
	}
	if r := b.Must(t, "POST", "/send", "application/json", map[string]any{"payload": "eA==", "from": B.String(), "privacyGroupId": id}); r.Error() != "PrivacyGroupNotFound" {
		t.Errorf("send to the deleted group: %v", r)
	}
	roundTrip(t, b, a, A, "B to A again")
	if got := find(b); len(got) != 1 || got[0]["privacyGroupId"] != id {
		t.Errorf("legacy group not re-created by a legacy send: %v", got)
	}
	key := b.SendToGroup(t, []byte("group is back"), B, id)
	if got, r, _ := a.Receive(key, &A); got == nil || string(got.Payload) != "group is back" {
		t.Errorf("send to the re-created group: %v", r)
	}
}

// TestAttackDeleteByNonMember is attack 4: /deletePrivacyGroup with a from
// that is not a member (another key hosted on the same instance, a
// stranger's, none) is refused with DeletePrivacyGroupShouldIncludeSelf.
func TestAttackDeleteByNonMember(t *testing.T) {
	t.Parallel()
	a, b := pair(t, "", "", "a1", "a2")
	A1, A2, B := a.Keys[0], a.Keys[1], b.Keys[0]
	r := a.Must(t, "POST", "/createPrivacyGroup", "application/json", map[string]any{"addresses": []string{A1.String(), B.String()}, "from": A1.String(), "name": "a1 and b"})
	var g struct{ PrivacyGroupID string }
	if r.Status != 200 || json.Unmarshal(r.Body, &g) != nil {
		t.Fatalf("create: %v", r)
	}
	stranger, _ := keys.Generate(nil)
	for name, body := range map[string]map[string]any{
		"another hosted key": {"privacyGroupId": g.PrivacyGroupID, "from": A2.String()},
		"a stranger":         {"privacyGroupId": g.PrivacyGroupID, "from": stranger.Public.String()},
		"no from":            {"privacyGroupId": g.PrivacyGroupID},
	} {
		if r := a.Must(t, "POST", "/deletePrivacyGroup", "application/json", body); r.Status != 500 || r.Error() != "DeletePrivacyGroupShouldIncludeSelf" {
			t.Errorf("delete from %s: %v", name, r)
		}
	}
	for _, p := range []*ptmtest.Process{a, b} {
		if r := p.Must(t, "POST", "/retrievePrivacyGroup", "application/json", map[string]any{"privacyGroupId": g.PrivacyGroupID}); r.Status != 200 {
			t.Errorf("group gone on %s: %v", p.Conf.Dir, r)
		}
	}
	key := a.SendToGroup(t, []byte("to the group"), A1, g.PrivacyGroupID)
	if got, r, _ := b.Receive(key, &B); got == nil {
		t.Errorf("group send: %v", r)
	}
	// B, a member on the other instance, may delete it.
	if r := b.Must(t, "POST", "/deletePrivacyGroup", "application/json", map[string]any{"privacyGroupId": g.PrivacyGroupID, "from": B.String()}); r.Status != 200 {
		t.Fatalf("member's delete: %v", r)
	}
	if r := a.Must(t, "POST", "/retrievePrivacyGroup", "application/json", map[string]any{"privacyGroupId": g.PrivacyGroupID}); r.Status != 404 {
		t.Errorf("deleted group on A: %v", r)
	}
}

// TestAttackPartyInfoRead is attack 5: whoever posts /partyinfo — even
// claiming to be a listed instance — gets the instance's own keys only,
// never the table.
func TestAttackPartyInfoRead(t *testing.T) {
	t.Parallel()
	a, b, c := startTrio(t, [3]string{"memory", "memory", "memory"})
	m := ptmtest.NewFakePeer(t, "")
	for _, self := range []string{m.URL, b.NodeURL(), c.NodeURL()} {
		r, reply := m.PostPartyInfo(t, a.NodeURL(), self, nil)
		if r.Status != 200 || len(reply) != 1 || reply[a.Keys[0]] != a.NodeURL() {
			t.Errorf("party info as %s: %d entries %v", self, len(reply), reply)
		}
	}
	roundTrip(t, a, b, b.Keys[0], "A to B")
	roundTrip(t, b, c, c.Keys[0], "B to C")
	if n := m.Count("/partyinfo"); n != 0 {
		t.Errorf("A polled a fake peer that proved nothing %d times", n)
	}
}

// TestE2EThirdInstanceJoinsLater: an instance started after two others have
// settled is discovered, proven and used by both within seconds.
func TestE2EThirdInstanceJoinsLater(t *testing.T) {
	t.Parallel()
	a, b := pair(t, "", "")
	c := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(t.TempDir(), "c"), Keys: []string{"c"}, OtherNodes: []string{b.NodeURL()}})
	start := time.Now()
	C := c.Keys[0]
	waitListed(t, a, C, c.NodeURL())
	waitListed(t, b, C, c.NodeURL())
	waitListed(t, c, a.Keys[0], a.NodeURL())
	t.Logf("the third instance was listed everywhere %v after it answered /upcheck", time.Since(start).Round(time.Millisecond))
	roundTrip(t, a, c, C, "A to C")
	roundTrip(t, c, a, a.Keys[0], "C to A")
}

// certFingerprint returns the hex SHA-256 of a PEM certificate file.
func certFingerprint(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s: no PEM", path)
	}
	sum := sha256.Sum256(block.Bytes)
	return hex.EncodeToString(sum[:])
}

// tlsPeer prepares an instance directory for tls = "strict": certificates
// whose common name is name, in Orion's default file names.
func tlsPeer(t *testing.T, dir, name string) (serverFP, clientFP string) {
	t.Helper()
	for _, kind := range []string{"server", "client"} {
		if _, err := tlstrust.EnsureCertificate(filepath.Join(dir, "tls-"+kind+"-cert.pem"), filepath.Join(dir, "tls-"+kind+"-key.pem"), name); err != nil {
			t.Fatal(err)
		}
	}
	return certFingerprint(t, filepath.Join(dir, "tls-server-cert.pem")), certFingerprint(t, filepath.Join(dir, "tls-client-cert.pem"))
}

// TestE2EStrictTLS: with tls = "strict" and whitelist trust, an instance
// whose certificate is not trusted can neither push, nor pull or read party
// info, nor prove keys, and is never listed; trusted instances work.
func TestE2EStrictTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	confA := ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, NodePort: ptmtest.FreePort(t)}
	confB := ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, NodePort: ptmtest.FreePort(t)}
	confC := ptmtest.Conf{Dir: filepath.Join(dir, "c"), Keys: []string{"c"}, NodePort: ptmtest.FreePort(t)}
	aServer, aClient := tlsPeer(t, confA.Dir, "a.test")
	bServer, bClient := tlsPeer(t, confB.Dir, "b.test")
	tlsPeer(t, confC.Dir, "c.test")
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A and B trust each other's certificates, and nothing else.
	write(filepath.Join(confA.Dir, "tls-known-clients"), "b.test "+bClient+"\n")
	write(filepath.Join(confA.Dir, "tls-known-servers"), fmt.Sprintf("127.0.0.1:%d %s\n", confB.NodePort, bServer))
	write(filepath.Join(confB.Dir, "tls-known-clients"), "a.test "+aClient+"\n")
	write(filepath.Join(confB.Dir, "tls-known-servers"), fmt.Sprintf("127.0.0.1:%d %s\n", confA.NodePort, aServer))
	strict := "tls = \"strict\"\ntlsservertrust = \"whitelist\"\ntlsclienttrust = \"whitelist\""
	confA.Extra, confB.Extra = strict, strict
	// C would trust anyone, but nobody trusts C.
	confC.Extra = "tls = \"strict\"\ntlsservertrust = \"insecure-no-validation\"\ntlsclienttrust = \"insecure-no-validation\""
	a := ptmtest.StartProcess(t, confA)
	confB.OtherNodes = []string{a.NodeURL()}
	b := ptmtest.StartProcess(t, confB)
	confC.OtherNodes = []string{a.NodeURL(), b.NodeURL()}
	c := ptmtest.StartProcess(t, confC)

	waitListed(t, a, b.Keys[0], b.NodeURL())
	waitListed(t, b, a.Keys[0], a.NodeURL())
	roundTrip(t, a, b, b.Keys[0], "A to B over trusted TLS")
	ptmtest.WaitFor(t, 20*time.Second, "C's polls to fail", func() bool { return strings.Count(c.Logs(), "party info poll failed") >= 2 })

	// C's own client certificate, used directly: every node API route is
	// refused at the TLS handshake.
	cert, err := tls.LoadX509KeyPair(filepath.Join(confC.Dir, "tls-client-cert.pem"), filepath.Join(confC.Dir, "tls-client-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{cert}, InsecureSkipVerify: true}}}
	for _, p := range []*ptmtest.Process{a, b} {
		for _, path := range []string{"/partyinfo", "/partyinfo/validate", "/push", "/pushPrivacyGroup", "/upcheck"} {
			u := strings.Replace(p.NodeURL(), "http:", "https:", 1) + strings.TrimPrefix(path, "/")
			resp, err := hc.Post(u, "application/cbor", strings.NewReader("\xa0"))
			if err == nil {
				resp.Body.Close()
				t.Errorf("%s of %s answered %d to an untrusted certificate", path, p.Conf.Dir, resp.StatusCode)
			}
		}
	}
	for _, p := range []*ptmtest.Process{a, b} {
		if _, ok := known(t, p)[c.Keys[0].String()]; ok {
			t.Errorf("%s lists the untrusted instance", p.Conf.Dir)
		}
	}
	if got := known(t, c); len(got) != 0 {
		t.Errorf("the untrusted instance learnt %v", got)
	}
	if r := c.Must(t, "POST", "/send", "application/json", map[string]any{"payload": "eA==", "from": c.Keys[0].String(), "to": []string{a.Keys[0].String()}}); r.Status != 500 {
		t.Errorf("untrusted instance sent to A: %v", r)
	}
}

// TestE2EDiscoveryOff: with peerdiscovery = false an instance lists only
// its fixed peers (othernodes), however much they know, and its node API
// serves only their addresses; ipwhitelist is enforced on the others.
func TestE2EDiscoveryOff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	confA := ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, NodePort: ptmtest.FreePort(t)}
	b := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, OtherNodes: []string{confA.NodeURL()}, Extra: `ipwhitelist = ["127.0.0.1"]`})
	c := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "c"), Keys: []string{"c"}, OtherNodes: []string{b.NodeURL()}})
	confA.OtherNodes = []string{b.NodeURL()}
	confA.Extra = "peerdiscovery = false"
	a := ptmtest.StartProcess(t, confA)
	A, B, C := a.Keys[0], b.Keys[0], c.Keys[0]
	waitListed(t, a, B, b.NodeURL())
	waitListed(t, b, A, a.NodeURL())
	waitListed(t, b, C, c.NodeURL())
	// C hears of A from B and proves it: A answers C's challenge (C is on
	// an allowed address) but takes nothing from C's table.
	waitListed(t, c, A, a.NodeURL())
	if got := known(t, a); len(got) != 1 || got[B.String()] != b.NodeURL() {
		t.Errorf("A with discovery off lists %v", got)
	}
	roundTrip(t, a, b, B, "A to its fixed peer")
	if r := a.Must(t, "POST", "/send", "application/json", map[string]any{"payload": "eA==", "from": A.String(), "to": []string{C.String()}}); r.Error() != "NodeMissingPeerUrl" {
		t.Errorf("A sent to an instance outside its fixed peers: %v", r)
	}
	// A caller from another address is refused by A (not a fixed peer's)
	// and by B (not in ipwhitelist), on every route.
	m := ptmtest.NewFakePeer(t, "127.0.0.2")
	for _, p := range []*ptmtest.Process{a, b} {
		for _, path := range []string{"/partyinfo", "/partyinfo/validate", "/push", "/pushPrivacyGroup"} {
			if r, err := m.Post(p.NodeURL(), path, []byte{0xa0}); err != nil || r.Status != 403 {
				t.Errorf("%s %s from 127.0.0.2: %v %v", p.Conf.Dir, path, r, err)
			}
		}
	}
	if r, _ := ptmtest.NewFakePeer(t, "").Post(b.NodeURL(), "/partyinfo", []byte{0xa0}); r == nil || r.Status != 200 {
		t.Errorf("B refused an allowed address: %v", r)
	}
}

// TestE2EClientAPIAuth: the client API's access control (Orion #427) —
// bearer tokens, a tenant's token limited to its keys, and mutual TLS.
func TestE2EClientAPIAuth(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Tokens: the node's (every key) and a tenant's (key t only).
	confA := ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"node", "tenant"}, ClientToken: "node-token-000000000001"}
	tenantKey := ptmtest.KeyFiles(t, confA.Dir, "tenant")
	if err := os.WriteFile(filepath.Join(confA.Dir, "tokens"), []byte("node-token-000000000001\ntenant-token-00000000001 "+tenantKey.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	confA.Extra = `clientapitokens = "tokens"`
	a := ptmtest.StartProcess(t, confA)
	N := a.Keys[0]
	key := a.Send(t, []byte("for the node"), N, N)
	anon := ptmtest.NewAPI(a.URL)
	if r := anon.Must(t, "POST", "/receive", "application/vnd.orion.v1+json", map[string]any{"key": key, "to": nil}); r.Status != 401 || r.Error() != "Unauthorized" {
		t.Errorf("receive without a token: %v", r)
	}
	if !anon.Up() {
		t.Error("upcheck needs a token")
	}
	tenant := ptmtest.NewAPI(a.URL)
	tenant.Token = "tenant-token-00000000001"
	if _, r, _ := tenant.Receive(key, nil); r.Status != 404 {
		t.Errorf("tenant reads the node's payload: %v", r)
	}
	if _, r, _ := tenant.Receive(key, &N); r.Status != 403 || r.Error() != "Forbidden" {
		t.Errorf("tenant reads as the node's key: %v", r)
	}
	tkey := tenant.Send(t, []byte("tenant's"), tenantKey, tenantKey)
	if got, r, _ := tenant.Receive(tkey, nil); got == nil || string(got.Payload) != "tenant's" {
		t.Errorf("tenant's own payload: %v", r)
	}

	// Mutual TLS on the client API: only a client whose certificate is
	// listed is served.
	confB := ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}}
	clientCert, clientKey := filepath.Join(dir, "node-client-cert.pem"), filepath.Join(dir, "node-client-key.pem")
	if _, err := tlstrust.EnsureCertificate(clientCert, clientKey, "node.test"); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(confB.Dir, 0o755)
	os.WriteFile(filepath.Join(confB.Dir, "client-connection-tls-known-clients"), []byte("node.test "+certFingerprint(t, clientCert)+"\n"), 0o644)
	confB.Extra = "clientconnectiontls = \"strict\"\nclientconnectiontlsservertrust = \"whitelist\""
	cert, err := tls.LoadX509KeyPair(clientCert, clientKey)
	if err != nil {
		t.Fatal(err)
	}
	confB.ClientTLS = &tls.Config{Certificates: []tls.Certificate{cert}, InsecureSkipVerify: true}
	b := ptmtest.StartProcess(t, confB)
	key = b.Send(t, []byte("mutual TLS"), b.Keys[0], b.Keys[0])
	if got, r, _ := b.Receive(key, nil); got == nil || string(got.Payload) != "mutual TLS" {
		t.Errorf("trusted client: %v", r)
	}
	other, otherKey := filepath.Join(dir, "other-cert.pem"), filepath.Join(dir, "other-key.pem")
	tlstrust.EnsureCertificate(other, otherKey, "node.test") // same name, another key
	ocert, _ := tls.LoadX509KeyPair(other, otherKey)
	for name, cfg := range map[string]*tls.Config{
		"no certificate":        {InsecureSkipVerify: true},
		"untrusted certificate": {Certificates: []tls.Certificate{ocert}, InsecureSkipVerify: true},
	} {
		if r, err := ptmtest.NewTLSAPI(b.URL, cfg).Do("POST", "/receive", "application/json", map[string]any{"key": key}); err == nil {
			t.Errorf("%s: answered %v", name, r)
		}
	}
}
