package permissioning

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/basaltchain/basalt/enodeurl"
)

// DNS is Besu's enode DNS support for the nodes allowlist
// (--Xdns-enabled, --Xdns-update-enabled). Without it an entry's host must
// be an IP address. With Enabled, a host name is resolved when the entry
// is read (file, PERM method) and the entry stands for that address; with
// UpdateEnabled too, the entry keeps its name, is listed and written back
// under it, and a peer that does not match the address resolved earlier is
// checked against the name resolved anew, so a node whose address changed
// (a restarted container) is still recognised.
type DNS struct {
	Enabled       bool
	UpdateEnabled bool
	// Resolve gives a host name's address; nil uses the system resolver
	// (an IPv4 address first, as Java's InetAddress.getByName does).
	Resolve func(host string) (net.IP, error)
}

// resolveTimeout bounds one lookup: checks run on the peer handshake.
const resolveTimeout = 5 * time.Second

func (d *DNS) enabled() bool { return d != nil && d.Enabled }

func (d *DNS) resolver() func(string) (net.IP, error) {
	if d != nil && d.Resolve != nil {
		return d.Resolve
	}
	return systemResolve
}

// resolveOnParse resolves an entry's host name as it is read. With
// updates on, a name that does not resolve yet is not an error: Besu lists
// it at 127.0.0.1; Basalt does too, and resolves the name again on checks.
func (d *DNS) resolveOnParse(host string) (net.IP, error) {
	ip, err := d.resolver()(host)
	if err != nil && d.UpdateEnabled {
		return net.IPv4(127, 0, 0, 1), nil
	}
	return ip, err
}

// dnsNoUpdateError is Besu's message for any invalid enode URL when names
// are resolved once (--Xdns-enabled without --Xdns-update-enabled).
func dnsNoUpdateError(url string) error {
	return fmt.Errorf("Invalid IP address '%s' (or DNS query resolved an invalid IP). --Xdns-enabled is true but --Xdns-update-enabled flag is false.", url)
}

func systemResolve(host string) (net.IP, error) {
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	return enodeurl.LookupHost(ctx, host)
}
