package tesserastore_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
	"github.com/basaltchain/basalt/ptm/tesserapayload"
	"github.com/basaltchain/basalt/ptm/tesserastore"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

var ctx = context.Background()

// expect is what the Q2T API must answer for an imported payload.
type expect struct {
	plain        []byte
	sender       keys.PublicKey
	isSender     bool
	participants []keys.PublicKey
}

// fixture is a Tessera store of node A (key pair a), in both codecs and
// every form Tessera writes, plus rows the import must refuse.
type fixture struct {
	rows    []tesserastore.Row
	want    map[string]expect // Base64 key -> answer
	refused map[string]string // Base64 key -> part of the reason
}

func row(t *testing.T, codec tesserapayload.Codec, p *tesserapayload.Payload) tesserastore.Row {
	t.Helper()
	enc, err := tesserapayload.Encode(codec, p)
	if err != nil {
		t.Fatal(err)
	}
	k := payload.TesseraKey(p.CipherText)
	c := string(codec)
	if codec == tesserapayload.Legacy {
		c = "" // NULL: rows written before the PAYLOAD_CODEC column
	}
	return tesserastore.Row{Hash: k[:], Encoded: enc, Codec: c, Timestamp: 1700000000000}
}

func newPair(t *testing.T) keys.KeyPair {
	kp, err := keys.Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

func buildFixture(t *testing.T, a keys.KeyPair) *fixture {
	b, c := newPair(t), newPair(t)
	f := &fixture{want: map[string]expect{}, refused: map[string]string{}}
	add := func(r tesserastore.Row, e expect) {
		f.rows = append(f.rows, r)
		f.want[base64.StdEncoding.EncodeToString(r.Hash)] = e
	}
	refuse := func(r tesserastore.Row, why string) {
		f.rows = append(f.rows, r)
		f.refused[base64.StdEncoding.EncodeToString(r.Hash)] = why
	}
	seal := func(plain string, from keys.KeyPair, to ...keys.PublicKey) *tesserapayload.Payload {
		p, err := tesserapayload.Seal(nil, []byte(plain), from, to)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A sent to B: A's copy has both boxes (Tessera adds the sender).
	p1 := seal("deploy from A for A,B", a, b.Public, a.Public)
	add(row(t, tesserapayload.CBOR, p1), expect{[]byte("deploy from A for A,B"), a.Public, true, []keys.PublicKey{b.Public, a.Public}})
	// B sent to A and C: A's copy is the recipient form, written by an
	// older Tessera (LEGACY, NULL codec).
	p2 := seal("call from B for A,C", b, a.Public, c.Public, b.Public)
	r2, err := p2.ForRecipient(a.Public)
	if err != nil {
		t.Fatal(err)
	}
	add(row(t, tesserapayload.Legacy, r2), expect{[]byte("call from B for A,C"), b.Public, false, []keys.PublicKey{a.Public}})
	// The same kind of copy in CBOR, Tessera 24's codec.
	p3 := seal("call from C for A", c, a.Public, c.Public)
	r3, _ := p3.ForRecipient(a.Public)
	add(row(t, tesserapayload.CBOR, r3), expect{[]byte("call from C for A"), c.Public, false, []keys.PublicKey{a.Public}})
	// The oldest form: LEGACY ending after the recipient nonce, no keys.
	p4 := seal("oldest form from B", b, a.Public)
	old := row(t, tesserapayload.Legacy, p4)
	old.Encoded = old.Encoded[:8+32+8+len(p4.CipherText)+8+24+8+8+48+8+24]
	if q, err := tesserapayload.DecodeLegacy(old.Encoded); err != nil || len(q.Recipients) != 0 {
		t.Fatalf("v1 form: %v", err)
	}
	add(old, expect{[]byte("oldest form from B"), b.Public, false, []keys.PublicKey{a.Public}})

	// Refused: B to C only (A has no box), a privacy-enhanced payload, a
	// HASH that is not the cipher text's, an undecodable payload.
	refuse(row(t, tesserapayload.CBOR, seal("not for A", b, c.Public, b.Public)), "none of the configured keys")
	psv := seal("psv", b, a.Public, b.Public)
	psv.Mode = tesserapayload.PrivateStateValidation
	psv.ExecHash = []byte("exec")
	refuse(row(t, tesserapayload.CBOR, psv), "PRIVATE_STATE_VALIDATION")
	bad := row(t, tesserapayload.CBOR, seal("tampered", b, a.Public))
	bad.Hash = bytes.Repeat([]byte{7}, 64)
	refuse(bad, "not SHA3-512")
	junk := row(t, tesserapayload.CBOR, seal("junk", b, a.Public))
	junk.Encoded = []byte("junk")
	refuse(junk, "does not decode")
	return f
}

// checkReport: every good row imported once, every bad one refused with
// its reason.
func checkReport(t *testing.T, rep *tesserastore.Report, f *fixture, imported, present int) {
	t.Helper()
	if rep.Read != len(f.rows) || rep.Imported != imported || rep.Present != present || len(rep.Refused) != len(f.refused) || rep.Unsupported != 1 {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Refused {
		why, ok := f.refused[r.Key]
		if !ok || !strings.Contains(r.Reason, why) {
			t.Errorf("refused %s: %s (want %q)", r.Key, r.Reason, why)
		}
	}
}

// checkServed asks the Q2T API what GoQuorum asks for each payload.
func checkServed(t *testing.T, q *ptmtest.API, f *fixture, self keys.PublicKey) {
	t.Helper()
	for key, e := range f.want {
		path := "/transaction/" + url.PathEscape(key)
		r := q.Must(t, "GET", path, "", nil)
		var got struct {
			Payload        []byte   `json:"payload"`
			SenderKey      string   `json:"senderKey"`
			ManagedParties []string `json:"managedParties"`
			PrivacyFlag    int      `json:"privacyFlag"`
		}
		if r.Status != 200 || json.Unmarshal(r.Body, &got) != nil {
			t.Fatalf("%s: %s", path, r)
		}
		if !bytes.Equal(got.Payload, e.plain) || got.SenderKey != e.sender.String() || got.PrivacyFlag != 0 ||
			!slices.Equal(got.ManagedParties, []string{self.String()}) {
			t.Errorf("%s: %+v, want %q from %s", path, got, e.plain, e.sender)
		}
		r = q.Must(t, "GET", path+"/isSender", "", nil)
		if want := map[bool]string{true: "true", false: "false"}[e.isSender]; r.Status != 200 || string(r.Body) != want {
			t.Errorf("%s/isSender: %s, want %s", path, r, want)
		}
		r = q.Must(t, "GET", path+"/participants", "", nil)
		if r.Status != 200 || string(r.Body) != strings.Join(ptmtest.Strings(e.participants), ",") {
			t.Errorf("%s/participants: %s, want %v", path, r, e.participants)
		}
	}
	for key := range f.refused {
		if r := q.Must(t, "GET", "/transaction/"+url.PathEscape(key), "", nil); r.Status != 404 {
			t.Errorf("refused %s: %s", key, r)
		}
	}
}

// nodeA writes A's key files into dir and returns its key pair.
func nodeA(t *testing.T, dir string) keys.KeyPair {
	pub := ptmtest.KeyFiles(t, dir, "a")
	priv, err := keys.ReadPrivateKeyFile(filepath.Join(dir, "a.key"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return keys.KeyPair{Public: pub, Private: priv}
}

// importInto imports src with a manager over the store spec names, as
// basalt-privacy import-tessera does, and closes it.
func importInto(t *testing.T, spec storage.Spec, a keys.KeyPair, src tesserastore.Source) *tesserastore.Report {
	t.Helper()
	kv, err := storage.Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	m := &manager.Manager{Enclave: enclave.New([]keys.KeyPair{a}, nil), Store: kv}
	rep, err := tesserastore.Import(ctx, src, m, tesserastore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestImportH2Script: a Tessera H2 store exported with H2's Script tool is
// imported into an instance's store; started on it, the instance's Q2T
// API serves each payload by its Tessera key with its plaintext, sender and
// participants, as Tessera did; a second import finds everything present.
func TestImportH2Script(t *testing.T) {
	dir := t.TempDir()
	a := nodeA(t, dir)
	f := buildFixture(t, a)
	script := filepath.Join(dir, "tessera.sql")
	out, err := os.Create(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := tesserastore.WriteH2Script(out, f.rows); err != nil {
		t.Fatal(err)
	}
	out.Close()

	importTwiceAndServe(t, dir, a, f, func() (tesserastore.Source, error) { return tesserastore.OpenH2Script(script) })
}

// TestImportPostgres: the same store in PostgreSQL tables made with
// Tessera's DDL, read through Tessera's JDBC URL form.
func TestImportPostgres(t *testing.T) {
	tessera := ptmtest.PostgresSchema(t)
	dir := t.TempDir()
	a := nodeA(t, dir)
	f := buildFixture(t, a)
	if err := tesserastore.WritePostgres(ctx, tessera, f.rows); err != nil {
		t.Fatal(err)
	}
	jdbc := "jdbc:" + strings.Replace(tessera, "postgres://", "postgresql://", 1)
	importTwiceAndServe(t, dir, a, f, func() (tesserastore.Source, error) { return tesserastore.OpenPostgres(ctx, jdbc, "", "") })
}

// importTwiceAndServe imports what open reads into a store in dir twice
// (the second run finds everything present: the import is idempotent),
// then starts an instance on that store and checks its Q2T API serves f.
func importTwiceAndServe(t *testing.T, dir string, a keys.KeyPair, f *fixture, open func() (tesserastore.Source, error)) {
	t.Helper()
	spec := storage.Spec{Kind: storage.Pebble, Path: filepath.Join(dir, "store")}
	for run := range 2 {
		src, err := open()
		if err != nil {
			t.Fatal(err)
		}
		rep := importInto(t, spec, a, src)
		src.Close()
		if run == 0 {
			checkReport(t, rep, f, len(f.want), 0)
		} else {
			checkReport(t, rep, f, 0, len(f.want))
		}
	}
	in := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: dir, Keys: []string{"a"}, Storage: "leveldb:store", Extra: "q2tenabled = true\nq2tport = 0"})
	checkServed(t, ptmtest.NewAPI(in.Inst.Q2TURL()), f, a.Public)
}

// TestExportImport: payloads GoQuorum node A sent to B through the Q2T API
// (basalt-privacy instances A and B) are exported from each instance's
// store as a Tessera H2 script (B's from its store on disk, B stopped), and
// imported with the basalt-privacy binary into fresh instances holding A's
// and B's keys, which answer the Q2T API exactly as A and B did. This is
// how a test builds a Tessera store of a live network's payloads (package
// ptmtest's Tessera helpers).
func TestExportImport(t *testing.T) {
	dir := t.TempDir()
	q2t := "q2tenabled = true\nq2tport = 0"
	a := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Extra: q2t})
	b := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, Storage: "leveldb:store", Extra: q2t, OtherNodes: []string{a.Conf.NodeURL()}})
	ptmtest.WaitFor(t, 20*time.Second, "discovery", func() bool {
		_, ok := a.Inst.Manager.Table.URLFor(b.Keys[0])
		return ok
	})
	qa := ptmtest.NewAPI(a.Inst.Q2TURL())
	var sentKeys []string
	for _, body := range []string{"private contract from A", "call from A"} {
		r := qa.Must(t, "POST", "/send", "application/json", map[string]any{"payload": []byte(body), "from": a.Keys[0].String(), "to": []string{b.Keys[0].String()}})
		var sent struct {
			Key string `json:"key"`
		}
		if r.Status != 201 || json.Unmarshal(r.Body, &sent) != nil {
			t.Fatalf("send: %s", r)
		}
		sentKeys = append(sentKeys, sent.Key)
	}
	// What GoQuorum reads from each node, before the migration.
	answers := func(api *ptmtest.API) []string {
		var out []string
		for _, k := range sentKeys {
			for _, suffix := range []string{"", "/isSender", "/participants"} {
				r := api.Must(t, "GET", "/transaction/"+url.PathEscape(k)+suffix, "", nil)
				if r.Status != 200 {
					t.Fatalf("%s%s: %s", k, suffix, r)
				}
				out = append(out, string(r.Body))
			}
		}
		return out
	}
	before := map[string][]string{"a": answers(qa), "b": answers(ptmtest.NewAPI(b.Inst.Q2TURL()))}
	b.Close()

	for _, node := range []struct {
		name string
		conf ptmtest.Conf
		m    *manager.Manager
	}{{"a", a.Conf, a.Inst.Manager}, {"b", b.Conf, ptmtest.OpenManager(t, b.Conf)}} {
		fresh := ptmtest.Conf{Dir: filepath.Join(dir, "fresh-"+node.name), Keys: []string{node.name}, Storage: "leveldb:store", Extra: q2t}
		os.MkdirAll(fresh.Dir, 0o755)
		for _, ext := range []string{".pub", ".key"} {
			data, err := os.ReadFile(filepath.Join(node.conf.Dir, node.name+ext))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(fresh.Dir, node.name+ext), data, 0o600)
		}
		script := filepath.Join(fresh.Dir, "tessera.sql")
		if n := ptmtest.WriteTesseraScript(t, node.m, script); n != len(sentKeys) {
			t.Fatalf("%s: exported %d payloads", node.name, n)
		}
		out := ptmtest.ImportTessera(t, fresh, script)
		if !strings.Contains(out, "2 imported, 0 already present, 0 refused") {
			t.Fatalf("%s import: %s", node.name, out)
		}
		in := ptmtest.StartInProcess(t, fresh)
		after := answers(ptmtest.NewAPI(in.Inst.Q2TURL()))
		if !slices.Equal(after, before[node.name]) {
			t.Errorf("%s: served\n%q\nbefore, and\n%q\nafter the migration", node.name, before[node.name], after)
		}
	}
}
