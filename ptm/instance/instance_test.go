package instance_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"

	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

// trio starts three in-process instances hosting keys A, B and C; B and C
// boot from A, and the test waits until every table knows every key.
func trio(t *testing.T) (a, b, c *ptmtest.InProcess) {
	t.Helper()
	dir := t.TempDir()
	a = ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}})
	b = ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, OtherNodes: []string{a.Conf.NodeURL()}})
	c = ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "c"), Keys: []string{"c"}, OtherNodes: []string{a.Conf.NodeURL()}})
	waitKnown(t, 3, a, b, c)
	return a, b, c
}

func waitKnown(t *testing.T, n int, ins ...*ptmtest.InProcess) {
	t.Helper()
	ptmtest.WaitFor(t, 15*time.Second, "discovery to settle", func() bool {
		for _, in := range ins {
			if len(in.Inst.Table.Entries()) != n {
				return false
			}
		}
		return true
	})
}

func TestSendReceive(t *testing.T) {
	t.Parallel()
	a, b, c := trio(t)
	A, B, C := a.Keys[0], b.Keys[0], c.Keys[0]
	msg := []byte("private payload")
	key := a.Send(t, msg, A, B)

	got, r, err := b.Receive(key, &B)
	if err != nil || got == nil {
		t.Fatalf("B receive: %v %v", r, err)
	}
	legacyID := enclave.GroupIDString([]keys.PublicKey{B, A}, nil, payload.Legacy)
	if !bytes.Equal(got.Payload, msg) || got.PrivacyGroupID != legacyID || got.SenderKey != A.String() {
		t.Errorf("B received %+v, want group %s sender %s", got, legacyID, A)
	}
	// to omitted (Besu sends "to": null): every hosted key is tried.
	if got, r, _ := b.Receive(key, nil); got == nil || !bytes.Equal(got.Payload, msg) {
		t.Errorf("B receive without to: %v", r)
	}
	// application/json gives the payload only.
	r = b.Must(t, "POST", "/receive", "application/json", map[string]any{"key": key, "to": B.String()})
	if r.Status != 200 || string(r.Body) != `{"payload":"`+base64.StdEncoding.EncodeToString(msg)+`"}` ||
		r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("json receive: %v %v", r, r.Header)
	}
	// The sender can read its own payload.
	if got, r, _ := a.Receive(key, &A); got == nil || !bytes.Equal(got.Payload, msg) {
		t.Errorf("A receive own payload: %v", r)
	}
	// C is not a party: not found there.
	if _, r, _ := c.Receive(key, &C); r.Status != 404 || r.Error() != "EnclavePayloadNotFound" {
		t.Errorf("C receive: %v", r)
	}
	// On A, as B (not hosted on A): the payload exists but cannot be opened.
	if _, r, _ := a.Receive(key, &B); r.Status != 404 || r.Error() != "EnclaveKeysCannotDecryptPayload" {
		t.Errorf("A receive as B: %v", r)
	}
	// The key is the Base64 SHA-512/256 of the cipher text: 44 characters.
	if raw, err := base64.StdEncoding.DecodeString(key); err != nil || len(raw) != 32 {
		t.Errorf("key %q", key)
	}

	// Raw endpoints: comma-separated c11n-to, raw body, raw key back.
	r = a.Must(t, "POST", "/sendraw", "application/octet-stream", []byte{0, 1, 2, 255}, "c11n-from", A.String(), "c11n-to", B.String()+","+C.String())
	if r.Status != 200 || len(r.Body) != 44 || r.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("sendraw: %v", r)
	}
	rawKey := string(r.Body)
	for _, in := range []*ptmtest.InProcess{a, b, c} {
		r := in.Must(t, "POST", "/receiveraw", "application/octet-stream", nil, "c11n-key", rawKey)
		if r.Status != 200 || !bytes.Equal(r.Body, []byte{0, 1, 2, 255}) {
			t.Errorf("receiveraw on %s: %v", in.Conf.Dir, r)
		}
	}
	// Without "to", /send goes to "from" only.
	self := a.Must(t, "POST", "/send", "application/json", map[string]any{"payload": "c2VsZg==", "from": A.String()})
	var sk struct{ Key string }
	json.Unmarshal(self.Body, &sk)
	if got, r, _ := a.Receive(sk.Key, nil); got == nil || string(got.Payload) != "self" {
		t.Errorf("send to self: %v %v", self, r)
	}
	// Without "from", the first hosted key sends.
	r = a.Must(t, "POST", "/send", "application/json", map[string]any{"payload": "eA==", "to": []string{B.String()}})
	json.Unmarshal(r.Body, &sk)
	if got, _, _ := b.Receive(sk.Key, nil); got == nil || got.SenderKey != A.String() {
		t.Errorf("send without from: %v", r)
	}
}

