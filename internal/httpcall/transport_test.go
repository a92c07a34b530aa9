package httpcall

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

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
