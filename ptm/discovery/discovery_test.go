package discovery

import (
	"context"
	"encoding/hex"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
)

var ctx = context.Background()

func key(t testing.TB) keys.PublicKey {
	kp, err := keys.Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	return kp.Public
}

// docker/ha/partyinfo.cbor in ConsenSys/orion, as Jackson-CBOR wrote it
// (indefinite-length maps, no "url").
const orionPartyInfo = "bf676e6f6465504b73bf782c4468444a436b53756547717a2f73694a4375414152446f5776507041497a6e78365757704a4f4f3037476f3d7818687474703a2f2f6578616d706c652e636f6d3a393030312fff686e6f646555524c73817818687474703a2f2f6578616d706c652e636f6d3a393030312fff"

func TestDecodeOrionPartyInfo(t *testing.T) {
	data, _ := hex.DecodeString(orionPartyInfo)
	p, entries, err := DecodePartyInfo(data)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := keys.ParsePublicKey("DhDJCkSueGqz/siJCuAARDoWvPpAIznx6WWpJOO07Go=")
	if len(entries) != 1 || entries[k] != "http://example.com:9001/" || p.URL != "" || len(p.NodeURLs) != 1 {
		t.Errorf("decoded %+v %v", p, entries)
	}
}

func TestPartyInfoRoundTrip(t *testing.T) {
	own := key(t)
	table, err := NewTable(ctx, storage.NewMemory(), "http://me:8080/", []keys.PublicKey{own})
	if err != nil {
		t.Fatal(err)
	}
	other := key(t)
	table.Merge(ctx, map[keys.PublicKey]string{other: "http://peer:8080/"})
	data, err := table.PartyInfo().Encode()
	if err != nil {
		t.Fatal(err)
	}
	p, entries, err := DecodePartyInfo(data)
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != "http://me:8080/" || len(p.NodeURLs) != 2 || entries[own] != "http://me:8080/" || entries[other] != "http://peer:8080/" {
		t.Errorf("round trip: %+v %v", p, entries)
	}
	for name, bad := range map[string]map[string]any{
		"bad key":     {"nodePKs": map[string]string{"xx": "http://h/"}},
		"bad url":     {"nodePKs": map[string]string{own.String(): "not a url"}},
		"no host":     {"nodePKs": map[string]string{own.String(): "http:///x"}},
		"nodePKs int": {"nodePKs": 3},
	} {
		data, _ := payload.Marshal(bad)
		if _, _, err := DecodePartyInfo(data); !errors.Is(err, payload.ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestTableMergeAndPersistence(t *testing.T) {
	kv := storage.NewMemory()
	own, a, b := key(t), key(t), key(t)
	table, err := NewTable(ctx, kv, "http://me/", []keys.PublicKey{own})
	if err != nil {
		t.Fatal(err)
	}
	// Merge only adds: an existing entry — ours included — is never overwritten.
	n, _ := table.Merge(ctx, map[keys.PublicKey]string{a: "http://a/", own: "http://impostor/"})
	if n != 1 {
		t.Errorf("added %d", n)
	}
	select {
	case <-table.Changed():
	default:
		t.Error("no change signalled")
	}
	table.Merge(ctx, map[keys.PublicKey]string{a: "http://a2/", b: "http://b/"})
	if u, _ := table.URLFor(a); u != "http://a/" {
		t.Errorf("a overwritten: %s", u)
	}
	if u, _ := table.URLFor(own); u != "http://me/" {
		t.Errorf("own key overwritten: %s", u)
	}
	if urls := table.URLs(); len(urls) != 3 {
		t.Errorf("URLs %v", urls)
	}
	// A persisted table is reloaded; the own keys are set to the (new) URL.
	kv.Put(ctx, []byte("a payload key, not a node entry, 44 bytes.."), []byte("x"))
	again, err := NewTable(ctx, kv, "http://me-now/", []keys.PublicKey{own})
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := again.URLFor(b); u != "http://b/" || len(again.Entries()) != 3 {
		t.Errorf("reloaded: %v", again.Entries())
	}
	if u, _ := again.URLFor(own); u != "http://me-now/" {
		t.Errorf("own URL after reload: %s", u)
	}
	if err := Clear(ctx, kv); err != nil {
		t.Fatal(err)
	}
	if cleared, _ := NewTable(ctx, kv, "http://me/", nil); len(cleared.Entries()) != 0 {
		t.Errorf("after Clear: %v", cleared.Entries())
	}
	if _, err := kv.Get(ctx, []byte("a payload key, not a node entry, 44 bytes..")); err != nil {
		t.Error("Clear removed a non-table entry")
	}
}

// fakeNet is a Poller over in-memory tables.
type fakeNet struct {
	mu     sync.Mutex
	tables map[string]*Table
	calls  map[string][]time.Time
}

func (f *fakeNet) PartyInfo(ctx context.Context, url string, body []byte) ([]byte, error) {
	f.mu.Lock()
	f.calls[url] = append(f.calls[url], time.Now())
	t := f.tables[url]
	f.mu.Unlock()
	if t == nil {
		return nil, errors.New("connection refused")
	}
	_, entries, err := DecodePartyInfo(body)
	if err != nil {
		return nil, err
	}
	reply, _ := t.PartyInfo().Encode()
	t.Merge(ctx, entries)
	return reply, nil
}

func TestDiscoveryConverges(t *testing.T) {
	net := &fakeNet{tables: map[string]*Table{}, calls: map[string][]time.Time{}}
	urls := []string{"http://a/", "http://b/", "http://c/"}
	var tables []*Table
	for _, u := range urls {
		tb, _ := NewTable(ctx, storage.NewMemory(), u, []keys.PublicKey{key(t)})
		net.tables[u] = tb
		tables = append(tables, tb)
	}
	cctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i, tb := range tables {
		var boot []string
		if i > 0 {
			boot = []string{urls[0], "http://down/"}
		}
		d := &Discovery{Table: tb, Poller: net, BootNodes: boot, FirstDelay: 5 * time.Millisecond, MaxDelay: 40 * time.Millisecond}
		wg.Add(1)
		go func() { defer wg.Done(); d.Run(cctx) }()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		done := true
		for _, tb := range tables {
			done = done && len(tb.Entries()) == 3
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("tables did not converge")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond)
	cancel()
	wg.Wait()
	// Polls of an unreachable URL back off: the gaps grow up to the maximum.
	net.mu.Lock()
	calls := net.calls["http://down/"]
	net.mu.Unlock()
	if len(calls) < 3 {
		t.Fatalf("%d polls of the down node", len(calls))
	}
	if len(net.calls["http://a/"]) == 0 || len(net.calls["http://b/"]) == 0 {
		t.Error("discovered nodes were not polled")
	}
}
