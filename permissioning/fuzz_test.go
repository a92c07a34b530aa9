package permissioning

import (
	"errors"
	"net"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/p2p/enode"
)

// FuzzDecodeFile feeds the permissions file parser arbitrary files: no
// panic, and a file whose lists are valid encodes to one that reads back
// the same lists.
func FuzzDecodeFile(f *testing.F) {
	f.Add([]byte("accounts-whitelist=[\"0x0000000000000000000000000000000000000009\"]\n" +
		"nodes-whitelist=[\"enode://6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0@192.168.0.9:4567\"]\n"))
	f.Add([]byte("accounts-allowlist=[]\nnodes-allowlist=[]\n[section]\nx=1\n"))
	f.Add([]byte("accounts-allowlist=[\n  \"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73\", # a\n]\n"))
	f.Add([]byte("accounts-allowlist=\"x\""))
	f.Add([]byte("nodes-allowlist=[1,2]"))
	f.Add([]byte("= ["))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := decodeFile("fuzz.toml", data)
		if err != nil {
			return
		}
		accts, akey, aerr := d.accounts()
		nodes, nkey, nerr := d.nodes(nil)
		if aerr == nil {
			out, err := d.encode(akey, accts.entries)
			if err != nil {
				return // a file whose other keys TOML cannot re-encode
			}
			d2, err := decodeFile("fuzz.toml", out)
			if err != nil {
				t.Fatalf("encoded file does not parse: %v\n%s", err, out)
			}
			back, key2, err := d2.accounts()
			if err != nil || key2 != akey || !slices.Equal(back.entries, accts.entries) {
				t.Fatalf("accounts %v (%s) read back as %v (%s): %v", accts.entries, akey, back, key2, err)
			}
			if nerr == nil {
				nb, nkey2, err := d2.nodes(nil)
				if err != nil || nkey2 != nkey || !sameNodes(nb, nodes) {
					t.Fatalf("nodes lost by an accounts change: %v", err)
				}
			}
		}
	})
}

// FuzzNodeMatch checks enode matching: a URL that parses is permitted by a
// list holding it, at its listening port and inbound (port 0), and not at
// another port; its listed form parses back to the same endpoint. The URL
// is read without DNS and with each DNS mode (host names resolved by a
// fixed table).
func FuzzNodeMatch(f *testing.F) {
	f.Add("enode://6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0@192.168.0.9:4567", uint16(4568))
	f.Add("enode://6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0@[::ffff:10.0.0.1]:1?discport=2", uint16(1))
	f.Add("enode://6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0@example.com:1", uint16(1))
	f.Add("enode://@:", uint16(0))
	f.Add("enode://6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0@localhost:30303", uint16(30304))
	f.Add("enode://6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0@nowhere.invalid:30303", uint16(1))
	resolve := func(host string) (net.IP, error) {
		if host == "localhost" {
			return net.IPv4(127, 0, 0, 1), nil
		}
		return nil, errors.New("no such host")
	}
	modes := []*DNS{nil, {Enabled: true, Resolve: resolve}, {Enabled: true, UpdateEnabled: true, Resolve: resolve}}
	f.Fuzz(func(t *testing.T, url string, other uint16) {
		for _, dns := range modes {
			matchNode(t, url, other, dns)
		}
	})
}

func matchNode(t *testing.T, url string, other uint16, dns *DNS) {
	n, err := parseNode(url, dns)
	if err != nil {
		return
	}
	l := newNodeList([]listedNode{n}, dns)
	if !l.permits(n.ID(), n.IP(), n.TCP()) && n.TCP() != 0 {
		t.Fatalf("%s not permitted at its port", url)
	}
	if !l.permits(n.ID(), n.IP(), 0) {
		t.Fatalf("%s not permitted inbound", url)
	}
	if int(other) != n.TCP() && other != 0 && l.permits(n.ID(), n.IP(), int(other)) {
		t.Fatalf("%s permitted at port %d", url, other)
	}
	if l.permits(enode.ID{}, n.IP(), n.TCP()) {
		t.Fatalf("another node ID permitted")
	}
	if l.permits(n.ID(), net.IPv4(203, 0, 113, 7), 0) && canonicalIP(n.IP()) != "203.0.113.7" {
		t.Fatalf("another IP permitted")
	}
	back, err := parseNode(formatNode(n), dns)
	if err != nil || endpointOf(back.Node) != endpointOf(n.Node) || !l.has(back) {
		t.Fatalf("%s listed as %s: %v", url, formatNode(n), err)
	}
}
