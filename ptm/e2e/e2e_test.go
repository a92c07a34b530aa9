package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

// startTrio runs three basalt-privacy processes hosting keys A, B and C,
// B and C booting from A, with the given storage settings.
func startTrio(t *testing.T, storages [3]string) (a, b, c *ptmtest.Process) {
	t.Helper()
	dir := t.TempDir()
	a = ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Storage: storages[0]})
	b = ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, Storage: storages[1], OtherNodes: []string{a.NodeURL()}})
	c = ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "c"), Keys: []string{"c"}, Storage: storages[2], OtherNodes: []string{a.NodeURL()}})
	waitKnownNodes(t, 2, a, b, c)
	return a, b, c
}

// waitKnownNodes waits until each process's /knownnodes lists n others.
func waitKnownNodes(t *testing.T, n int, ps ...*ptmtest.Process) {
	t.Helper()
	ptmtest.WaitFor(t, 20*time.Second, "discovery to settle", func() bool {
		for _, p := range ps {
			var nodes []map[string]string
			r, err := p.Do("GET", "/knownnodes", "", nil)
			if err != nil || json.Unmarshal(r.Body, &nodes) != nil || len(nodes) != n {
				return false
			}
		}
		return true
	})
}

// TestE2EAcceptance is the acceptance scenario on three real
// processes.
func TestE2EAcceptance(t *testing.T) {
	t.Parallel()
	a, b, c := startTrio(t, [3]string{"leveldb", "leveldb:db", "memory"})
	A, B, C := a.Keys[0], b.Keys[0], c.Keys[0]

	// /knownnodes on A lists B and C (and not A itself).
	r := a.Must(t, "GET", "/knownnodes", "", nil)
	for _, want := range []string{B.String(), C.String(), b.NodeURL(), c.NodeURL()} {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("knownnodes on A lacks %s: %s", want, r.Body)
		}
	}
	if strings.Contains(string(r.Body), A.String()) {
		t.Errorf("knownnodes lists A itself: %s", r.Body)
	}

	// A sends to B; B receives; C gets 404; A can read its own payload.
	key := a.Send(t, []byte("for B"), A, B)
	if got, r, _ := b.Receive(key, &B); got == nil || string(got.Payload) != "for B" || got.SenderKey != A.String() || got.PrivacyGroupID == "" {
		t.Errorf("B receive: %v", r)
	}
	if _, r, _ := c.Receive(key, &C); r == nil || r.Status != 404 || r.Error() != "EnclavePayloadNotFound" {
		t.Errorf("C receive: %v", r)
	}
	if got, r, _ := a.Receive(key, &A); got == nil || string(got.Payload) != "for B" {
		t.Errorf("A receive own: %v", r)
	}
	// The v1 media type adds privacyGroupId; plain JSON does not.
	plain := b.Must(t, "POST", "/receive", "application/json", map[string]any{"key": key, "to": B.String()})
	v1 := b.Must(t, "POST", "/receive", "application/vnd.orion.v1+json", map[string]any{"key": key, "to": B.String()})
	if plain.Status != 200 || strings.Contains(string(plain.Body), "privacyGroupId") ||
		v1.Status != 200 || !strings.Contains(string(v1.Body), `"privacyGroupId":"`) {
		t.Errorf("media types: json %v, v1 %v", plain, v1)
	}

	// A group of A and B, made on A, is visible on B; a send to it reaches
	// B; deleting it on A propagates to B.
	r = a.Must(t, "POST", "/createPrivacyGroup", "application/json", map[string]any{
		"addresses": []string{A.String(), B.String()}, "from": A.String(), "name": "AB", "description": "e2e",
	})
	var g struct {
		PrivacyGroupID string `json:"privacyGroupId"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &g) != nil || g.PrivacyGroupID == "" {
		t.Fatalf("create: %v", r)
	}
	find := func(p *ptmtest.Process) string {
		return string(p.Must(t, "POST", "/findPrivacyGroup", "application/json", map[string]any{"addresses": []string{B.String(), A.String()}}).Body)
	}
	if got := find(b); !strings.Contains(got, g.PrivacyGroupID) || !strings.Contains(got, `"type":"PANTHEON"`) {
		t.Errorf("find on B: %s", got)
	}
	key = a.SendToGroup(t, []byte("for the group"), A, g.PrivacyGroupID)
	if got, r, _ := b.Receive(key, nil); got == nil || string(got.Payload) != "for the group" || got.PrivacyGroupID != g.PrivacyGroupID {
		t.Errorf("group payload on B: %v", r)
	}
	if _, r, _ := c.Receive(key, nil); r.Status != 404 {
		t.Errorf("group payload on C: %v", r)
	}
	r = a.Must(t, "POST", "/deletePrivacyGroup", "application/json", map[string]any{"privacyGroupId": g.PrivacyGroupID, "from": A.String()})
	if r.Status != 200 || string(r.Body) != `"`+g.PrivacyGroupID+`"` {
		t.Fatalf("delete: %v", r)
	}
	if got := find(b); got != "[]" {
		t.Errorf("find on B after delete: %s", got)
	}
	r = b.Must(t, "POST", "/send", "application/json", map[string]any{"payload": "eA==", "from": B.String(), "privacyGroupId": g.PrivacyGroupID})
	if r.Status != 500 || r.Error() != "PrivacyGroupNotFound" {
		t.Errorf("send to the deleted group on B: %v", r)
	}
}

// TestE2EKill9 kills instances right after /send returned and checks that,
// restarted, every acknowledged payload is receivable on the sender and the
// recipients.
func TestE2EKill9(t *testing.T) {
	t.Parallel()
	kill9(t, "leveldb", "leveldb")
}

// TestE2EKill9Postgres is TestE2EKill9 with PostgreSQL stores.
func TestE2EKill9Postgres(t *testing.T) {
	t.Parallel()
	kill9(t, "sql:"+ptmtest.PostgresSchema(t), "sql:"+ptmtest.PostgresSchema(t))
}

func kill9(t *testing.T, storeA, storeB string) {
	dir := t.TempDir()
	a := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Storage: storeA})
	b := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b1", "b2"}, Storage: storeB, OtherNodes: []string{a.NodeURL()}})
	waitKnownNodes(t, 2, a)
	A, B1, B2 := a.Keys[0], b.Keys[0], b.Keys[1]

	// Concurrent sends; the instances are killed as soon as the last
	// answer arrives.
	const n = 16
	sent := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent[i] = a.Send(t, []byte(fmt.Sprintf("payload %d", i)), A, B1, B2)
		}()
	}
	wg.Wait()
	a.Kill()
	b.Kill()

	a.Restart()
	b.Restart()
	for i, key := range sent {
		want := fmt.Sprintf("payload %d", i)
		for _, who := range []struct {
			p  *ptmtest.Process
			as keys.PublicKey
		}{{a, A}, {b, B1}, {b, B2}} {
			got, r, err := who.p.Receive(key, &who.as)
			if err != nil || got == nil || string(got.Payload) != want {
				t.Errorf("after kill -9, payload %d as %s: %v %v", i, who.as, r, err)
			}
		}
	}
}

// TestE2EPostgresHighAvailability runs two instances with the same key and
// one PostgreSQL store (Orion's HA setup): what one stores, the other serves.
func TestE2EPostgresHighAvailability(t *testing.T) {
	t.Parallel()
	store := "sql:" + ptmtest.PostgresSchema(t)
	dir := t.TempDir()
	keyDir := filepath.Join(dir, "keys")
	ptmtest.KeyFiles(t, keyDir, "shared")
	p1 := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "p1"), Storage: store}, "ORION_PUBLICKEYS="+filepath.Join(keyDir, "shared.pub"), "ORION_PRIVATEKEYS="+filepath.Join(keyDir, "shared.key"))
	p2 := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "p2"), Storage: store}, "BASALT_PRIVACY_PUBLICKEYS="+filepath.Join(keyDir, "shared.pub"), "BASALT_PRIVACY_PRIVATEKEYS="+filepath.Join(keyDir, "shared.key"))
	shared, err := keys.ReadPublicKeyFile(filepath.Join(keyDir, "shared.pub"))
	if err != nil {
		t.Fatal(err)
	}
	key := p1.Send(t, []byte("ha"), shared)
	if got, r, _ := p2.Receive(key, nil); got == nil || string(got.Payload) != "ha" {
		t.Errorf("receive on the other instance: %v", r)
	}
	// A group made through one is found through the other.
	r := p2.Must(t, "POST", "/createPrivacyGroup", "application/json", map[string]any{"addresses": []string{shared.String()}, "from": shared.String()})
	if r.Status != 200 {
		t.Fatal(r)
	}
	if got := p1.Must(t, "POST", "/findPrivacyGroup", "application/json", map[string]any{"addresses": []string{shared.String()}}); !strings.Contains(string(got.Body), "PANTHEON") {
		t.Errorf("find on the other instance: %v", got)
	}
}

// run runs the binary with args and stdin and returns its exit code and
// output.
func run(t *testing.T, dir, stdin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(ptmtest.Binary(t), args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not exit: %s", args, out.String())
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

func TestE2EStartupErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ptmtest.KeyFiles(t, dir, "k")
	ptmtest.KeyFiles(t, dir, "other")
	os.WriteFile(filepath.Join(dir, "bad.pub"), []byte("not a key"), 0o644)
	os.WriteFile(filepath.Join(dir, "short.tokens"), []byte("short\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "bad.key"), []byte(`{"data":{"bytes":"AAAA"},"type":"weird"}`), 0o644)
	unreadable := filepath.Join(dir, "unreadable.key")
	os.WriteFile(unreadable, []byte("{}"), 0o000)
	// conf writes a config: body plus defaults for the keys it does not set.
	conf := func(body string) string {
		p := filepath.Join(t.TempDir(), "orion.conf")
		content := fmt.Sprintf("workdir = %q\n%s\n", dir, body)
		for _, d := range []string{"nodeport = 0", "clientport = 0", `storage = "memory"`} {
			if !strings.Contains(body, strings.Fields(d)[0]+" =") {
				content += d + "\n"
			}
		}
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	tests := []struct {
		name, conf, want string
	}{
		{"missing public key", `publickeys = ["missing.pub"]` + "\n" + `privatekeys = ["k.key"]`, "publickeys[0]: read public key file"},
		{"bad public key", `publickeys = ["bad.pub"]` + "\n" + `privatekeys = ["k.key"]`, "publickeys[0]: public key file"},
		{"missing private key", `publickeys = ["k.pub"]` + "\n" + `privatekeys = ["missing.key"]`, "privatekeys[0]: read private key file"},
		{"unsupported key type", `publickeys = ["k.pub"]` + "\n" + `privatekeys = ["bad.key"]`, "EnclaveUnsupportedPrivateKeyType"},
		{"mismatched pair", `publickeys = ["k.pub"]` + "\n" + `privatekeys = ["other.key"]`, "is not the private key of publickeys[0]"},
		{"unequal lists", `publickeys = ["k.pub", "other.pub"]` + "\n" + `privatekeys = ["k.key"]`, "privatekeys: has 1 entries"},
		{"missing passwords file", `publickeys = ["k.pub"]` + "\n" + `privatekeys = ["k.key"]` + "\npasswords = \"nope\"", "passwords:"},
		{"unknown key", `color = "blue"`, `unknown key "color"`},
		{"bad storage", `storage = "sql:mysql://x"`, "only PostgreSQL"},
		{"missing tokens file", `clientapitokens = "nope"`, "clientapitokens: open"},
		{"short token", `clientapitokens = "short.tokens"`, "a token must have at least 16 characters"},
		{"bad maxpeers", `maxpeers = 0`, "maxpeers: must be positive"},
		{"postgres down", `storage = "sql:postgres://127.0.0.1:1/x?connect_timeout=2"`, "storage: PostgreSQL at 127.0.0.1:1/x: failed to connect"},
	}
	if os.Getuid() != 0 { // root reads anything
		tests = append(tests, struct{ name, conf, want string }{"unreadable private key", `publickeys = ["k.pub"]` + "\n" + `privatekeys = ["unreadable.key"]`, "permission denied"})
	}
	for _, tc := range tests {
		code, out := run(t, dir, "", conf(tc.conf))
		if code != 1 || !strings.Contains(out, tc.want) {
			t.Errorf("%s: exit %d, output %q; want 1 and %q", tc.name, code, out, tc.want)
		}
	}
	if code, out := run(t, dir, "", "a", "b"); code != 1 || !strings.Contains(out, "accepts at most 1 arg") {
		t.Errorf("two arguments: %d %q", code, out)
	}
	if code, out := run(t, dir, "", "--nope"); code != 2 || !strings.Contains(out, "unknown flag") {
		t.Errorf("unknown flag: %d %q", code, out)
	}
	// A port already taken.
	busy := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "busy"), Keys: []string{"x"}})
	if code, out := run(t, dir, "", conf(fmt.Sprintf("nodeport = %d", busy.Conf.NodePort))); code != 1 || !strings.Contains(out, "nodeport: listen on") {
		t.Errorf("port in use: %d %q", code, out)
	}
}

// TestE2ELockedKeys generates a password-locked key with --generatekeys and
// runs with it (argon2i key derivation as Orion's).
func TestE2ELockedKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out := run(t, dir, "correct horse\n\n", "--generatekeys", "locked,open")
	if code != 0 || !strings.Contains(out, "Enter password for key pair [locked] : ") || !strings.Contains(out, "[open]") {
		t.Fatalf("generatekeys: %d %s", code, out)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "locked.key"))
	if !strings.Contains(string(data), `"type":"sodium-encrypted"`) {
		t.Fatalf("locked.key: %s", data)
	}
	data, _ = os.ReadFile(filepath.Join(dir, "open.key"))
	if !strings.Contains(string(data), `"type":"unlocked"`) {
		t.Fatalf("open.key: %s", data)
	}
	if code, out := run(t, dir, "", "-g", "locked"); code != 1 || !strings.Contains(out, "already exists") {
		t.Errorf("overwriting keys: %d %s", code, out)
	}

	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	base := fmt.Sprintf("workdir = %q\nnodeport = 0\nclientport = 0\nstorage = \"memory\"\npublickeys = [\"locked.pub\", \"open.pub\"]\nprivatekeys = [\"locked.key\", \"open.key\"]\n", dir)
	if code, out := run(t, dir, "", write("nopw.conf", base)); code != 1 || !strings.Contains(out, "EnclaveMissingPrivateKeyPasswords") {
		t.Errorf("no password: %d %s", code, out)
	}
	// (A wrong password, EnclaveStorageDecrypt, is tested in package keys:
	// each argon2i derivation costs 256 MiB and about a second.)
	write("right", "correct horse\n\n")
	p := ptmtest.StartProcess(t, ptmtest.Conf{Dir: dir, Keys: []string{"locked", "open"}, Extra: "passwords = \"right\""})
	locked, _ := keys.ReadPublicKeyFile(filepath.Join(dir, "locked.pub"))
	open, _ := keys.ReadPublicKeyFile(filepath.Join(dir, "open.pub"))
	key := p.Send(t, []byte("locked"), locked, open)
	if got, r, _ := p.Receive(key, &open); got == nil || string(got.Payload) != "locked" {
		t.Errorf("receive: %v", r)
	}
}

// TestE2ETesseraLockedKey runs with a Tessera password-locked key file
// (argon2sbox; the vector of Constellation's key tests, password "foo") as
// it is, its password in the passwords file, and sends from it.
func TestE2ETesseraLockedKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := `{"data":{"aopts":{"variant":"i","memory":8192,"iterations":2,"parallelism":2},"snonce":"LJ7QUiZ0kD/mPf/aHvCEQKDhlUucZM0s","asalt":"I5bvdFhNpr8hlknzOHIO7Q3S5Ubs9ucUdVneghrebZQ=","sbox":"iHJAfcpWWE5PsvwZRwr5gCtwMKu7xXZAAPCVRGfx06l/I5QgXs0V/czOqYsMxoEG"},"type":"argon2sbox"}`
	os.WriteFile(filepath.Join(dir, "tessera.key"), []byte(key), 0o600)
	os.WriteFile(filepath.Join(dir, "tessera.pub"), []byte("ENnJpgbMlNoXATPe0XCm+HtuZ547y6o7qbDLKG8zb00="), 0o644)
	os.WriteFile(filepath.Join(dir, "wrong"), []byte("bar\n\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "right"), []byte("foo\n\n"), 0o600)
	base := fmt.Sprintf("workdir = %q\nnodeport = 0\nclientport = 0\nstorage = \"memory\"\npublickeys = [\"tessera.pub\"]\nprivatekeys = [\"tessera.key\"]\n", dir)
	conf := filepath.Join(dir, "wrong.conf")
	os.WriteFile(conf, []byte(base+"passwords = \"wrong\"\n"), 0o600)
	if code, out := run(t, dir, "", conf); code != 1 || !strings.Contains(out, "EnclaveStorageDecrypt") {
		t.Errorf("wrong password: %d %s", code, out)
	}
	p := ptmtest.StartProcess(t, ptmtest.Conf{Dir: dir, Keys: []string{"tessera", "open"}, Extra: "passwords = \"right\""})
	tessera, open := p.Keys[0], p.Keys[1]
	if tessera.String() != "ENnJpgbMlNoXATPe0XCm+HtuZ547y6o7qbDLKG8zb00=" {
		t.Fatalf("keys %v", p.Keys)
	}
	k := p.Send(t, []byte("from a Tessera key"), tessera, open)
	if got, r, _ := p.Receive(k, &open); got == nil || string(got.Payload) != "from a Tessera key" {
		t.Errorf("receive: %v", r)
	}
}

// TestE2ETLS runs two instances with mutual TLS between them (tls =
// "strict", self-signed certificates created at start, trust on first use).
func TestE2ETLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tlsConf := "tls = \"strict\"\ntlsservertrust = \"tofu\"\ntlsclienttrust = \"tofu\""
	a := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}, Extra: tlsConf})
	b := ptmtest.StartProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, Extra: tlsConf, OtherNodes: []string{a.NodeURL()}})
	waitKnownNodes(t, 1, a, b)
	key := a.Send(t, []byte("over TLS"), a.Keys[0], b.Keys[0])
	if got, r, _ := b.Receive(key, nil); got == nil || string(got.Payload) != "over TLS" {
		t.Errorf("receive: %v", r)
	}
	for _, f := range []string{"a/tls-server-cert.pem", "a/tls-client-key.pem", "a/tls-known-clients", "b/tls-known-servers"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || (strings.Contains(f, "known") && st.Size() == 0) {
			t.Errorf("%s: %v", f, err)
		}
	}
	// The node API refuses plain HTTP and clients without a certificate.
	if r, err := ptmtest.NewAPI(strings.Replace(a.NodeURL(), "http:", "https:", 1)).Do("GET", "/upcheck", "", nil); err == nil {
		t.Errorf("node API answered a client without a certificate: %v", r)
	}
}

// TestE2ESignals checks a clean stop on SIGTERM (ports file removed).
func TestE2ESignals(t *testing.T) {
	t.Parallel()
	p := ptmtest.StartProcess(t, ptmtest.Conf{Dir: t.TempDir(), Keys: []string{"k"}})
	ports := filepath.Join(p.Conf.Dir, "orion.ports")
	data, err := os.ReadFile(ports)
	if err != nil || !strings.Contains(string(data), fmt.Sprintf("http-client-port=%d", p.Conf.ClientPort)) {
		t.Fatalf("ports file: %q %v", data, err)
	}
	p.Stop(syscall.SIGTERM)
	if code := p.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM:\n%s", code, p.Logs())
	}
	if _, err := os.Stat(ports); !os.IsNotExist(err) {
		t.Errorf("ports file left behind: %v", err)
	}
}
