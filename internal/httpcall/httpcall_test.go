package httpcall

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseBase(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"http://127.0.0.1:9101", true},
		{"https://manager.example:443/prefix/", true},
		{"ftp://h:21", false},
		{"127.0.0.1:9101", false}, // a scheme-less host:port parses as scheme "127.0.0.1"
		{"http://", false},
		{"http:///path", false},
		{"http://h:1/%zz", false},
		{"", false},
	} {
		u, err := ParseBase(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseBase(%q) = %v, %v; want ok=%v", tc.in, u, err, tc.ok)
		}
	}
}

func TestJoin(t *testing.T) {
	key := url.PathEscape("ab/c+d==")
	for _, tc := range []struct{ base, path, want string }{
		{"http://h:1", "/upcheck", "http://h:1/upcheck"},
		{"http://h:1/", "/upcheck", "http://h:1/upcheck"},
		{"http://h:1/prefix", "/send", "http://h:1/prefix/send"},
		{"http://h:1/prefix//", "/send", "http://h:1/prefix/send"},
		// An escaped segment in the path stays one segment.
		{"http://h:1/q2t", "/transaction/" + key, "http://h:1/q2t/transaction/ab%2Fc+d=="},
		// So does one in the base's prefix.
		{"http://h:1/a%2Fb/", "/storeraw", "http://h:1/a%2Fb/storeraw"},
		// A space in the prefix is escaped as before.
		{"http://h:1/my%20tessera", "/storeraw", "http://h:1/my%20tessera/storeraw"},
		// The base's query and fragment are not the call's.
		{"http://h:1/p?x=1#f", "/send", "http://h:1/p/send"},
	} {
		base, err := url.Parse(tc.base)
		if err != nil {
			t.Fatal(err)
		}
		got := Join(base, tc.path)
		if got.String() != tc.want {
			t.Errorf("Join(%q, %q) = %q, want %q", tc.base, tc.path, got, tc.want)
		}
		if base.String() != tc.base {
			t.Errorf("Join changed its base to %q", base)
		}
	}
	// The server sees the escaped segment, not a split path.
	var gotRaw string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotRaw = r.URL.EscapedPath()
	}))
	defer srv.Close()
	base, _ := ParseBase(srv.URL + "/q2t/")
	if _, err := Do(context.Background(), srv.Client(), &Request{Method: http.MethodGet, URL: Join(base, "/transaction/"+key).String()}, 10); err != nil {
		t.Fatal(err)
	}
	if gotRaw != "/q2t/transaction/ab%2Fc+d==" {
		t.Errorf("server saw path %q", gotRaw)
	}
}

