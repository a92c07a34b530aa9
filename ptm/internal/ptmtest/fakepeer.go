package ptmtest

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basaltchain/basalt/ptm/discovery"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
)

// FakePeer is an attacker's node API on loopback: it hosts a key of its
// own, records what real instances ask it, answers challenges the way it
// is told, and posts whatever a test wants to real instances' node APIs.
type FakePeer struct {
	Pair keys.KeyPair
	// URL is its node URL (http://127.0.0.1:port/).
	URL string

	srv    *httptest.Server
	client *http.Client

	mu    sync.Mutex
	count map[string]int
	// relay, when set, is a node URL /partyinfo/validate is forwarded to
	// (the relay attack); else challenges get wrong answers.
	relay   string
	relayed [][]byte // the answers the relay target gave
	claims  *discovery.PartyInfo
	// challenges are the numbers of challenges of each validation request.
	challenges []int
}

// NewFakePeer starts a fake peer; it stops when the test ends. source, when
// not "", is the loopback address its own requests come from (e.g.
// 127.0.0.2, to test address allowlists).
func NewFakePeer(t testing.TB, source string) *FakePeer {
	t.Helper()
	kp, err := keys.Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &FakePeer{Pair: kp, count: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	f.URL = f.srv.URL + "/"
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if source != "" {
		dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(source)}
	}
	f.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext}}
	return f
}

// Relay makes the peer forward the challenges it gets to nodeURL and
// answer with what that instance answers.
func (f *FakePeer) Relay(nodeURL string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.relay = nodeURL
}

// Relayed returns the answers the relay target gave, one per challenge.
func (f *FakePeer) Relayed() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte{}, f.relayed...)
}

// Count returns how many requests for path the peer has served.
func (f *FakePeer) Count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count[path]
}

// Challenges returns the number of challenges in each validation request
// the peer answered itself.
func (f *FakePeer) Challenges() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int{}, f.challenges...)
}

// Claim sets the party info the peer answers on /partyinfo (by default, an
// empty table).
func (f *FakePeer) Claim(claims map[keys.PublicKey]string) {
	p := &discovery.PartyInfo{URL: f.URL, NodePKs: map[string]string{}}
	for k, u := range claims {
		p.NodePKs[k.String()] = u
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.claims = p
}

func (f *FakePeer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.count[r.URL.Path]++
	relay, claims := f.relay, f.claims
	f.mu.Unlock()
	switch r.URL.Path {
	case "/upcheck":
		io.WriteString(w, "I'm up!")
	case "/partyinfo":
		if claims == nil {
			claims = &discovery.PartyInfo{URL: f.URL, NodePKs: map[string]string{}}
		}
		data, _ := claims.Encode()
		w.Header().Set("Content-Type", "application/cbor")
		w.Write(data)
	case "/partyinfo/validate":
		var reply []byte
		if relay != "" {
			resp, err := f.Post(relay, "/partyinfo/validate", body)
			if err == nil {
				reply = resp.Body
				var vr discovery.ValidateReply
				if payload.Unmarshal(reply, &vr) == nil {
					f.mu.Lock()
					f.relayed = append(f.relayed, vr.Answers...)
					f.mu.Unlock()
				}
			}
		}
		if reply == nil {
			// Guess: 32 bytes per challenge, which cannot be the secret.
			req, err := discovery.DecodeValidateRequest(body)
			if err != nil {
				w.WriteHeader(500)
				return
			}
			f.mu.Lock()
			f.challenges = append(f.challenges, len(req.Challenges))
			f.mu.Unlock()
			var vr discovery.ValidateReply
			for range req.Challenges {
				vr.Answers = append(vr.Answers, make([]byte, 32))
			}
			reply, _ = payload.Marshal(&vr)
		}
		w.Header().Set("Content-Type", "application/cbor")
		w.Write(reply)
	case "/push":
		// A squatter would keep the cipher text; answer its digest so the
		// sender believes it delivered.
		p, err := payload.DecodeEncryptedPayload(body)
		if err != nil {
			w.WriteHeader(500)
			return
		}
		io.WriteString(w, p.Digest())
	default:
		w.WriteHeader(404)
	}
}

// Post sends a CBOR POST to a node URL's path from the peer's address;
// headers are name, value pairs.
func (f *FakePeer) Post(nodeURL, path string, body []byte, headers ...string) (*Response, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, strings.TrimRight(nodeURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/cbor")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}, err
}

// PostPartyInfo posts a party-info table of entries (Base64 key -> URL) as
// coming from self, and decodes the answer.
func (f *FakePeer) PostPartyInfo(t testing.TB, nodeURL, self string, entries map[string]string) (*Response, map[keys.PublicKey]string) {
	t.Helper()
	p := &discovery.PartyInfo{URL: self, NodePKs: map[string]string{}}
	for k, u := range entries {
		p.NodePKs[k] = u
	}
	data, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Post(nodeURL, "/partyinfo", data)
	if err != nil {
		t.Fatalf("post party info: %v", err)
	}
	var got map[keys.PublicKey]string
	if r.Status == 200 {
		if _, got, err = discovery.DecodePartyInfo(r.Body); err != nil {
			t.Fatalf("party info answer: %v", err)
		}
	}
	return r, got
}
