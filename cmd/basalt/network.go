package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/localnet"
)

// newNetworkCommand is `basalt network up|down|status`: a complete private
// network on this machine, every process a child of `up` (see localnet).
func newNetworkCommand() *cobra.Command {
	var dir string
	addDir := func(c *cobra.Command) {
		c.Flags().StringVar(&dir, "dir", "./basalt-network", "Directory of the network: manifest, genesis, keys, data and logs")
	}
	var s localnet.Settings
	var detach, verbose bool
	up := &cobra.Command{
		Use:   "up",
		Short: "Starts (or resumes) the network in --dir",
		Long: `Starts N validators (and with --privacy a basalt-privacy per node, with --signer a
basalt-signer in front of node 1 holding the first dev key) as child processes on
loopback ports from --base-port (10 per validator: HTTP, WS, GraphQL, metrics, p2p,
privacy node API, privacy client API, signer). A new --dir gets keys and genesis from
the code of operator generate-blockchain-config; a --dir holding a network resumes it
with its own settings. Blocks come every --block-period (default 1s; qbft and ibft2 down
to 100ms, written as Besu's xblockperiodmilliseconds). The genesis activates --milestone (default osaka: PUSH0, MCOPY
and every fork go-ethereum executes) and every earlier milestone from block 0. Ready
once the first block is produced; Ctrl-C stops every process. basalt-privacy and
basalt-signer are looked up next to basalt, then on PATH. Gas is free, and a sender may
have 10,000 transactions in flight (--tx-pool-max-future-by-sender=10000: one key at
1,000 tx/s, as load tools send).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := localnet.Options{Out: cmd.OutOrStdout(), Changed: func(name string) bool { return cmd.Flags().Changed(name) }}
			if verbose {
				opts.Verbose = cmd.ErrOrStderr()
			}
			n, err := localnet.Prepare(dir, s, opts)
			if err != nil {
				return err
			}
			if !detach {
				return n.Run(cmd.Context())
			}
			pid, err := n.Detach(cmd.Context())
			if err != nil {
				return err
			}
			localnet.WriteEndpoints(cmd.OutOrStdout(), n.Manifest())
			fmt.Fprintf(cmd.OutOrStdout(), "\nrunning in the background (supervisor PID %d); stop it with: basalt network down --dir %s\n", pid, dir)
			return nil
		},
	}
	addDir(up)
	f := up.Flags()
	f.IntVar(&s.Validators, "validators", 4, fmt.Sprintf("Number of validators (1 to %d)", localnet.MaxValidators))
	f.StringVar(&s.Consensus, "consensus", "qbft", "Consensus engine: qbft, ibft2 or clique")
	f.BoolVar(&s.Privacy, "privacy", false, "Run a basalt-privacy manager per node and enable the EEA and PRIV methods")
	f.BoolVar(&s.Signer, "signer", false, "Run basalt-signer in front of node 1 with the first dev key")
	f.IntVar(&s.BasePort, "base-port", 8545, "First port of the network (node 1's HTTP JSON-RPC)")
	f.StringVar(&s.Milestone, "milestone", localnet.DefaultMilestone, "Newest protocol milestone (hard fork) the genesis activates, with every earlier one, from block 0: "+
		strings.Join(localnet.Milestones, ", ")+"; an older one beside other clients (GoQuorum 24.4.1: berlin; Besu validators: at most shanghai, see docs/how-to/network-up.md)")
	f.StringVar(&s.BlockPeriod, "block-period", "1s", "Block period: whole milliseconds from 100ms (e.g. 250ms, 2s); a BFT period that is not whole seconds goes into the genesis as xblockperiodmilliseconds (see docs/how-to/sub-second-blocks.md)")
	f.BoolVar(&detach, "detach", false, "Run the network in the background; stop it with basalt network down")
	f.BoolVar(&verbose, "verbose", false, "Stream every process's log, each line prefixed with its name")

	down := &cobra.Command{
		Use:   "down",
		Short: "Stops the network running in the background in --dir",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := localnet.Down(cmd.Context(), dir); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "network in %s stopped\n", dir)
			return nil
		},
	}
	addDir(down)
	status := &cobra.Command{
		Use:   "status",
		Short: "Shows the height and peers of each node of the network in --dir",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, pid, st, err := localnet.Status(cmd.Context(), dir)
			if err != nil {
				return err
			}
			localnet.WriteStatus(cmd.OutOrStdout(), dir, m, pid, st)
			return nil
		},
	}
	addDir(status)
	return commandGroup("network", "Runs a complete private network on this machine", up, down, status)
}
