package downstream

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func clientFor(t *testing.T, srvURL string, timeout time.Duration) *Client {
	u, _ := url.Parse(srvURL)
	port, _ := strconv.Atoi(u.Port())
	return New(Config{Host: u.Hostname(), Port: port, Path: "/", Timeout: timeout})
}

func TestForwardHeader(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "http://signer.example:9545/", nil)
	r.Header.Set("Authorization", "Bearer t")
	r.Header.Set("Origin", "http://app.example")
	r.Header.Set("Content-Length", "12")
	r.Header.Set("Connection", "keep-alive")
	r.Header.Set("X-Custom", "1")
	h := ForwardHeader(r)
	if h.Get("Authorization") != "Bearer t" || h.Get("X-Custom") != "1" || h.Get("Origin") != "" ||
		h.Get("Content-Length") != "" || h.Get("Connection") != "" || h.Get("X-Forwarded-Host") != "signer.example:9545" {
		t.Errorf("forwarded %v", h)
	}
	dst := http.Header{"Access-Control-Allow-Origin": {"mine"}}
	CopyResponseHeader(dst, http.Header{"Access-Control-Allow-Origin": {"node"}, "X-Node": {"a", "b"}, "Transfer-Encoding": {"chunked"}, "Content-Length": {"5"}})
	if dst.Get("Access-Control-Allow-Origin") != "mine" || len(dst["X-Node"]) != 2 || dst.Get("Transfer-Encoding") != "" || dst.Get("Content-Length") != "" {
		t.Errorf("copied %v", dst)
	}
}

func TestTimeoutIsIdle(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		for i := 0; i < 4; i++ { // 4 × 60ms of body, each gap under the timeout
			w.Write([]byte("x"))
			w.(http.Flusher).Flush()
			time.Sleep(60 * time.Millisecond)
		}
		if r.URL.Path == "/stall" {
			time.Sleep(400 * time.Millisecond)
			w.Write([]byte("late"))
		}
	}))
	defer srv.Close()
	c := clientFor(t, srv.URL, 150*time.Millisecond)
	resp, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/"})
	if err != nil || string(resp.Body) != "xxxx" {
		t.Fatalf("slow but steady body: %v", err)
	}
	_, err = c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/stall"})
	var de *Error
	if !errors.As(err, &de) || de.Kind != Timeout {
		t.Fatalf("stalled body: %v", err)
	}
}

func TestErrorKinds(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	c := clientFor(t, "http://"+addr, time.Second)
	_, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/"})
	var de *Error
	if !errors.As(err, &de) || de.Kind != Connect || !strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("refused: %v", err)
	}

	// A server that accepts and closes without answering: broken.
	ln, _ = net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 1024)
			conn.Read(buf)
			conn.Close()
		}
	}()
	c = clientFor(t, "http://"+ln.Addr().String(), time.Second)
	_, err = c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "/", Body: []byte("{}")})
	if !errors.As(err, &de) || de.Kind != Broken {
		t.Errorf("closed: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Do(ctx, &Request{Method: http.MethodGet, Path: "/"})
	if !errors.As(err, &de) || de.Kind != Canceled {
		t.Errorf("canceled: %v", err)
	}
}

func TestRelay(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Path", r.URL.Path+"?"+r.URL.RawQuery)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(http.StatusAccepted)
		w.Write([]byte("body"))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	c := New(Config{Host: u.Hostname(), Port: port, Path: "/base", Timeout: time.Second})
	w := httptest.NewRecorder()
	if err := c.Relay(context.Background(), w, &Request{Method: http.MethodGet, Path: "/a%2Fb", RawQuery: "x=1"}); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusAccepted || w.Body.String() != "body" || w.Header().Get("X-Path") != "/base/a/b?x=1" ||
		w.Header().Get("Access-Control-Allow-Origin") != "" || w.Header().Get("Content-Length") != "4" {
		t.Errorf("relayed %d %v %q", w.Code, w.Header(), w.Body)
	}
	if c.URL() != srv.URL+"/base" {
		t.Errorf("URL %s", c.URL())
	}
}
