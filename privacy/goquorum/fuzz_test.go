package goquorum

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// FuzzReceive: whatever the manager answers to a receive (one of the
// statuses a manager gives, any body), the client returns a payload or an error, never panics, and reads
// 404 as "not a party" only.
func FuzzReceive(f *testing.F) {
	f.Add(0, []byte(`{"payload":"AQID","privacyFlag":0,"managedParties":[],"senderKey":"x"}`))
	f.Add(0, []byte(`{"payload":null}`))
	f.Add(0, []byte(`{"payload":"not base64"}`))
	f.Add(1, []byte(`[]`))
	f.Add(4, []byte(`not found`))
	f.Add(6, []byte(``))
	var status atomic.Int64
	var body atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(int(status.Load()))
		w.Write(body.Load().([]byte))
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL)
	if err != nil {
		f.Fatal(err)
	}
	statuses := []int{200, 201, 202, 400, 404, 405, 500, 502, 503}
	f.Fuzz(func(t *testing.T, n int, b []byte) {
		st := statuses[(n%len(statuses)+len(statuses))%len(statuses)]
		status.Store(int64(st))
		body.Store(b)
		got, err := c.Receive(context.Background(), key64(1), false)
		if errors.Is(err, ErrNotParty) != (st == http.StatusNotFound) {
			t.Fatalf("status %d: %v", st, err)
		}
		if err == nil && got == nil {
			t.Fatalf("status %d: no answer and no error", st)
		}
		if err == nil && st != 200 && st != 201 {
			t.Fatalf("status %d taken as success", st)
		}
	})
}
