package rpc

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/websocket"
	"golang.org/x/crypto/bcrypt"

	"github.com/basaltchain/basalt/testsupport/testnode"
)

// pegasysHash is Besu's test vector: the bcrypt hash of "pegasys".
const pegasysHash = "$2a$10$l3GA7K8g6rJ/Yv.YFSygCuI9byngpEzxgWS9qEg5emYDZomQW7fGC"

// basalt's exit codes, as cmd/basalt sets them.
const (
	exitError = 1 // the command failed
	exitUsage = 2 // the command line could not be parsed
)

const (
	unauthorizedID7   = `{"jsonrpc":"2.0","id":7,"error":{"code":-40100,"message":"Unauthorized"}}`
	unauthorizedNull  = `{"jsonrpc":"2.0","id":null,"error":{"code":-40100,"message":"Unauthorized"}}`
	authRequestMethod = `{"jsonrpc":"2.0","id":7,"method":"%s","params":%s}`
)

// authPost posts body to url with an optional bearer token.
func authPost(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// authCall is a JSON-RPC request with id 7 and no params over HTTP.
func authCall(t *testing.T, url, token, method string) (int, string) {
	t.Helper()
	return authPost(t, url, token, `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":[]}`)
}

// loginAt posts credentials to base+"/login" and returns the token.
func loginAt(t *testing.T, base, user, password string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"username": user, "password": password})
	status, resp := authPost(t, base+"/login", "", string(body))
	if status != http.StatusOK {
		t.Fatalf("login %s at %s: %d %q", user, base, status, resp)
	}
	var out struct{ Token string }
	if err := json.Unmarshal([]byte(resp), &out); err != nil || out.Token == "" {
		t.Fatalf("login %s: %q", user, resp)
	}
	return out.Token
}

// wsClient is a JSON-RPC WebSocket connection.
type wsClient struct {
	t *testing.T
	c *websocket.Conn
}

func dialAuthWS(t *testing.T, url, token string) *wsClient {
	t.Helper()
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	c, _, err := websocket.DefaultDialer.Dial(url, h)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(func() { c.Close() })
	return &wsClient{t, c}
}

// send writes msg and returns the next message that is not a
// subscription notification.
func (w *wsClient) send(msg string) string {
	w.t.Helper()
	if err := w.c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		w.t.Fatal(err)
	}
	for {
		w.c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, b, err := w.c.ReadMessage()
		if err != nil {
			w.t.Fatal(err)
		}
		if !strings.Contains(string(b), `"eth_subscription"`) {
			return string(b)
		}
	}
}

func (w *wsClient) call(method string) string {
	w.t.Helper()
	return w.send(`{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":[]}`)
}

// httpBase is the http:// address of a node's WebSocket port, where its
// /login is.
func httpBase(wsURL string) string { return "http" + strings.TrimPrefix(wsURL, "ws") }

// TestPasswordHash checks `basalt password hash` against Besu's format.
func TestPasswordHash(t *testing.T) {
	out, err := exec.Command(testnode.Binary(t), "password", "hash", "--password=pegasys").Output()
	if err != nil {
		t.Fatal(err)
	}
	h := string(out)
	if !strings.HasPrefix(h, "$2a$10$") || len(h) != 60 {
		t.Fatalf("hash %q: want $2a$10$ + 53 characters and no newline", h)
	}
	if bcrypt.CompareHashAndPassword(out, []byte("pegasys")) != nil {
		t.Fatal("hash does not match the password")
	}
	out, err = exec.Command(testnode.Binary(t), "password", "hash").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitUsage || !strings.Contains(string(out), "Missing required option '--password=<password>'") {
		t.Fatalf("without --password: %v %q", err, out)
	}
}

