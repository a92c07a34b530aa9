package tessera

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

func TestParseURL(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:9101", "https://tm.example/q2t/", "http://[::1]:9101"} {
		if _, err := ParseURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "127.0.0.1:9101", "unix:///tm.ipc", "http://", "http://h/?a=1", "http://h/#f", "http://u:p@h", "http://h/?"} {
		if _, err := ParseURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestStoreRaw: the request GoQuorum's /storeraw client sends (under a
// path prefix), the key read back, and each failure told apart.
func TestStoreRaw(t *testing.T) {
	key := bytes.Repeat([]byte{7}, KeySize)
	var (
		mu     sync.Mutex // answer and got: a silent handler outlives its call
		answer func(w http.ResponseWriter)
		got    struct {
			Path, ContentType string
			Body              map[string]any
		}
	)
	setAnswer := func(a func(w http.ResponseWriter)) { mu.Lock(); answer = a; mu.Unlock() }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got.Path, got.ContentType = r.URL.Path, r.Header.Get("Content-Type")
		got.Body = nil
		json.Unmarshal(body, &got.Body)
		a := answer
		mu.Unlock()
		a(w)
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL + "/q2t/", Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	setAnswer(func(w http.ResponseWriter) {
		w.Write([]byte(`{"key":"` + base64.StdEncoding.EncodeToString(key) + `"}`))
	})
	k, err := c.StoreRaw(ctx, []byte{1, 2}, "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=")
	if err != nil || !bytes.Equal(k, key) {
		t.Fatalf("StoreRaw: %x %v", k, err)
	}
	if got.Path != "/q2t/storeraw" || got.ContentType != "application/json" ||
		got.Body["payload"] != "AQI=" || got.Body["from"] != "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=" {
		t.Errorf("request %+v", got)
	}
	if _, err := c.StoreRaw(ctx, []byte{1}, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Body["from"]; ok {
		t.Errorf("no sender: from sent anyway: %v", got.Body)
	}

	for name, tc := range map[string]struct {
		answer func(w http.ResponseWriter)
		kind   Kind
	}{
		"refused":   {func(w http.ResponseWriter) { http.Error(w, "no key", 400) }, Refused},
		"not JSON":  {func(w http.ResponseWriter) { w.Write([]byte("ok")) }, BadAnswer},
		"short key": {func(w http.ResponseWriter) { w.Write([]byte(`{"key":"AQI="}`)) }, BadAnswer},
		"silent":    {func(w http.ResponseWriter) { time.Sleep(time.Second) }, TimedOut},
	} {
		setAnswer(tc.answer)
		_, err := c.StoreRaw(ctx, []byte{1}, "")
		var te *Error
		if !errors.As(err, &te) || te.Kind != tc.kind {
			t.Errorf("%s: %v, want kind %d", name, err, tc.kind)
		}
		if tc.kind == Refused && (te.Status != 400 || te.Text != "no key") {
			t.Errorf("%s: %+v", name, te)
		}
	}

	srv.Close()
	var te *Error
	if _, err := c.StoreRaw(ctx, []byte{1}, ""); !errors.As(err, &te) || te.Kind != Unreachable {
		t.Errorf("closed server: %v", err)
	}
}