func TestDoSendsRequest(t *testing.T) {
	type seen struct {
		method, ctype, accept, extra string
		hasIdem                      bool
		body                         string
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, idem := r.Header["Idempotency-Key"]
		got <- seen{r.Method, r.Header.Get("Content-Type"), r.Header.Get("Accept"), r.Header.Get("X-Extra"), idem, string(b)}
		w.Header().Set("X-Answer", "yes")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"key":"k"}`))
	}))
	defer srv.Close()
	a, err := Do(context.Background(), srv.Client(), &Request{
		Method: http.MethodPost, URL: srv.URL, Body: []byte(`{"a":1}`),
		ContentType: "application/json", Accept: "application/vnd.x+json",
		// A nil value marks the request without sending the header.
		Header: http.Header{"X-Extra": {"v"}, "Idempotency-Key": nil},
	}, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	s := <-got
	if s != (seen{"POST", "application/json", "application/vnd.x+json", "v", false, `{"a":1}`}) {
		t.Errorf("server saw %+v", s)
	}
	if a.Status != http.StatusCreated || !a.OK() || a.Err() != nil || string(a.Body) != `{"key":"k"}` || a.Header.Get("X-Answer") != "yes" {
		t.Errorf("answer %+v, Err %v", a, a.Err())
	}

	// No body: no Content-Type, no body.
	if _, err := Do(context.Background(), srv.Client(), &Request{Method: http.MethodGet, URL: srv.URL}, 1<<10); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s.ctype != "" || s.accept != "" || s.body != "" || s.method != "GET" {
		t.Errorf("bodiless GET: server saw %+v", s)
	}
}

func TestDoBoundsTheAnswer(t *testing.T) {
	const max = 100
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", int(n.Load()))))
	}))
	defer srv.Close()
	n.Store(max)
	a, err := Do(context.Background(), srv.Client(), &Request{Method: http.MethodGet, URL: srv.URL}, max)
	if err != nil || len(a.Body) != max {
		t.Fatalf("answer of exactly %d bytes: %v, %v", max, a, err)
	}
	n.Store(max + 1)
	a, err = Do(context.Background(), srv.Client(), &Request{Method: http.MethodGet, URL: srv.URL}, max)
	var tl *TooLongError
	if !errors.As(err, &tl) || tl.Max != max || a != nil {
		t.Fatalf("answer of %d bytes: %v, %v; want a *TooLongError", max+1, a, err)
	}
	// A long stream is refused without being read to its end.
	if _, err := ReadAll(infinite{}, max); !errors.As(err, &tl) {
		t.Fatalf("ReadAll of an endless stream: %v", err)
	}
}

type infinite struct{}

func (infinite) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	return len(p), nil
}

func TestStatusErrorText(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes
	var body atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte(body.Load().(string)))
	}))
	defer srv.Close()
	for _, tc := range []struct{ body, text string }{
		{"  refused\n", "refused"},
		{"\n" + long + "\n", strings.Repeat("é", 100) + "…"},
		{"", ""},
	} {
		body.Store(tc.body)
		a, err := Do(context.Background(), srv.Client(), &Request{Method: http.MethodGet, URL: srv.URL}, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		if a.OK() {
			t.Fatal("502 is OK")
		}
		var se *StatusError
		if !errors.As(a.Err(), &se) || se.Status != http.StatusBadGateway || se.Text != tc.text {
			t.Errorf("body %q: Err() = %#v, want status 502 and text %q", tc.body, a.Err(), tc.text)
		}
		if want := "HTTP 502: " + tc.text; se.Error() != want {
			t.Errorf("Error() = %q, want %q", se.Error(), want)
		}
		// The whole body is still there for callers that parse it.
		if string(a.Body) != tc.body {
			t.Errorf("body %q, want %q", a.Body, tc.body)
		}
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"aé", 2, "a…"}, // never half a rune
		{"éé", 3, "é…"},
		{"", 0, ""},
	} {
		got := Cut(tc.s, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestDoContextCancel(t *testing.T) {
	arrived := make(chan struct{})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	_, err := Do(ctx, srv.Client(), &Request{Method: http.MethodGet, URL: srv.URL}, 10)
	var ue *url.Error
	if !errors.Is(err, context.Canceled) || !errors.As(err, &ue) {
		t.Fatalf("Do after cancel: %v; want a *url.Error holding context.Canceled", err)
	}
}

func TestDoReadError(t *testing.T) {
	// The server promises 100 bytes, sends 5 and closes the connection.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("short"))
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	_, err := Do(context.Background(), srv.Client(), &Request{Method: http.MethodGet, URL: srv.URL}, 1<<10)
	var re *ReadError
	if !errors.As(err, &re) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut answer: %v; want a *ReadError holding io.ErrUnexpectedEOF", err)
	}
	if err.Error() != io.ErrUnexpectedEOF.Error() {
		t.Errorf("ReadError text %q, want the cause's", err.Error())
	}
}

func TestNewTransportKeepsConnections(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	tr := NewTransport(10 * time.Second) // far above a loopback dial
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	for i := 0; i < 5; i++ {
		a, err := Do(context.Background(), hc, &Request{Method: http.MethodGet, URL: srv.URL}, 10)
		if err != nil || string(a.Body) != "ok" {
			t.Fatalf("call %d: %v, %v", i, a, err)
		}
	}
	// Do reads each answer to its end and closes it, so one connection
	// serves every call.
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 5 sequential calls, want 1", n)
	}
	if tr.Proxy != nil {
		t.Error("the transport uses a proxy")
	}
}
