package httpcall

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

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