// TestAuthStartupErrors: bad authentication options stop the node with one
// line naming the option.
func TestAuthStartupErrors(t *testing.T) {
	dir := t.TempDir()
	badTOML := filepath.Join(dir, "bad.toml")
	os.WriteFile(badTOML, []byte("[Users.a]\npassword = \""+pegasysHash+"\"\npermissions = [\"eth:*\"\n"), 0o600)
	plain := filepath.Join(dir, "plain.toml")
	os.WriteFile(plain, []byte("[Users.a]\npassword = \"pegasys\"\n"), 0o600)
	notPEM := filepath.Join(dir, "key.pem")
	os.WriteFile(notPEM, []byte("not a key"), 0o600)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--rpc-http-authentication-enabled"},
			"Unable to authenticate JSON-RPC HTTP endpoint without a supplied credentials file or authentication public key file: give --rpc-http-authentication-credentials-file or --rpc-http-authentication-jwt-public-key-file"},
		{[]string{"--rpc-ws-enabled", "--rpc-ws-authentication-enabled"},
			"Unable to authenticate JSON-RPC WebSocket endpoint without a supplied credentials file or authentication public key file"},
		{[]string{"--rpc-http-authentication-enabled", "--rpc-http-authentication-credentials-file=" + badTOML},
			"--rpc-http-authentication-credentials-file: credentials file " + badTOML + ": line 3: expected a comma"},
		{[]string{"--rpc-http-authentication-enabled", "--rpc-http-authentication-credentials-file=" + plain},
			"--rpc-http-authentication-credentials-file: credentials file " + plain + ": line 2: password is not a bcrypt hash"},
		{[]string{"--rpc-http-authentication-enabled", "--rpc-http-authentication-credentials-file=" + filepath.Join(dir, "missing.toml")},
			"--rpc-http-authentication-credentials-file: read credentials file"},
		{[]string{"--rpc-http-authentication-enabled", "--rpc-http-authentication-jwt-public-key-file=" + notPEM},
			"--rpc-http-authentication-jwt-public-key-file: public key file " + notPEM + ": no PEM block"},
		{[]string{"--rpc-http-authentication-enabled", "--rpc-http-authentication-jwt-algorithm=HS256", "--rpc-http-authentication-jwt-public-key-file=" + notPEM},
			"--rpc-http-authentication-jwt-algorithm: HS256 is not supported"},
	}
	for _, tc := range cases {
		args := append([]string{"--network=dev", "--data-path=" + filepath.Join(dir, "data"), "--rpc-http-enabled", "--rpc-http-port=0", "--rpc-ws-port=0", "--p2p-enabled=false"}, tc.args...)
		out, err := exec.Command(testnode.Binary(t), args...).CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitError {
			t.Errorf("%v: exit %v, output %q", tc.args, err, out)
			continue
		}
		if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); !strings.Contains(lines[len(lines)-1], tc.want) {
			t.Errorf("%v: output %q, want %q", tc.args, out, tc.want)
		}
	}
}

