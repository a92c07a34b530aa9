package q2tapi_test

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

// trio starts three in-process instances with the Q2T API on, B and C
// booting from A, and waits until each knows the other two.
func trio(t *testing.T) (a, b, c *ptmtest.InProcess) {
	t.Helper()
	dir := t.TempDir()
	q2t := "q2tenabled = true\nq2tport = 0"
	a = ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Extra: q2t})
	b = ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, Extra: q2t, OtherNodes: []string{a.Conf.NodeURL()}})
	c = ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "c"), Keys: []string{"c"}, Extra: q2t, OtherNodes: []string{a.Conf.NodeURL()}})
	ptmtest.WaitFor(t, 20*time.Second, "discovery to settle", func() bool {
		for _, p := range []*ptmtest.InProcess{a, b, c} {
			var nodes []map[string]string
			r, err := p.Do("GET", "/knownnodes", "", nil)
			if err != nil || json.Unmarshal(r.Body, &nodes) != nil || len(nodes) != 2 {
				return false
			}
		}
		return true
	})
	return a, b, c
}

func q2t(p *ptmtest.InProcess) *ptmtest.API { return ptmtest.NewAPI(p.Inst.Q2TURL()) }

// txPath is the path GoQuorum asks for a key: url.PathEscape of its Base64.
func txPath(key string, suffix string) string {
	return "/transaction/" + url.PathEscape(key) + suffix
}

type sent struct {
	Key            string   `json:"key"`
	ManagedParties []string `json:"managedParties"`
	SenderKey      string   `json:"senderKey"`
}

type received struct {
	Payload                      []byte   `json:"payload"`
	AffectedContractTransactions []string `json:"affectedContractTransactions"`
	ExecHash                     string   `json:"execHash"`
	PrivacyFlag                  int      `json:"privacyFlag"`
	ManagedParties               []string `json:"managedParties"`
	SenderKey                    string   `json:"senderKey"`
}

// goquorumSend is the body GoQuorum 24.4.1's tessera client posts to /send
// for a standard private transaction.
func goquorumSend(payload []byte, from string, to ...string) map[string]any {
	return map[string]any{"payload": payload, "from": from, "to": to, "affectedContractTransactions": []string{},
		"privacyFlag": 0, "mandatoryRecipients": nil}
}

