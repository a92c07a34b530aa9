package permissioning

import (
	"errors"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/enodeurl"
)

// hostEnode is an enode URL at localhost:port, and the node it names.
func hostEnode(t *testing.T, port int) (string, *enode.Node) {
	t.Helper()
	n, err := enodeurl.Parse(testEnode(t, "127.0.0.1", port))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(enodeurl.Format(n, "127.0.0.1", port, port), "@127.0.0.1:", "@localhost:", 1), n
}

func fileHolds(t *testing.T, path, s string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(data), s)
}

// TestDNSResolvedOnce: with --Xdns-enabled alone, a host name (localhost,
// through the system resolver) is resolved when read and the entry stands
// for the address, listed and written back by IP, as Besu; without the
// option host names stay invalid; a name that does not resolve gives
// Besu's message.
func TestDNSResolvedOnce(t *testing.T) {
	url, n := hostEnode(t, 30303)
	p := writeFile(t, `nodes-allowlist=["`+url+`"]`)
	if _, err := Load(Config{NodesEnabled: true, NodesFile: p}); err == nil || !strings.Contains(err.Error(), "Invalid enode URL syntax") {
		t.Fatalf("host name without --Xdns-enabled: %v", err)
	}
	a, err := Load(Config{NodesEnabled: true, NodesFile: p, DNS: DNS{Enabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !a.NodePermitted(n.ID(), net.IPv4(127, 0, 0, 1), 30303) || !a.NodePermitted(n.ID(), net.IPv4(127, 0, 0, 1), 0) {
		t.Error("localhost entry does not permit the node at 127.0.0.1")
	}
	if a.NodePermitted(n.ID(), net.IPv4(127, 0, 0, 2), 30303) || a.NodePermitted(n.ID(), net.IPv4(127, 0, 0, 1), 30304) {
		t.Error("localhost entry permits another address or port")
	}
	ipURL := enodeurl.Format(n, "127.0.0.1", 30303, 30303)
	if got, _ := a.Nodes(); len(got) != 1 || got[0] != ipURL {
		t.Errorf("listed as %v, want %s", got, ipURL)
	}
	// The same endpoint spelt by name and by address is one entry.
	if err := a.AddNodes([]string{ipURL}); !errors.Is(err, ErrNodeExisting) {
		t.Errorf("adding the address of a listed name: %v", err)
	}
	url2, n2 := hostEnode(t, 30305)
	if err := a.AddNodes([]string{url2}); err != nil {
		t.Fatal(err)
	}
	if !a.NodePermitted(n2.ID(), net.IPv4(127, 0, 0, 1), 30305) || !fileHolds(t, p, "@127.0.0.1:30305") {
		t.Error("added localhost entry not applied or not written by address")
	}
	if err := a.RemoveNodes([]string{url2}); err != nil || a.NodePermitted(n2.ID(), net.IPv4(127, 0, 0, 1), 30305) {
		t.Errorf("remove by name: %v", err)
	}

	failing := DNS{Enabled: true, Resolve: func(string) (net.IP, error) { return nil, errors.New("no such host") }}
	p = writeFile(t, `nodes-allowlist=["`+url+`"]`)
	_, err = Load(Config{NodesEnabled: true, NodesFile: p, DNS: failing})
	want := "Invalid IP address '" + url + "' (or DNS query resolved an invalid IP). --Xdns-enabled is true but --Xdns-update-enabled flag is false."
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("unresolvable name: %v", err)
	}
}

// TestDNSUpdate: with --Xdns-update-enabled too, an entry keeps its host
// name (listed and written back under it) and a peer is checked against
// the name resolved anew, so a node whose address moved is still
// permitted and its old address no longer is.
func TestDNSUpdate(t *testing.T) {
	url, n := hostEnode(t, 30303)
	p := writeFile(t, `nodes-allowlist=["`+url+`"]`)

	// The system resolver first: localhost.
	a, err := Load(Config{NodesEnabled: true, NodesFile: p, DNS: DNS{Enabled: true, UpdateEnabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Nodes(); len(got) != 1 || got[0] != url {
		t.Errorf("listed as %v, want %s", got, url)
	}
	if !a.NodePermitted(n.ID(), net.IPv4(127, 0, 0, 1), 30303) {
		t.Error("localhost entry does not permit the node at 127.0.0.1")
	}

	// A resolver whose answer moves, as a restarted container's would.
	var addr atomic.Pointer[net.IP]
	set := func(ip net.IP) { addr.Store(&ip) }
	set(net.IPv4(127, 0, 0, 1))
	var lookups atomic.Int32
	dns := DNS{Enabled: true, UpdateEnabled: true, Resolve: func(host string) (net.IP, error) {
		lookups.Add(1)
		if host != "localhost" {
			return nil, errors.New("no such host")
		}
		return *addr.Load(), nil
	}}
	a, err = Load(Config{NodesEnabled: true, NodesFile: p, DNS: dns})
	if err != nil {
		t.Fatal(err)
	}
	set(net.IPv4(127, 0, 0, 2))
	if !a.NodePermitted(n.ID(), net.IPv4(127, 0, 0, 2), 30303) || !a.NodePermitted(n.ID(), net.IPv4(127, 0, 0, 2), 0) {
		t.Error("node at its new address refused")
	}
	if a.NodePermitted(n.ID(), net.IPv4(127, 0, 0, 3), 30303) || a.NodePermitted(n.ID(), net.IPv4(127, 0, 0, 2), 30304) {
		t.Error("other address or port permitted")
	}
	before := lookups.Load()
	if a.NodePermitted(enode.ID{1}, net.IPv4(127, 0, 0, 2), 30303) || lookups.Load() != before {
		t.Error("an unlisted node ID was permitted or cost a lookup")
	}

	// PERM methods: names kept in the file; removal by name after the move.
	url2, n2 := hostEnode(t, 30305)
	if err := a.AddNodes([]string{url2}); err != nil {
		t.Fatal(err)
	}
	if !fileHolds(t, p, "@localhost:30305") || !a.NodePermitted(n2.ID(), net.IPv4(127, 0, 0, 2), 30305) {
		t.Error("added entry not written under its name or not applied")
	}
	set(net.IPv4(127, 0, 0, 9))
	if err := a.AddNodes([]string{url2}); !errors.Is(err, ErrNodeExisting) {
		t.Errorf("adding a listed name after its address moved: %v", err)
	}
	if err := a.RemoveNodes([]string{url}); err != nil {
		t.Fatalf("remove by name after the move: %v", err)
	}
	if a.NodePermitted(n.ID(), net.IPv4(127, 0, 0, 9), 30303) || fileHolds(t, p, "@localhost:30303\"") {
		t.Error("removed entry still permitted or in the file")
	}

	// A name that does not resolve yet is listed (at 127.0.0.1, as Besu)
	// and permits the node once it resolves.
	n3url := strings.Replace(url2, "localhost:30305", "later.example:30307", 1)
	if err := a.AddNodes([]string{n3url}); err != nil {
		t.Fatalf("unresolved name: %v", err)
	}
	if got, _ := a.Nodes(); !strings.Contains(strings.Join(got, ","), "@later.example:30307") {
		t.Errorf("unresolved name listed as %v", got)
	}
}
