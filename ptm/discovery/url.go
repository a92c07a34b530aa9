package discovery

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// CheckURL accepts an absolute http or https URL with a host.
func CheckURL(s string) error {
	_, err := Canonical(s)
	return err
}

// Canonical returns the form of a node URL the table keeps:
// scheme://host[:port]/ with scheme and host in lower case. Calls to a peer
// use only its scheme, host and port (as Orion's do), so URLs differing in
// path, trailing slash or letter case name the same instance and must count
// as one peer, not several.
func Canonical(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL with a host", s)
	}
	if u.User != nil {
		return "", fmt.Errorf("%q: a node URL carries no user information", s)
	}
	if u.Port() == "" && strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("%q has an empty port", s)
	}
	return scheme + "://" + strings.ToLower(u.Host) + "/", nil
}

// Endpoint returns the host and port a node URL reaches ("h:443" for
// https://h/), lower case; "" for a URL that does not parse. Two URLs with
// the same endpoint reach the same listener whatever their scheme: with tls
// = "strict" every call is made over TLS, whatever the URL says.
func Endpoint(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
