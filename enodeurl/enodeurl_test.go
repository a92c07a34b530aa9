package enodeurl

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// id is a valid node ID (the public key of private key 0x...01).
const id = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		url      string
		ip       string
		tcp, udp int
	}{
		{"enode://" + id + "@127.0.0.1:30303", "127.0.0.1", 30303, 30303},
		{"enode://" + id + "@10.0.0.7:30303?discport=30301", "10.0.0.7", 30303, 30301},
		{"ENODE://" + strings.ToUpper(id) + "@127.0.0.1:1", "127.0.0.1", 1, 1},
		{"enode://" + id + "@[::1]:30303", "::1", 30303, 30303},
		{"enode://" + id + "@127.0.0.1:0", "127.0.0.1", 0, 0}, // not listening
	} {
		n, err := Parse(tc.url)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.url, err)
			continue
		}
		if got := n.IP().String(); got != tc.ip {
			t.Errorf("Parse(%q) ip = %s, want %s", tc.url, got, tc.ip)
		}
		if n.TCP() != tc.tcp || n.UDP() != tc.udp {
			t.Errorf("Parse(%q) ports = %d/%d, want %d/%d", tc.url, n.TCP(), n.UDP(), tc.tcp, tc.udp)
		}
		if ID(n) != id {
			t.Errorf("Parse(%q) id = %s", tc.url, ID(n))
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want error // nil: a syntax error that is neither sentinel
	}{
		{"", nil},
		{"   ", nil},
		{"enode://" + id, nil},                                 // no host
		{"enode://@127.0.0.1:30303", nil},                      // no node ID
		{id + "@127.0.0.1:30303", nil},                         // no scheme
		{"http://" + id + "@127.0.0.1:30303", nil},             // wrong scheme
		{"enode://" + id + "@127.0.0.1", nil},                  // no port
		{"enode://" + id + "@127.0.0.1:70000", nil},            // port out of range
		{"enode://" + id + "@127.0.0.1:30303?discport=x", nil}, // bad discport
		{"enode://" + id + "@127.0.0.1:30303?disc=1", nil},     // unknown query
		{"enode://" + id + "@127.0.0.1:30303/path", nil},       // path
		{"enode://0x" + id[2:] + "@127.0.0.1:30303", ErrInvalidNodeID},
		{"enode://" + id[:127] + "@127.0.0.1:30303", ErrInvalidNodeID},
		{"enode://" + id + "00@127.0.0.1:30303", ErrInvalidNodeID},
		{"enode://" + strings.Repeat("z", 128) + "@127.0.0.1:30303", ErrInvalidNodeID},
		{"enode://" + strings.Repeat("0", 128) + "@127.0.0.1:30303", ErrInvalidNodeID}, // not on the curve
		{"enode://" + id + ":pw@127.0.0.1:30303", ErrInvalidNodeID},
		{"enode://" + id + "@localhost:30303", ErrHostNotIP},
		{"enode://" + id + "@node.example.org:30303", ErrHostNotIP},
		{"enode://" + id + "@999.1.1.1:30303", ErrHostNotIP},
	} {
		_, err := Parse(tc.url)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a *SyntaxError", tc.url, err)
			continue
		}
		if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("Parse(%q) = %v, want %v", tc.url, err, tc.want)
		}
		if tc.want == nil && (errors.Is(err, ErrInvalidNodeID) || errors.Is(err, ErrHostNotIP)) {
			t.Errorf("Parse(%q) = %v, want a plain syntax error", tc.url, err)
		}
	}
}

// The node-ID message is matched by the JSON-RPC layer (as Besu's
// AdminModifyPeer matches the end of the exception message).
func TestNodeIDMessage(t *testing.T) {
	_, err := Parse("enode://abc@127.0.0.1:30303")
	if !strings.HasSuffix(err.Error(), "Invalid node ID: node ID must have exactly 128 hexadecimal characters and should not include any '0x' hex prefix.") {
		t.Fatalf("message %q", err)
	}
}

func TestFormat(t *testing.T) {
	n, err := Parse("enode://" + id + "@127.0.0.1:30303")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host     string
		tcp, udp int
		want     string
	}{
		{"127.0.0.1", 30303, 30303, "enode://" + id + "@127.0.0.1:30303"},
		{"127.0.0.1", 30303, 30301, "enode://" + id + "@127.0.0.1:30303?discport=30301"},
		{"::1", 1, 1, "enode://" + id + "@[::1]:1"},
		{"[::]", 30303, 30303, "enode://" + id + "@[::]:30303"},
	} {
		if got := Format(n, tc.host, tc.tcp, tc.udp); got != tc.want {
			t.Errorf("Format(%s, %d, %d) = %s, want %s", tc.host, tc.tcp, tc.udp, got, tc.want)
		}
		if tc.host != "[::]" {
			if _, err := Parse(Format(n, tc.host, tc.tcp, tc.udp)); err != nil {
				t.Errorf("round trip of %s: %v", tc.want, err)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("enode://" + id + "@127.0.0.1:30303?discport=30301")
	f.Add("enode://" + id + "@[::1]:30303")
	f.Add("enode://x@y:z")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(Format(n, n.IP().String(), n.TCP(), n.UDP()))
		if err != nil {
			t.Fatalf("formatted URL of %q does not parse: %v", s, err)
		}
		if again.ID() != n.ID() || again.TCP() != n.TCP() || again.UDP() != n.UDP() {
			t.Fatalf("round trip of %q changed the node", s)
		}
	})
}

// TestParseResolving: a host name is resolved (and reported), an IP
// address is taken as is, a failed lookup is a syntax error wrapping it,
// and the checks before the host still come first.
func TestParseResolving(t *testing.T) {
	errNX := errors.New("no such host")
	resolve := func(host string) (net.IP, error) {
		if host == "localhost" {
			return net.IPv4(127, 0, 0, 1), nil
		}
		return nil, errNX
	}
	n, host, err := ParseResolving("enode://"+id+"@localhost:30303?discport=30301", resolve)
	if err != nil || host != "localhost" || !n.IP().Equal(net.IPv4(127, 0, 0, 1)) || n.TCP() != 30303 || n.UDP() != 30301 {
		t.Fatalf("localhost: %v %q %v", n, host, err)
	}
	if n, host, err = ParseResolving("enode://"+id+"@10.0.0.1:1", resolve); err != nil || host != "" || !n.IP().Equal(net.IPv4(10, 0, 0, 1)) {
		t.Fatalf("IP: %v %q %v", n, host, err)
	}
	if _, _, err = ParseResolving("enode://"+id+"@nowhere.invalid:1", resolve); !errors.Is(err, errNX) {
		t.Fatalf("unresolvable: %v", err)
	}
	if _, _, err = ParseResolving("enode://1234@localhost:1", resolve); !errors.Is(err, ErrInvalidNodeID) {
		t.Fatalf("bad node ID: %v", err)
	}
	if _, err = Parse("enode://" + id + "@localhost:1"); !errors.Is(err, ErrHostNotIP) {
		t.Fatalf("Parse of a host name: %v", err)
	}
}
