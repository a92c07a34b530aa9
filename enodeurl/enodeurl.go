// Package enodeurl reads and writes enode URLs the way Besu does:
//
//	enode://<node id>@<ip>:<listening port>[?discport=<discovery port>]
//
// The node ID is the 64-byte public key as exactly 128 hex digits, without a
// 0x prefix. Parse wants an IP address as host (Besu's enode DNS support is
// off by default); ParseResolving also takes a host name and resolves it
// (Besu's --Xdns-enabled). A listening port of 0 means the node does not
// accept connections; the discovery port defaults to the listening port.
//
// Parse reports which rule a URL breaks with errors that the JSON-RPC layer
// maps to Besu's codes: ErrInvalidNodeID (ENODE_ID_INVALID), ErrHostNotIP
// (DNS_NOT_ENABLED) and any other *SyntaxError (PARSE_ERROR).
package enodeurl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p/enode"
)

// Besu's messages, kept word for word: the JSON-RPC layer and users match on
// them.
const (
	msgInvalidNodeID = "Invalid node ID: node ID must have exactly 128 hexadecimal characters and should not include any '0x' hex prefix."
	msgHostNotIP     = "Invalid ip address."
)

// ErrInvalidNodeID is returned for a node ID that is not 128 hex digits (or
// not a point on the secp256k1 curve).
var ErrInvalidNodeID = errors.New(msgInvalidNodeID)

// ErrHostNotIP is returned by Parse when the host is a name rather than
// an IP address (Besu without --Xdns-enabled).
var ErrHostNotIP = errors.New(msgHostNotIP)

// SyntaxError is a URL that is not an enode URL. Err is ErrInvalidNodeID,
// ErrHostNotIP or a description of the problem.
type SyntaxError struct {
	URL string
	Err error
}

// Error returns Besu's message for the malformed URL.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("Invalid enode URL syntax '%s'. Enode URL should have the following format 'enode://<node_id>@<ip>:<listening_port>[?discport=<discovery_port>]'. %v", e.URL, e.Err)
}

// Unwrap returns the underlying cause.
func (e *SyntaxError) Unwrap() error { return e.Err }

var (
	nodeIDPattern   = regexp.MustCompile(`^[0-9a-fA-F]{128}$`)
	discportPattern = regexp.MustCompile(`^discport=([0-9]{1,5})$`)
)

// Parse reads an enode URL. The checks run in Besu's order (scheme, host and
// node ID present; scheme; node ID; discovery port; IP; ports), so a URL with
// several problems reports the same one Besu does.
func Parse(s string) (*enode.Node, error) {
	n, _, err := parse(s, nil)
	if err != nil {
		return nil, &SyntaxError{URL: s, Err: err}
	}
	return n, nil
}

// Resolver gives the IP address of a host name.
type Resolver func(host string) (net.IP, error)

// LookupHost is the system resolver as Basalt resolves the host names of
// enode URLs (static nodes, allowlists): the first address of host, IPv4
// first.
func LookupHost(ctx context.Context, host string) (net.IP, error) {
	ips, err := net.DefaultResolver.LookupIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	for _, ip := range ips {
		if v4 := ip.To4(); v4 != nil {
			return v4, nil
		}
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("%s has no address", host)
	}
	return ips[0], nil
}

// ParseResolving reads an enode URL whose host may be a host name, which
// resolve turns into the node's IP address at the point of Besu's checks
// where it resolves names. host is the name ("" when the URL gives an IP
// address). A failed resolution is a *SyntaxError wrapping resolve's error.
func ParseResolving(s string, resolve Resolver) (n *enode.Node, host string, err error) {
	n, host, err = parse(s, resolve)
	if err != nil {
		return nil, "", &SyntaxError{URL: s, Err: err}
	}
	return n, host, nil
}

func parse(s string, resolve Resolver) (*enode.Node, string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, "", errors.New("Invalid empty value.")
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, "", errors.New("Invalid URI.")
	}
	if u.Opaque != "" {
		return nil, "", errors.New("Missing or invalid host or ip address.")
	}
	switch {
	case u.Scheme == "":
		return nil, "", errors.New("Missing 'enode' scheme.")
	case u.Hostname() == "":
		return nil, "", errors.New("Missing or invalid host or ip address.")
	case u.User == nil || u.User.String() == "":
		return nil, "", errors.New("Missing node ID.")
	case !strings.EqualFold(u.Scheme, "enode"):
		return nil, "", errors.New(`Invalid URI scheme (must equal "enode").`)
	}
	if _, hasPassword := u.User.Password(); hasPassword || !nodeIDPattern.MatchString(u.User.Username()) {
		return nil, "", ErrInvalidNodeID
	}
	if u.Path != "" || u.Fragment != "" {
		return nil, "", errors.New("Unexpected path or fragment.")
	}

	tcp, err := port(u.Port(), "listening")
	if err != nil {
		return nil, "", err
	}
	udp := tcp
	if u.RawQuery != "" || u.ForceQuery {
		m := discportPattern.FindStringSubmatch(u.RawQuery)
		if m == nil {
			return nil, "", fmt.Errorf("Invalid discovery port: '%s'.", u.RawQuery)
		}
		if udp, err = port(m[1], "discovery"); err != nil {
			return nil, "", err
		}
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	switch {
	case strings.Contains(host, "%"):
		return nil, "", ErrHostNotIP
	case ip != nil:
		host = ""
	case resolve == nil:
		return nil, "", ErrHostNotIP
	default:
		if ip, err = resolve(host); err != nil {
			return nil, "", err
		}
	}
	raw, err := hexBytes(u.User.Username())
	if err != nil {
		return nil, "", ErrInvalidNodeID
	}
	pub, err := crypto.UnmarshalPubkey(append([]byte{4}, raw...))
	if err != nil {
		return nil, "", ErrInvalidNodeID
	}
	return enode.NewV4(pub, ip, tcp, udp), host, nil
}

// port reads a port: 0 to 65535. A missing port is an error, as in Besu.
func port(s, kind string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("Invalid %s port: missing.", kind)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 65535 {
		return 0, fmt.Errorf("Invalid %s port: %s.", kind, s)
	}
	return n, nil
}

func hexBytes(s string) ([]byte, error) {
	out := make([]byte, len(s)/2)
	for i := range out {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, err
		}
		out[i] = byte(v)
	}
	return out, nil
}

// ID returns the 128 hex digits of a node's public key, without 0x: the node
// ID of its enode URL.
func ID(n *enode.Node) string {
	pub := n.Pubkey()
	if pub == nil {
		return ""
	}
	return fmt.Sprintf("%x", crypto.FromECDSAPub(pub)[1:])
}

// Format writes the enode URL of n with the given host (an IP address, or
// "[::]"-style text as is) and ports: ?discport=udp is added when the
// discovery port differs from the listening port.
func Format(n *enode.Node, host string, tcp, udp int) string {
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		host = "[" + ip.String() + "]"
	}
	s := "enode://" + ID(n) + "@" + host + ":" + strconv.Itoa(tcp)
	if udp != tcp {
		s += "?discport=" + strconv.Itoa(udp)
	}
	return s
}
