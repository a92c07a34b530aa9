package config

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// fastSyncOnly are the options that only mean something for Besu's snap
// and checkpoint sync: given with an explicit --sync-mode=FULL they
// contradict it.
var fastSyncOnly = []string{
	"sync-min-peers",
	"snapsync-synchronizer-pre-checkpoint-headers-only-enabled",
	"snapsync-synchronizer-transaction-indexing-enabled",
	"Xcheckpoint-post-merge-enabled",
	"Xsynchronizer-fast-sync-pivot-distance",
	"Xsynchronizer-fast-sync-full-validation-rate",
	"Xsynchronizer-pivot-distance",
	"Xsynchronizer-world-state-hash-count-per-request",
	"Xsynchronizer-world-state-request-parallelism",
	"Xsynchronizer-world-state-max-requests-without-progress",
	"Xsynchronizer-world-state-min-millis-before-stalling",
	"Xsynchronizer-world-state-task-cache-size",
	"Xsnapsync-synchronizer-bytecode-count-per-request",
	"Xsnapsync-synchronizer-flat-account-healed-count-per-request",
	"Xsnapsync-synchronizer-flat-db-healing-enabled",
	"Xsnapsync-synchronizer-flat-slot-healed-count-per-request",
	"Xsnapsync-synchronizer-pivot-block-distance-before-caching",
	"Xsnapsync-synchronizer-pivot-block-window-validity",
	"Xsnapsync-synchronizer-storage-count-per-request",
	"Xsnapsync-synchronizer-trienode-count-per-request",
}

// Besu's transaction pool options by implementation (TransactionPoolOptions'
// Layered and Sequenced groups): with an explicit --tx-pool the other
// group's options are an error, as in Besu.
var (
	layeredPoolOptions   = []string{"tx-pool-layer-max-capacity", "tx-pool-max-prioritized", "tx-pool-max-prioritized-by-type", "tx-pool-max-future-by-sender", "tx-pool-min-score", "tx-pool-enable-balance-check"}
	sequencedPoolOptions = []string{"tx-pool-retention-hours", "tx-pool-limit-by-account-percentage", "tx-pool-max-size"}
)

// p2pOptions are ignored, with a notice, when --p2p-enabled=false (Besu's
// dependency warning).
var p2pOptions = []string{"bootnodes", "discovery-enabled", "max-peers", "banned-node-ids", "p2p-host", "p2p-interface",
	"p2p-port", "remote-connections-max-percentage", "nat-method", "net-restrict", "static-nodes-file"}

// checkBesuRules checks the rules of Besu's that involve several options,
// with Besu's wording where Besu has one, and derives the pool's nonce gap.
func (c *Config) checkBesuRules() error {
	if v, ok := c.given["sync-mode"]; ok && c.SyncMode == "FULL" {
		if fast := c.givenOf(fastSyncOnly); len(fast) > 0 {
			return fmt.Errorf("--sync-mode=FULL (from %s) can't be used with %s, which only applies to snap or checkpoint sync: remove %s",
				v.Source, joinFlags(fast), pluralThem(fast))
		}
	}
	if c.given["metrics-enabled"].Text != "" && c.given["metrics-push-enabled"].Text != "" &&
		isTrue(c.given["metrics-enabled"].Text) && isTrue(c.given["metrics-push-enabled"].Text) {
		// Besu's wording (MetricsOptions).
		return errors.New("--metrics-enabled option and --metrics-push-enabled option can't be used at the same time. Please refer to CLI reference for more details about this constraint")
	}
	if impl, ok := c.given["tx-pool"]; ok {
		other, msg := sequencedPoolOptions, "Could not use legacy or sequenced transaction pool options with layered implementation"
		if c.TxPool.Implementation == "SEQUENCED" {
			other, msg = layeredPoolOptions, "Could not use layered transaction pool options with legacy or sequenced implementation"
		}
		if bad := c.givenOf(other); len(bad) > 0 {
			// Besu's wording, with the options and where --tx-pool came from.
			return fmt.Errorf("%s: %s (--tx-pool=%s from %s)", msg, joinFlags(bad), strings.ToLower(c.TxPool.Implementation), impl.Source)
		}
	}
	if _, sized := c.given["tx-pool-max-size"]; !sized && c.TxPool.Implementation != "SEQUENCED" {
		// Besu's layered pool (the default) is bounded by memory; Basalt's
		// by count: the count those memory limits hold.
		c.TxPool.MaxSize = LayeredPoolSize(c.TxPool.MaxPrioritized, c.TxPool.LayerMaxCapacity)
	}
	_, limitGiven := c.given["tx-pool-limit-by-account-percentage"]
	_, futureGiven := c.given["tx-pool-max-future-by-sender"]
	switch {
	case limitGiven && futureGiven:
		return errors.New("--tx-pool-limit-by-account-percentage (sequenced pool) and --tx-pool-max-future-by-sender (layered pool) both bound a sender's nonce gap: give one of them")
	case limitGiven || (c.given["tx-pool"].Text != "" && c.TxPool.Implementation == "SEQUENCED"):
		// Besu's sequenced pool: ceil(fraction × max size), at least 1.
		c.TxPool.MaxFutureNonceGap = uint64(max(1, math.Ceil(c.TxPool.LimitByAccountPercentage*float64(c.TxPool.MaxSize))))
	default:
		c.TxPool.MaxFutureNonceGap = c.TxPool.MaxFutureBySender
	}
	if v, ok := c.given["p2p-enabled"]; ok && !c.P2P.Enabled {
		for _, name := range c.givenOf(p2pOptions) {
			c.notice(name, c.given[name], fmt.Sprintf("has no effect: --p2p-enabled is false (from %s)", v.Source), false)
		}
	}
	return nil
}

// givenOf returns, sorted, the names of opts that were given.
func (c *Config) givenOf(opts []string) []string {
	var out []string
	for _, n := range opts {
		if _, ok := c.given[n]; ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// joinFlags writes option names as flags: "--a", "--a and --b",
// "--a, --b and --c".
func joinFlags(names []string) string {
	flags := make([]string, len(names))
	for i, n := range names {
		flags[i] = "--" + n
	}
	if len(flags) == 1 {
		return flags[0]
	}
	return strings.Join(flags[:len(flags)-1], ", ") + " and " + flags[len(flags)-1]
}

func pluralThem(names []string) string {
	if len(names) == 1 {
		return "it"
	}
	return "them"
}