// TestAuthCredentials runs a node with credentials files on both ports and
// checks login, each permission form over HTTP and WebSocket, batches,
// subscriptions, cross-port tokens, forged tokens, and that no token or
// password reaches the log.
func TestAuthCredentials(t *testing.T) {
	dir := t.TempDir()
	hashed, err := exec.Command(testnode.Binary(t), "password", "hash", "--password=s3cret-Pa55").Output()
	if err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(dir, "auth.toml")
	err = os.WriteFile(creds, []byte(`
[Users.admin]
password = "`+string(hashed)+`"
permissions = ["*:*"]

[Users.eth]
password = "`+pegasysHash+`"
permissions = ["eth:*"]
groups = ["admins"]

[Users.user]
password = "`+pegasysHash+`"
permissions = ["fakePermission", "net:peerCount", "eth:blockNumber"]

[Users.none]
password = "`+pegasysHash+`"
permissions = []

[Groups.admins]
roles = ["admin"]
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	n := testnode.StartWS(t, filepath.Join(dir, "data"), "--network=dev", "--logging=ALL",
		"--rpc-http-authentication-enabled", "--rpc-http-authentication-credentials-file="+creds,
		"--rpc-ws-authentication-enabled", "--rpc-ws-authentication-credentials-file="+creds)
	wsBase := httpBase(n.WSURL)
	var secrets []string

	t.Run("login", func(t *testing.T) {
		for _, body := range []string{`{"username":"admin","password":"pegasys"}`, `{"username":"nobody","password":"pegasys"}`, `{"username":"eth","password":""}`} {
			for _, base := range []string{n.URL, wsBase} {
				if status, resp := authPost(t, base+"/login", "", body); status != http.StatusUnauthorized || resp != "" {
					t.Errorf("%s %s: %d %q, want 401 and nothing", base, body, status, resp)
				}
			}
		}
		for _, body := range []string{`nonsense`, `{"username":"admin"}`, ``} {
			if status, resp := authPost(t, n.URL+"/login", "", body); status != http.StatusBadRequest || resp != "" {
				t.Errorf("%q: %d %q, want 400", body, status, resp)
			}
		}
		tok := loginAt(t, n.URL, "admin", "s3cret-Pa55") // hash from `basalt password hash`
		n.Token = tok
		var bn string
		n.MustCall(&bn, "eth_blockNumber")
		n.Token = ""
		secrets = append(secrets, "s3cret-Pa55", tok)
	})

	tokens := map[string]string{}
	wsTokens := map[string]string{}
	for _, u := range []string{"admin", "eth", "user", "none"} {
		pw := "pegasys"
		if u == "admin" {
			pw = "s3cret-Pa55"
		}
		tokens[u] = loginAt(t, n.URL, u, pw)
		wsTokens[u] = loginAt(t, wsBase, u, pw)
		secrets = append(secrets, tokens[u], wsTokens[u])
	}
	// net_peerCount answers -32000 with p2p off: authorized all the same.
	methods := []string{"eth_blockNumber", "eth_chainId", "net_peerCount", "net_version", "web3_clientVersion", "net_listening"}
	allowed := map[string]map[string]bool{
		"admin": {"eth_blockNumber": true, "eth_chainId": true, "net_peerCount": true, "net_version": true, "web3_clientVersion": true, "net_listening": true},
		"eth":   {"eth_blockNumber": true, "eth_chainId": true},
		"user":  {"eth_blockNumber": true, "net_peerCount": true},
		"none":  {},
	}

	t.Run("http", func(t *testing.T) {
		for _, body := range []string{`{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}`, `[{"jsonrpc":"2.0","id":1,"method":"net_version"}]`} {
			if status, resp := authPost(t, n.URL, "", body); status != http.StatusUnauthorized || resp != unauthorizedNull {
				t.Errorf("no token: %d %s", status, resp)
			}
		}
		for user, tok := range tokens {
			for _, m := range methods {
				status, resp := authCall(t, n.URL, tok, m)
				if allowed[user][m] {
					if status != http.StatusOK || strings.Contains(resp, "-40100") {
						t.Errorf("%s %s: %d %s", user, m, status, resp)
					}
				} else if status != http.StatusUnauthorized || resp != unauthorizedID7 {
					t.Errorf("%s %s: %d %s, want 401 -40100", user, m, status, resp)
				}
			}
		}
		status, resp := authPost(t, n.URL, tokens["user"], `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":2,"method":"net_version"},`+
			`{"jsonrpc":"2.0","id":3,"method":"net_peerCount"},{"jsonrpc":"2.0","id":4,"method":"eth_chainId"}]`)
		var out []struct {
			ID     int
			Result json.RawMessage
			Error  *struct{ Code int }
		}
		if err := json.Unmarshal([]byte(resp), &out); status != http.StatusOK || err != nil || len(out) != 4 {
			t.Fatalf("batch: %d %s", status, resp)
		}
		for i, want := range []bool{true, false, true, false} {
			if got := out[i].Error == nil || out[i].Error.Code != -40100; got != want || out[i].ID != i+1 {
				t.Errorf("batch element %d: %+v, want allowed=%v", i+1, out[i], want)
			}
		}
	})

	t.Run("websocket", func(t *testing.T) {
		anon := dialAuthWS(t, n.WSURL, "")
		for _, m := range []string{"eth_blockNumber", "net_version"} {
			if got := anon.call(m); got != unauthorizedID7 {
				t.Errorf("no token %s: %s", m, got)
			}
		}
		if got := anon.send(`{"jsonrpc":"2.0","id":7,"method":"eth_subscribe","params":["newHeads"]}`); got != unauthorizedID7 {
			t.Errorf("no token eth_subscribe: %s", got)
		}
		for user, tok := range wsTokens {
			c := dialAuthWS(t, n.WSURL, tok)
			for _, m := range methods {
				got := c.call(m)
				if allowed[user][m] == (got == unauthorizedID7) {
					t.Errorf("%s %s over WebSocket: %s", user, m, got)
				}
			}
			// Subscriptions are methods like any other (eth:*).
			got := c.send(`{"jsonrpc":"2.0","id":7,"method":"eth_subscribe","params":["newHeads"]}`)
			if want := user == "admin" || user == "eth"; want != strings.Contains(got, `"result":"0x`) || (!want && got != unauthorizedID7) {
				t.Errorf("%s eth_subscribe: %s", user, got)
			}
		}
		got := dialAuthWS(t, n.WSURL, wsTokens["user"]).send(`[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]`)
		if !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":1,"result":"0x`) || !strings.HasSuffix(got, `{"jsonrpc":"2.0","id":2,"error":{"code":-40100,"message":"Unauthorized"}}]`) {
			t.Errorf("WebSocket batch: %s", got)
		}
	})

	t.Run("cross-port", func(t *testing.T) {
		if got := dialAuthWS(t, n.WSURL, tokens["admin"]).call("eth_blockNumber"); got != unauthorizedID7 {
			t.Errorf("HTTP token on WebSocket: %s", got)
		}
		if status, resp := authCall(t, n.URL, wsTokens["admin"], "eth_blockNumber"); status != http.StatusUnauthorized || resp != unauthorizedID7 {
			t.Errorf("WebSocket token on HTTP: %d %s", status, resp)
		}
	})

	t.Run("forged", func(t *testing.T) {
		// The user's own token with *:* written into its permissions.
		parts := strings.Split(tokens["none"], ".")
		raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
		var claims map[string]any
		json.Unmarshal(raw, &claims)
		claims["permissions"] = []string{"*:*"}
		raw, _ = json.Marshal(claims)
		tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString(raw) + "." + parts[2]
		none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims(claims)).SignedString(jwt.UnsafeAllowNoneSignatureType)
		ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		otherKey, _ := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims(claims)).SignedString(ec)
		for name, tok := range map[string]string{"tampered": tampered, "alg none": none, "other key": otherKey, "truncated": tokens["admin"][:len(tokens["admin"])-4]} {
			if status, resp := authCall(t, n.URL, tok, "eth_blockNumber"); status != http.StatusUnauthorized || resp != unauthorizedID7 {
				t.Errorf("%s token over HTTP: %d %s", name, status, resp)
			}
			if got := dialAuthWS(t, n.WSURL, tok).call("eth_blockNumber"); got != unauthorizedID7 {
				t.Errorf("%s token over WebSocket: %s", name, got)
			}
		}
	})

	logs := n.Logs()
	if !strings.Contains(logs, "JSON-RPC token refused") {
		t.Errorf("no debug log of refused tokens; is --logging=ALL effective?")
	}
	for _, s := range secrets {
		sig := s
		if i := strings.LastIndex(s, "."); i >= 0 {
			sig = s[i+1:]
		}
		if strings.Contains(logs, sig) {
			t.Errorf("the node logged a secret (%.12s…)", s)
		}
	}
	if strings.Contains(logs, "pegasys") {
		t.Error("the node logged a password")
	}
}

// TestAuthExternalPublicKey runs a node that verifies tokens with an ES256
// public key (signed here, as an external issuer would), with WebSocket
// authentication off.
func TestAuthExternalPublicKey(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	pemFile := filepath.Join(dir, "jwt.pem")
	os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600)
	n := testnode.StartWS(t, filepath.Join(dir, "data"), "--network=dev",
		"--rpc-http-authentication-enabled", "--rpc-http-authentication-jwt-public-key-file="+pemFile,
		"--rpc-http-authentication-jwt-algorithm=ES256")

	// /login is off: only a public key (HTTP), authentication off (WebSocket).
	for _, base := range []string{n.URL, httpBase(n.WSURL)} {
		if status, resp := authPost(t, base+"/login", "", `{"username":"admin","password":"pegasys"}`); status != http.StatusBadRequest || resp != "" {
			t.Errorf("%s/login: %d %q, want 400", base, status, resp)
		}
	}
	// WebSocket without authentication needs no token.
	if got := dialAuthWS(t, n.WSURL, "").call("net_version"); got != `{"jsonrpc":"2.0","id":7,"result":"1337"}` {
		t.Errorf("unauthenticated WebSocket: %s", got)
	}

	now := time.Now()
	signed := func(m jwt.SigningMethod, k any, claims jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(m, claims).SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := signed(jwt.SigningMethodES256, key, jwt.MapClaims{"username": "ext", "permissions": []string{"eth:*", "net:version"}, "iat": now.Unix(), "exp": now.Add(time.Minute).Unix()})
	for m, want := range map[string]bool{"eth_blockNumber": true, "eth_chainId": true, "net_version": true, "net_peerCount": false, "web3_clientVersion": false} {
		status, resp := authCall(t, n.URL, good, m)
		if want != (status == http.StatusOK && strings.Contains(resp, `"result"`)) || (!want && resp != unauthorizedID7) {
			t.Errorf("%s: %d %s (allowed %v)", m, status, resp, want)
		}
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	perms := []string{"*:*"}
	for name, tok := range map[string]string{
		"other key": signed(jwt.SigningMethodES256, other, jwt.MapClaims{"permissions": perms, "exp": now.Add(time.Minute).Unix()}),
		"no exp":    signed(jwt.SigningMethodES256, key, jwt.MapClaims{"permissions": perms}),
		"expired":   signed(jwt.SigningMethodES256, key, jwt.MapClaims{"permissions": perms, "exp": now.Add(-time.Second).Unix()}),
		"HS256":     signed(jwt.SigningMethodHS256, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), jwt.MapClaims{"permissions": perms, "exp": now.Add(time.Minute).Unix()}),
		"no perms":  signed(jwt.SigningMethodES256, key, jwt.MapClaims{"exp": now.Add(time.Minute).Unix()}),
	} {
		if status, resp := authCall(t, n.URL, tok, "eth_blockNumber"); status != http.StatusUnauthorized || resp != unauthorizedID7 {
			t.Errorf("%s: %d %s", name, status, resp)
		}
	}
}