// TestQ2TSendReceive: a payload sent through A's Q2T API to B is read by B
// by its Tessera key (SHA3-512 of the cipher text, escaped as GoQuorum
// escapes it), not by C (404, which GoQuorum reads as "not a party"); the
// Orion client API reads the same payloads.
func TestQ2TSendReceive(t *testing.T) {
	t.Parallel()
	a, b, c := trio(t)
	A, B := a.Keys[0].String(), b.Keys[0].String()
	qa, qb, qc := q2t(a), q2t(b), q2t(c)

	if r := qa.Must(t, "GET", "/upcheck", "", nil); r.Status != 200 || string(r.Body) != "I'm up!" {
		t.Fatalf("upcheck: %v", r)
	}
	if r := qa.Must(t, "GET", "/version", "", nil); r.Status != 200 {
		t.Fatalf("version: %v", r)
	}
	if r := qa.Must(t, "GET", "/version/api", "", nil); r.Status != 200 || string(r.Body) != `["1.0"]` {
		t.Fatalf("version/api: %v", r)
	}

	// Send until a key has a "/" in its Base64, to prove the escaping.
	var s sent
	for i := 0; i < 64 && !strings.Contains(s.Key, "/"); i++ {
		r := qa.Must(t, "POST", "/send", "application/json", goquorumSend([]byte("for B"), A, B))
		if r.Status != 201 {
			t.Fatalf("send: %v", r)
		}
		if err := json.Unmarshal(r.Body, &s); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(s.Key, "/") {
		t.Fatal("no key with a / in 64 sends")
	}
	raw, err := base64.StdEncoding.DecodeString(s.Key)
	if err != nil || len(raw) != 64 {
		t.Fatalf("key %q: %d bytes, %v", s.Key, len(raw), err)
	}
	if s.SenderKey != A || !slices.Equal(s.ManagedParties, []string{A}) {
		t.Errorf("send answer: %+v", s)
	}

	for _, p := range []struct {
		api  *ptmtest.API
		name string
	}{{qa, "A"}, {qb, "B"}} {
		r := p.api.Must(t, "GET", txPath(s.Key, "?isRaw=false"), "application/json", nil)
		var got received
		if r.Status != 200 || json.Unmarshal(r.Body, &got) != nil || string(got.Payload) != "for B" || got.SenderKey != A {
			t.Fatalf("%s receive: %v", p.name, r)
		}
		if got.PrivacyFlag != 0 || got.ExecHash != "" || got.AffectedContractTransactions == nil || len(got.ManagedParties) != 1 {
			t.Errorf("%s receive fields: %s", p.name, r.Body)
		}
	}
	if r := qc.Must(t, "GET", txPath(s.Key, "?isRaw=false"), "", nil); r.Status != 404 {
		t.Errorf("C receive: %v, want 404", r)
	}
	unknown := base64.StdEncoding.EncodeToString(make([]byte, 64))
	if r := qa.Must(t, "GET", txPath(unknown, ""), "", nil); r.Status != 404 {
		t.Errorf("unknown key: %v, want 404", r)
	}
	if r := qa.Must(t, "GET", "/transaction/notbase64", "", nil); r.Status != 404 {
		t.Errorf("bad key: %v, want 404", r)
	}

	// isSender and participants: the sender knows every party, B itself.
	if r := qa.Must(t, "GET", txPath(s.Key, "/isSender"), "", nil); string(r.Body) != "true" {
		t.Errorf("A isSender: %v", r)
	}
	if r := qb.Must(t, "GET", txPath(s.Key, "/isSender"), "", nil); string(r.Body) != "false" {
		t.Errorf("B isSender: %v", r)
	}
	if r := qa.Must(t, "GET", txPath(s.Key, "/participants"), "", nil); string(r.Body) != B+","+A {
		t.Errorf("A participants: %v", r)
	}
	if r := qb.Must(t, "GET", txPath(s.Key, "/participants"), "", nil); string(r.Body) != B {
		t.Errorf("B participants: %v", r)
	}
	if r := qc.Must(t, "GET", txPath(s.Key, "/isSender"), "", nil); r.Status != 404 {
		t.Errorf("C isSender: %v", r)
	}

	// The Orion client API still works beside it.
	okey := a.Send(t, []byte("orion"), a.Keys[0], b.Keys[0])
	if got, r, _ := b.Receive(okey, nil); got == nil || string(got.Payload) != "orion" {
		t.Fatalf("orion receive: %v", r)
	}
	// A Q2T send to nobody is for its sender alone, as in Tessera.
	r := qc.Must(t, "POST", "/send", "application/vnd.tessera-2.1+json", map[string]any{"payload": []byte("self"), "to": []string{}})
	if r.Status != 201 || json.Unmarshal(r.Body, &s) != nil || s.SenderKey != c.Keys[0].String() {
		t.Fatalf("send to self: %v", r)
	}
	if r := qc.Must(t, "GET", txPath(s.Key, ""), "", nil); r.Status != 200 {
		t.Errorf("self receive: %v", r)
	}

	// /partyinfo/keys lists the network's keys.
	var keys struct{ Keys []struct{ Key string } }
	r = qa.Must(t, "GET", "/partyinfo/keys", "", nil)
	if json.Unmarshal(r.Body, &keys) != nil || len(keys.Keys) != 3 {
		t.Errorf("partyinfo/keys: %v", r)
	}
}

// TestQ2TStoreRawSendSigned: /storeraw keeps a payload for its sender only
// (isRaw=true reads it, the plain receive does not); /sendsignedtx, in the
// 1.0 octet-stream form GoQuorum uses with this API version and in the JSON
// form, shares it under the same key.
func TestQ2TStoreRawSendSigned(t *testing.T) {
	t.Parallel()
	a, b, _ := trio(t)
	A, B := a.Keys[0].String(), b.Keys[0].String()
	qa, qb := q2t(a), q2t(b)

	for _, form := range []string{"octet", "json"} {
		var s sent
		r := qa.Must(t, "POST", "/storeraw", "application/json", map[string]any{"payload": []byte("raw " + form), "from": A})
		if r.Status != 200 || json.Unmarshal(r.Body, &s) != nil {
			t.Fatalf("storeraw: %v", r)
		}
		key := s.Key
		if r := qa.Must(t, "GET", txPath(key, "?isRaw=true"), "", nil); r.Status != 200 || !strings.Contains(string(r.Body), base64.StdEncoding.EncodeToString([]byte("raw "+form))) {
			t.Fatalf("receive raw: %v", r)
		}
		if r := qa.Must(t, "GET", txPath(key, "?isRaw=false"), "", nil); r.Status != 404 {
			t.Fatalf("raw read as sent: %v", r)
		}
		hash, _ := base64.StdEncoding.DecodeString(key)
		var got string
		if form == "octet" {
			r = qa.Must(t, "POST", "/sendsignedtx", "application/octet-stream", hash, "c11n-to", B)
			if r.Status != 200 || r.Header.Get("Tesserasender") != A {
				t.Fatalf("sendsignedtx octet: %v %v", r, r.Header)
			}
			got = string(r.Body)
		} else {
			r = qa.Must(t, "POST", "/sendsignedtx", "application/json", map[string]any{"hash": hash, "to": []string{B},
				"affectedContractTransactions": []string{}, "privacyFlag": 0})
			if r.Status != 201 || json.Unmarshal(r.Body, &s) != nil {
				t.Fatalf("sendsignedtx json: %v", r)
			}
			got = s.Key
		}
		if got != key {
			t.Fatalf("sendsignedtx changed the key: %s, want %s", got, key)
		}
		r = qb.Must(t, "GET", txPath(key, ""), "", nil)
		var rec received
		if r.Status != 200 || json.Unmarshal(r.Body, &rec) != nil || string(rec.Payload) != "raw "+form {
			t.Fatalf("B receive signed: %v", r)
		}
	}
	missing := make([]byte, 64)
	if r := qa.Must(t, "POST", "/sendsignedtx", "application/octet-stream", missing, "c11n-to", B); r.Status != 404 {
		t.Errorf("sendsignedtx of an unknown key: %v", r)
	}
}

// TestQ2TRefused: what GoQuorum offers beyond standard private
// transactions is refused with a text naming it.
func TestQ2TRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Extra: "q2tenabled = true\nq2tport = 0"})
	A := a.Keys[0].String()
	qa := q2t(a)
	body := func(kv ...any) map[string]any {
		m := map[string]any{"payload": []byte("x"), "from": A, "to": []string{A}}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	hash := base64.StdEncoding.EncodeToString(make([]byte, 64))
	for _, tc := range []struct {
		name, method, path string
		body               any
		status             int
		says               string
	}{
		{"party protection", "POST", "/send", body("privacyFlag", 1), 400, "privacy enhancements"},
		{"psv", "POST", "/send", body("privacyFlag", 3, "execHash", "eA=="), 400, "privacy enhancements"},
		{"mandatory", "POST", "/send", body("privacyFlag", 2, "mandatoryRecipients", []string{A}), 400, "mandatory recipients"},
		{"mandatory list", "POST", "/send", body("mandatoryRecipients", []string{A}), 400, "mandatory recipients"},
		{"affected", "POST", "/send", body("affectedContractTransactions", []string{hash}), 400, "privacy enhancements"},
		{"mps group", "POST", "/send", body("privacyGroupId", "eA=="), 400, "multiple private states"},
		{"flag 9", "POST", "/send", body("privacyFlag", 9), 400, "privacy mode"},
		{"unknown field", "POST", "/send", body("extra", 1), 400, "unknown field"},
		{"no payload", "POST", "/send", map[string]any{"to": []string{A}}, 400, "payload"},
		{"bad to", "POST", "/send", body("to", []string{"nope"}), 400, ""},
		{"resident groups", "GET", "/groups/resident", nil, 501, "multiple private states"},
		{"encoded payload", "POST", "/encodedpayload/create", body(), 501, "encoded payloads"},
		{"unknown route", "GET", "/nothing", nil, 404, "no Q2T route"},
		{"bad isRaw", "GET", txPath(hash, "?isRaw=maybe"), nil, 400, "isRaw"},
	} {
		r := qa.Must(t, tc.method, tc.path, "application/json", tc.body)
		if r.Status != tc.status || !strings.Contains(string(r.Body), tc.says) {
			t.Errorf("%s: %v, want %d saying %q", tc.name, r, tc.status, tc.says)
		}
	}
}
