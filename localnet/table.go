package localnet

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// printTable prints every endpoint and a ready-to-paste curl.
func (n *Network) printTable(took time.Duration) {
	WriteEndpoints(n.opts.Out, n.m)
	fmt.Fprintf(n.opts.Out, "\nready in %.1fs: %d %s validators producing blocks; logs in %s\n",
		took.Seconds(), n.m.Validators, n.m.Consensus, n.abs("logs"))
}

// WriteEndpoints writes m's endpoint table and example commands to w.
func WriteEndpoints(w io.Writer, m *Manifest) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "NODE\tHTTP\tWS\tGRAPHQL\tMETRICS")
	if m.Privacy {
		fmt.Fprint(tw, "\tPRIVACY CLIENT API\tPRIVACY PUBLIC KEY")
	}
	fmt.Fprintln(tw)
	for _, nd := range m.Nodes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s", nd.Name, nd.HTTP, nd.WS, nd.GraphQL, nd.Metrics)
		if m.Privacy {
			fmt.Fprintf(tw, "\t%s\t%s", nd.PrivacyURL, nd.PrivacyPublicKey)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nchain ID %d, %s rules; funded dev account %s (key %s)\n", m.ChainID, m.Milestone, m.DevAddress, m.DevKey)
	url := m.Nodes[0].HTTP
	if m.SignerURL != "" {
		fmt.Fprintf(w, "signer (node1, holds %s): %s\n", m.DevAddress, m.SignerURL)
	}
	fmt.Fprintf(w, "\ncurl -s -X POST -H 'Content-Type: application/json' --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\",\"params\":[]}' %s\n", url)
	if m.SignerURL != "" {
		fmt.Fprintf(w, "curl -s -X POST -H 'Content-Type: application/json' --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_sendTransaction\",\"params\":[{\"from\":\"%s\",\"to\":\"%s\",\"value\":\"0x1\"}]}' %s\n",
			m.DevAddress, m.Nodes[len(m.Nodes)-1].Address, m.SignerURL)
	}
}