func TestPrivacyGroups(t *testing.T) {
	t.Parallel()
	a, b, c := trio(t)
	A, B, C := a.Keys[0], b.Keys[0], c.Keys[0]
	r := a.Must(t, "POST", "/createPrivacyGroup", "application/json", map[string]any{
		"addresses": []string{A.String(), B.String()}, "from": A.String(), "name": "ab", "description": "A and B",
	})
	var g struct {
		PrivacyGroupID string   `json:"privacyGroupId"`
		Name           string   `json:"name"`
		Description    string   `json:"description"`
		Type           string   `json:"type"`
		Members        []string `json:"members"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &g) != nil || g.Type != "PANTHEON" || g.Name != "ab" ||
		!slices.Equal(g.Members, []string{A.String(), B.String()}) {
		t.Fatalf("create: %v", r)
	}
	find := func(in *ptmtest.InProcess, members ...keys.PublicKey) []map[string]any {
		r := in.Must(t, "POST", "/findPrivacyGroup", "application/json", map[string]any{"addresses": ptmtest.Strings(members)})
		var out []map[string]any
		if r.Status != 200 || json.Unmarshal(r.Body, &out) != nil {
			t.Fatalf("find: %v", r)
		}
		return out
	}
	// Visible on B (pushed), in any member order; not on C; not for other sets.
	for _, members := range [][]keys.PublicKey{{A, B}, {B, A}, {B, A, B}} {
		if got := find(b, members...); len(got) != 1 || got[0]["privacyGroupId"] != g.PrivacyGroupID || got[0]["type"] != "PANTHEON" {
			t.Errorf("find on B %v: %v", members, got)
		}
	}
	if got := find(c, A, B); len(got) != 0 {
		t.Errorf("find on C: %v", got)
	}
	if got := find(a, A); len(got) != 0 {
		t.Errorf("find subset: %v", got)
	}
	if got := find(a, A, B, C); len(got) != 0 {
		t.Errorf("find superset: %v", got)
	}
	r = b.Must(t, "POST", "/retrievePrivacyGroup", "application/json", map[string]any{"privacyGroupId": g.PrivacyGroupID})
	if r.Status != 200 || !strings.Contains(string(r.Body), `"name":"ab"`) {
		t.Errorf("retrieve on B: %v", r)
	}

	// A send to the group reaches B, carrying the group id.
	key := a.SendToGroup(t, []byte("to the group"), A, g.PrivacyGroupID)
	got, r, _ := b.Receive(key, nil)
	if got == nil || string(got.Payload) != "to the group" || got.PrivacyGroupID != g.PrivacyGroupID {
		t.Errorf("group payload on B: %+v %v", got, r)
	}
	if _, r, _ := c.Receive(key, nil); r.Status != 404 {
		t.Errorf("group payload on C: %v", r)
	}
	// B can send to the group too (it got the group, with its seed).
	key = b.SendToGroup(t, []byte("reply"), B, g.PrivacyGroupID)
	if got, _, _ := a.Receive(key, nil); got == nil || got.PrivacyGroupID != g.PrivacyGroupID {
		t.Errorf("reply on A: %+v", got)
	}

	// A legacy send creates a LEGACY group, found by its members.
	a.Send(t, []byte("legacy"), A, C)
	legacy := find(a, C, A)
	if len(legacy) != 1 || legacy[0]["type"] != "LEGACY" || legacy[0]["name"] != "legacy" {
		t.Errorf("legacy group: %v", legacy)
	}

	// Delete propagates.
	r = a.Must(t, "POST", "/deletePrivacyGroup", "application/json", map[string]any{"privacyGroupId": g.PrivacyGroupID, "from": A.String()})
	if r.Status != 200 || string(r.Body) != `"`+g.PrivacyGroupID+`"` {
		t.Fatalf("delete: %v", r)
	}
	for _, in := range []*ptmtest.InProcess{a, b} {
		if got := find(in, A, B); len(got) != 0 {
			t.Errorf("find after delete on %s: %v", in.Conf.Dir, got)
		}
		r := in.Must(t, "POST", "/retrievePrivacyGroup", "application/json", map[string]any{"privacyGroupId": g.PrivacyGroupID})
		if r.Status != 404 || r.Error() != "PrivacyGroupNotFound" {
			t.Errorf("retrieve after delete: %v", r)
		}
	}
	r = b.Must(t, "POST", "/send", "application/json", map[string]any{"payload": "eA==", "from": B.String(), "privacyGroupId": g.PrivacyGroupID})
	if r.Status != 500 || r.Error() != "PrivacyGroupNotFound" {
		t.Errorf("send to deleted group: %v", r)
	}
	r = a.Must(t, "POST", "/deletePrivacyGroup", "application/json", map[string]any{"privacyGroupId": g.PrivacyGroupID, "from": A.String()})
	if r.Status != 500 || r.Error() != "PrivacyGroupNotDeleted" {
		t.Errorf("second delete: %v", r)
	}
}

func TestKnownNodes(t *testing.T) {
	t.Parallel()
	a, b, c := trio(t)
	r := a.Must(t, "GET", "/knownnodes", "", nil)
	var nodes []struct{ PublicKey, NodeURL string }
	if r.Status != 200 || json.Unmarshal(r.Body, &nodes) != nil {
		t.Fatal(r)
	}
	want := map[string]string{b.Keys[0].String(): b.Conf.NodeURL(), c.Keys[0].String(): c.Conf.NodeURL()}
	if len(nodes) != 2 {
		t.Fatalf("knownnodes: %s", r.Body)
	}
	for _, n := range nodes {
		if want[n.PublicKey] != n.NodeURL {
			t.Errorf("knownnodes entry %+v", n)
		}
	}
	if r := b.Must(t, "GET", "/peercount", "", nil); string(r.Body) != "3" {
		t.Errorf("peercount: %v", r)
	}
	if r := b.NodeAPI().Must(t, "GET", "/upcheck", "", nil); string(r.Body) != "I'm up!" {
		t.Errorf("node upcheck: %v", r)
	}
}

// payloadCount counts the payloads an instance stores.
func payloadCount(t *testing.T, in *ptmtest.InProcess) int {
	n := 0
	in.Inst.Manager.Store.ForEach(context.Background(), func(k, v []byte) error {
		if _, err := payload.DecodeEncryptedPayload(v); err == nil {
			n++
		}
		return nil
	})
	return n
}

func TestSendFailsWhenRecipientDown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}})
	b := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, OtherNodes: []string{a.Conf.NodeURL()}})
	waitKnown(t, 2, a, b)
	A, B := a.Keys[0], b.Keys[0]
	b.Close()

	r := a.Must(t, "POST", "/send", "application/json", map[string]any{"payload": "eA==", "from": A.String(), "to": []string{B.String()}})
	if r.Status != 500 || r.Error() != "NodePropagatingToAllPeers" {
		t.Fatalf("send to a down peer: %v", r)
	}
	if n := payloadCount(t, a); n != 0 {
		t.Errorf("a failed send stored %d payloads", n)
	}
	// The same instance back (same ports and keys): the retry succeeds.
	b = ptmtest.StartInProcess(t, b.Conf)
	key := a.Send(t, []byte("retry"), A, B)
	if got, r, _ := b.Receive(key, nil); got == nil || string(got.Payload) != "retry" {
		t.Errorf("after retry: %v", r)
	}
	// A key no instance is known to host.
	other, _ := keys.Generate(nil)
	r = a.Must(t, "POST", "/send", "application/json", map[string]any{"payload": "eA==", "from": A.String(), "to": []string{other.Public.String()}})
	if r.Status != 500 || r.Error() != "NodeMissingPeerUrl" {
		t.Errorf("send to an unknown key: %v", r)
	}
	r = a.Must(t, "POST", "/createPrivacyGroup", "application/json", map[string]any{"addresses": []string{A.String(), other.Public.String()}, "from": A.String()})
	if r.Status != 500 || r.Error() != "NodeMissingPeerUrl" {
		t.Errorf("group with an unknown key: %v", r)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Extra: "maxpayloadsize = 1024"})
	A := a.Keys[0].String()
	other, _ := keys.Generate(nil)
	big := base64.StdEncoding.EncodeToString(make([]byte, 1025))
	huge := strings.Repeat("A", 4<<20)
	tests := []struct {
		name, method, path, ct string
		body                   any
		headers                []string
		status                 int
		code                   string
	}{
		{"payload not base64", "POST", "/send", "application/json", `{"payload":"!!!","from":"` + A + `"}`, nil, 500, "InvalidPayload"},
		{"payload missing", "POST", "/send", "application/json", `{"from":"` + A + `","to":["` + A + `"]}`, nil, 500, "InvalidPayload"},
		{"payload empty", "POST", "/send", "application/json", `{"payload":"","from":"` + A + `"}`, nil, 500, "InvalidPayload"},
		{"no recipients, no from", "POST", "/send", "application/json", `{"payload":"eA=="}`, nil, 500, "InvalidPayload"},
		{"empty recipient", "POST", "/send", "application/json", `{"payload":"eA==","from":"` + A + `","to":[""]}`, nil, 500, "InvalidPayload"},
		{"empty from", "POST", "/send", "application/json", `{"payload":"eA==","from":"","to":["` + A + `"]}`, nil, 500, "InvalidPayload"},
		{"recipient not base64", "POST", "/send", "application/json", `{"payload":"eA==","from":"` + A + `","to":["not a key"]}`, nil, 500, "EnclaveDecodePublicKey"},
		{"recipient wrong length", "POST", "/send", "application/json", `{"payload":"eA==","from":"` + A + `","to":["AAAA"]}`, nil, 500, "EnclaveDecodePublicKey"},
		{"from not hosted", "POST", "/send", "application/json", `{"payload":"eA==","from":"` + other.Public.String() + `","to":["` + A + `"]}`, nil, 500, "EnclaveNoMatchingPrivateKey"},
		{"unknown group", "POST", "/send", "application/json", `{"payload":"eA==","from":"` + A + `","privacyGroupId":"nope"}`, nil, 500, "PrivacyGroupNotFound"},
		{"payload over the limit", "POST", "/send", "application/json", `{"payload":"` + big + `","from":"` + A + `"}`, nil, 413, "PayloadTooLarge"},
		{"body over the limit", "POST", "/send", "application/json", `{"payload":"` + huge + `"}`, nil, 413, "PayloadTooLarge"},
		{"raw payload over the limit", "POST", "/sendraw", "application/octet-stream", make([]byte, 1025), []string{"c11n-from", A}, 413, "PayloadTooLarge"},
		{"raw empty", "POST", "/sendraw", "application/octet-stream", nil, []string{"c11n-from", A}, 500, "InvalidPayload"},
		{"raw empty c11n-to", "POST", "/sendraw", "application/octet-stream", "x", []string{"c11n-to", ""}, 500, "InvalidPayload"},
		{"malformed JSON", "POST", "/send", "application/json", `{"payload":`, nil, 500, "ObjectJsonDeserialization"},
		{"JSON array", "POST", "/send", "application/json", `[]`, nil, 500, "ObjectJsonDeserialization"},
		{"unknown field", "POST", "/send", "application/json", `{"payload":"eA==","from":"` + A + `","privacygroupid":"x"}`, nil, 500, "ObjectJsonDeserialization"},
		{"wrong type", "POST", "/send", "application/json", `{"payload":1}`, nil, 500, "ObjectJsonDeserialization"},
		{"trailing data", "POST", "/send", "application/json", `{"payload":"eA==","from":"` + A + `"} {}`, nil, 500, "ObjectJsonDeserialization"},
		{"receive unknown key", "POST", "/receive", "application/json", `{"key":"AAAA"}`, nil, 404, "EnclavePayloadNotFound"},
		{"receive without key", "POST", "/receive", "application/json", `{"to":null}`, nil, 500, "ObjectJsonDeserialization"},
		{"receive bad to", "POST", "/receive", "application/vnd.orion.v1+json", `{"key":"AAAA","to":"??"}`, nil, 404, "EnclavePayloadNotFound"},
		{"receiveraw without key", "POST", "/receiveraw", "application/octet-stream", nil, nil, 404, "EnclavePayloadNotFound"},
		{"create without self", "POST", "/createPrivacyGroup", "application/json", `{"addresses":["` + other.Public.String() + `"],"from":"` + A + `"}`, nil, 500, "CreatePrivacyGroupShouldIncludeSelf"},
		{"create without addresses", "POST", "/createPrivacyGroup", "application/json", `{"from":"` + A + `"}`, nil, 500, "CreateGroupInvalidParams"},
		{"create bad key", "POST", "/createPrivacyGroup", "application/json", `{"addresses":["` + A + `","xx"],"from":"` + A + `"}`, nil, 500, "EnclaveDecodePublicKey"},
		{"create bad seed", "POST", "/createPrivacyGroup", "application/json", `{"addresses":["` + A + `"],"from":"` + A + `","seed":"!"}`, nil, 500, "CreateGroupInvalidParams"},
		{"delete unknown", "POST", "/deletePrivacyGroup", "application/json", `{"privacyGroupId":"x","from":"` + A + `"}`, nil, 500, "PrivacyGroupNotDeleted"},
		{"find bad key", "POST", "/findPrivacyGroup", "application/json", `{"addresses":["x"]}`, nil, 500, "EnclaveDecodePublicKey"},
		{"find without addresses", "POST", "/findPrivacyGroup", "application/json", `{}`, nil, 500, "ObjectJsonDeserialization"},
		{"retrieve null id", "POST", "/retrievePrivacyGroup", "application/json", `{"privacyGroupId":null}`, nil, 400, "ObjectJsonDeserialization"},
		{"retrieve unknown", "POST", "/retrievePrivacyGroup", "application/json", `{"privacyGroupId":"x"}`, nil, 404, "PrivacyGroupNotFound"},
		{"wrong media type", "POST", "/send", "text/plain", `{}`, nil, 404, ""},
		{"no media type", "POST", "/send", "", `{}`, nil, 404, ""},
		{"wrong method", "GET", "/send", "", nil, nil, 404, ""},
		{"unknown path", "GET", "/nope", "", nil, nil, 404, ""},
		{"node route on client port", "POST", "/push", "application/cbor", []byte{0xa0}, nil, 404, ""},
		{"json with charset", "POST", "/findPrivacyGroup", "application/json; charset=UTF-8", `{"addresses":[]}`, nil, 200, ""},
	}
	for _, tc := range tests {
		r, err := a.Do(tc.method, tc.path, tc.ct, tc.body, tc.headers...)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if r.Status != tc.status || r.Error() != tc.code {
			t.Errorf("%s: got %v, want %d %q", tc.name, r, tc.status, tc.code)
		}
		if tc.code != "" && r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: error Content-Type %q", tc.name, r.Header.Get("Content-Type"))
		}
	}

	node := a.NodeAPI()
	valid := validPush(t, a.Keys[0])
	nodeTests := []struct {
		name, method, path, ct string
		body                   any
		status                 int
		code                   string
	}{
		{"push garbage", "POST", "/push", "application/cbor", []byte{0xff, 0x00, 0x13}, 500, "ObjectJsonDeserialization"},
		{"push empty", "POST", "/push", "application/cbor", []byte{}, 500, "ObjectJsonDeserialization"},
		{"push not ours", "POST", "/push", "application/cbor", validPush(t, other.Public), 500, "EnclaveNotPayloadOwner"},
		{"push ours", "POST", "/push", "application/cbor", valid, 200, ""},
		{"push group garbage", "POST", "/pushPrivacyGroup", "application/cbor", []byte{0xbf}, 500, "ObjectJsonDeserialization"},
		{"partyinfo garbage", "POST", "/partyinfo", "application/cbor", []byte("{}"), 500, "ObjectJsonDeserialization"},
		{"partyinfo bad key", "POST", "/partyinfo", "application/cbor", partyInfo(t, map[string]string{"x": "http://h:1/"}), 500, "ObjectJsonDeserialization"},
		{"partyinfo bad url", "POST", "/partyinfo", "application/cbor", partyInfo(t, map[string]string{A: "ftp://h/"}), 500, "ObjectJsonDeserialization"},
		{"push as json", "POST", "/push", "application/json", `{}`, 404, ""},
		{"client route on node port", "POST", "/send", "application/json", `{}`, 404, ""},
		{"push over the limit", "POST", "/push", "application/cbor", make([]byte, 3<<20), 413, "PayloadTooLarge"},
	}
	for _, tc := range nodeTests {
		r, err := node.Do(tc.method, tc.path, tc.ct, tc.body)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if r.Status != tc.status || r.Error() != tc.code {
			t.Errorf("node %s: got %v, want %d %q", tc.name, r, tc.status, tc.code)
		}
	}
	// The instance still works.
	a.Send(t, []byte("still up"), a.Keys[0])
}

// validPush returns the CBOR of a payload encrypted for to by a throw-away
// sender.
func validPush(t *testing.T, to keys.PublicKey) []byte {
	sender, _ := keys.Generate(nil)
	p, err := enclave.New([]keys.KeyPair{sender}, nil).Encrypt([]byte("pushed"), sender.Public, []keys.PublicKey{to}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := p.StripFor([]keys.PublicKey{to})
	data, _ := s.MarshalCBOR()
	return data
}

func partyInfo(t *testing.T, pks map[string]string) []byte {
	data, err := payload.Marshal(map[string]any{"url": "http://h:1/", "nodeURLs": []string{}, "nodePKs": pks})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestVersionAndUpcheck(t *testing.T) {
	t.Parallel()
	a := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: t.TempDir(), Keys: []string{"a"}})
	if r := a.Must(t, "GET", "/upcheck", "", nil); r.Status != 200 || string(r.Body) != "I'm up!" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("upcheck: %v", r)
	}
	if r := a.Must(t, "GET", "/version", "", nil); r.Status != 200 || string(r.Body) != "test" {
		t.Errorf("version: %v", r)
	}
}
