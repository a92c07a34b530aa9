// Package fault injects the faults production networks meet into networks
// of real basalt validators, for end-to-end tests (test/fault):
//
//   - partitions in the kernel: each node runs in a network namespace of
//     its own on a bridge (Fabric), and a cut is nftables rules dropping
//     the packets between two nodes, both ways, until Heal;
//   - slow, lossy and one-way links: every peer-to-peer connection runs
//     through an in-process TCP proxy (Shopify's toxiproxy, Links), whose
//     toxics add latency, cap bandwidth, delay lost segments as TCP's
//     retransmissions do, or drop one direction's bytes;
//   - clock skew: a node started with --Xclock-offset-milliseconds runs
//     its consensus clock ahead or behind (libfaketime does not reach a Go
//     program's clock, which the runtime reads through the vDSO);
//   - crashes: a node killed (SIGKILL) and restarted on its data, once or
//     in a loop (KillLoop).
//
// A Run drives scenarios one after another on one Network under a steady
// Stream of transfers; each Scenario ends by checking that production
// resumed, that every node has the same hash at every height and that
// every acknowledged transaction was mined exactly once, and records the
// figures (blocks, recovery in block periods, transactions).
//
// Everything needs root (namespaces, veth pairs, nftables): Require skips
// a test that lacks it, saying what is missing.
package fault
