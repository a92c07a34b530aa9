package localnet

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// NodeStatus is one node's height and peer count ("" error when it
// answered).
type NodeStatus struct {
	Name   string
	Height uint64
	Peers  uint64
	Err    error
}

// Status asks every node of dir's network for its height and peers. It
// returns the supervisor's PID (0 when the network is stopped).
func Status(ctx context.Context, dir string) (*Manifest, int, []NodeStatus, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s holds no network: %w", dir, err)
	}
	pid, running := runningPID(dir)
	if !running {
		pid = 0
	}
	var st []NodeStatus
	for _, nd := range m.Nodes {
		s := NodeStatus{Name: nd.Name}
		if pid != 0 {
			var peers hexutil.Uint64
			s.Height, s.Err = blockNumber(ctx, nd.HTTP)
			if s.Err == nil {
				s.Err = call(ctx, nd.HTTP, &peers, "net_peerCount")
				s.Peers = uint64(peers)
			}
		}
		st = append(st, s)
	}
	return m, pid, st, nil
}

// WriteStatus writes Status's answer as a table.
func WriteStatus(w io.Writer, dir string, m *Manifest, pid int, st []NodeStatus) {
	if pid == 0 {
		fmt.Fprintf(w, "network in %s: stopped (%d %s validators)\n", dir, m.Validators, m.Consensus)
		return
	}
	fmt.Fprintf(w, "network in %s: running (supervisor PID %d, %d %s validators)\n", dir, pid, m.Validators, m.Consensus)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tHTTP\tHEIGHT\tPEERS")
	for i, s := range st {
		if s.Err != nil {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t(%v)\n", s.Name, m.Nodes[i].HTTP, s.Err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", s.Name, m.Nodes[i].HTTP, s.Height, s.Peers)
	}
	tw.Flush()
}
