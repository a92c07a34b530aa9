package config

import (
	"errors"
	"math"
	"strings"

	"github.com/basaltchain/basalt/internal/cliconf"
)

// This file lists the options of Besu's command-line reference that Basalt
// accepts without acting on them as Besu does, so that a Besu config.toml,
// command line or BESU_* environment carries over: each is checked (a value
// Besu would reject is an error naming the option), and when given it gets
// one start-up line saying what Basalt does instead (option.basalt). A
// value that would weaken the node's security if it were ignored is refused
// instead. The options Basalt acts on are in flags.go. docs/reference/configuration.md's
// table of every option is generated from both (TestReferenceBesuOptions).

// Start-up lines shared by families of options.
const (
	noTLS = "Basalt serves plain HTTP and WebSocket only: terminate TLS in a reverse proxy in front of the node (the option has no effect)"

	noEngineAPI = "Basalt serves no Engine API: blocks come from its own consensus engine, not from a consensus client"

	noBonsai = "Basalt has no Bonsai storage: it keeps a hash-keyed Merkle Patricia trie in Pebble, and every block's state stays readable (states not kept are re-executed on first use)"

	noSnap = "Basalt syncs FULL only (every block downloaded and executed from its peers); snap and checkpoint sync are not built"

	noBlobs = "Basalt refuses blob transactions (there is no consensus layer to carry blobs)"

	layeredOnly = "Basalt's pool is bounded by transaction count (--tx-pool-max-size), not by Besu's layered-pool limits"

	noPlugins = "Basalt loads no plugins"
)

// besuOptions are the options of Besu's reference Basalt accepts without
// acting on them as Besu does (see the file comment).
func besuOptions() []option {
	opts := []option{
		// Storage.
		{Option: cliconf.Option{Name: "data-storage-format", Default: "BONSAI"}, check: checkEnum("FOREST", "BONSAI", "X_BONSAI", "X_BONSAI_ARCHIVE"), status: differs,
			basalt: "Basalt keeps world state in a hash-keyed Merkle Patricia trie in Pebble (like FOREST), with every block's state readable; the format cannot be chosen"},
		{Option: cliconf.Option{Name: "key-value-storage", Default: "rocksdb"}, check: checkAny, status: differs,
			basalt: "Basalt stores its database in Pebble under <data-path>/database; the store cannot be chosen"},
		{Option: cliconf.Option{Name: "bonsai-historical-block-limit", Aliases: []string{"bonsai-maximum-back-layers-to-load"}, Default: "512"}, check: checkInt(0, math.MaxInt64), status: differs, basalt: noBonsai},
		{Option: cliconf.Option{Name: "bonsai-limit-trie-logs-enabled", Kind: kindBool, Default: "true"}, check: checkBool, status: differs, basalt: noBonsai},
		{Option: cliconf.Option{Name: "bonsai-trie-logs-pruning-window-size", Default: "30000"}, check: checkInt(0, math.MaxInt64), status: differs, basalt: noBonsai},
		{Option: cliconf.Option{Name: "bonsai-parallel-tx-processing-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs, basalt: noBonsai},
		{Option: cliconf.Option{Name: "bonsai-parallel-state-root-computation-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs, basalt: noBonsai},
		{Option: cliconf.Option{Name: "receipt-compaction-enabled", Kind: kindBool, Default: "true"}, check: checkBool, status: differs, noteWhen: givenFalse,
			basalt: "Basalt always stores receipts in their compact form"},
		{Option: cliconf.Option{Name: "history-expiry-prune", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt keeps every block's body and receipts; nothing is pruned"},
		{Option: cliconf.Option{Name: "cache-last-blocks", Default: "0"}, check: checkInt(0, math.MaxInt32), status: differs, noteWhen: givenNonZero,
			basalt: "Basalt sizes its block and header caches itself"},
		{Option: cliconf.Option{Name: "cache-last-block-headers", Default: "0"}, check: checkInt(0, math.MaxInt32), status: differs, noteWhen: givenNonZero,
			basalt: "Basalt sizes its block and header caches itself"},
		{Option: cliconf.Option{Name: "cache-last-block-headers-preload-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt sizes its block and header caches itself"},
		{Option: cliconf.Option{Name: "cache-precompiles", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt does not cache precompile results"},
		{Option: cliconf.Option{Name: "genesis-state-hash-cache-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt checks the stored genesis against the genesis file at every start"},
		{Option: cliconf.Option{Name: "version-compatibility-protection", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt records no client version in its database and does not check downgrades"},
		{Option: cliconf.Option{Name: "tx-sender-nonce-index-enabled", Kind: kindBool, Default: "true"}, check: checkBool, status: differs, noteWhen: always,
			basalt: "Basalt keeps no sender-and-nonce index (eth_getTransactionBySenderAndNonce is not served)"},
		{Option: cliconf.Option{Name: "pruning-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt does not prune state (Besu 1.x option)"},

		// Synchronisation: sync-mode acts (flags.go); the rest apply to
		// sync modes Basalt does not have, and contradict an explicit
		// --sync-mode=FULL (Config.finish).
		{Option: cliconf.Option{Name: "sync-min-peers", Aliases: []string{"fast-sync-min-peers"}, Default: "5"}, check: checkInt(0, math.MaxInt32), status: differs,
			basalt: "Basalt syncs FULL: it starts as soon as one peer is ahead, whatever the number of peers"},
		{Option: cliconf.Option{Name: "snapsync-server-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt serves the eth protocol only, not snap"},
		{Option: cliconf.Option{Name: "snapsync-synchronizer-pre-checkpoint-headers-only-enabled", Kind: kindBool, Default: "true"}, check: checkBool, status: differs, noteWhen: always, basalt: noSnap},
		{Option: cliconf.Option{Name: "snapsync-synchronizer-transaction-indexing-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs, noteWhen: always, basalt: noSnap},
		{Option: cliconf.Option{Name: "era1-data-uri", Default: ""}, check: checkAny, status: differs,
			basalt: "Basalt imports history with `basalt blocks import` (concatenated RLP), not from ERA1 archives"},
		{Option: cliconf.Option{Name: "era1-import-prepipeline-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt imports history with `basalt blocks import` (concatenated RLP), not from ERA1 archives"},
		{Option: cliconf.Option{Name: "era1-import-prepipeline-concurrency", Default: "1"}, check: checkInt(1, math.MaxInt32), status: differs,
			basalt: "Basalt imports history with `basalt blocks import` (concatenated RLP), not from ERA1 archives"},

		// Block production.
		{Option: cliconf.Option{Name: "min-priority-fee", Default: "0"}, check: checkWei, status: differs, noteWhen: givenNonZero,
			basalt: "Basalt's miner includes transactions by gas price, bounded by --min-gas-price only"},
		{Option: cliconf.Option{Name: "min-block-occupancy-ratio", Default: "0.8"}, check: checkFloat(0, 1), status: differs,
			basalt: "Basalt's miner fills a block with what the pool holds when the block is started"},
		{Option: cliconf.Option{Name: "block-txs-selection-max-time", Default: "5000"}, check: checkInt(1, math.MaxInt32), status: differs,
			basalt: "Basalt bounds a block's transaction selection by the block's gas only"},
		{Option: cliconf.Option{Name: "poa-block-txs-selection-max-time", Default: "75"}, check: checkInt(1, 100), status: differs,
			basalt: "Basalt bounds a block's transaction selection by the block's gas only"},
		{Option: cliconf.Option{Name: "plugin-block-txs-selection-max-time", Default: "50"}, check: checkInt(1, 100), status: differs, basalt: noPlugins},
		{Option: cliconf.Option{Name: "max-blobs-per-block", Default: ""}, check: checkInt(0, math.MaxInt32), status: differs, basalt: noBlobs},
		{Option: cliconf.Option{Name: "max-blobs-per-transaction", Default: ""}, check: checkInt(0, math.MaxInt32), status: differs, basalt: noBlobs},
		{Option: cliconf.Option{Name: "kzg-trusted-setup", Default: ""}, check: checkAny, status: differs, basalt: noBlobs},
		{Option: cliconf.Option{Name: "tx-pool-blob-price-bump", Default: "100"}, check: checkInt(0, 100), status: differs, basalt: noBlobs},
		{Option: cliconf.Option{Name: "miner-stratum-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt serves remote mining over JSON-RPC (eth_getWork, eth_submitWork), not Stratum"},
		{Option: cliconf.Option{Name: "miner-stratum-host", Default: "0.0.0.0"}, check: checkAny, status: differs,
			basalt: "Basalt serves remote mining over JSON-RPC (eth_getWork, eth_submitWork), not Stratum"},
		{Option: cliconf.Option{Name: "miner-stratum-port", Default: "8008"}, check: checkPort, status: differs,
			basalt: "Basalt serves remote mining over JSON-RPC (eth_getWork, eth_submitWork), not Stratum"},
		{Option: cliconf.Option{Name: "reorg-logging-threshold", Default: "6"}, check: checkInt(0, math.MaxInt64), status: differs,
			basalt: "Basalt logs chain reorganisations at DEBUG, whatever their depth"},

		// Peer-to-peer.
		{Option: cliconf.Option{Name: "discovery-dns-url", Default: ""}, check: checkAny, status: differs,
			basalt: "Basalt discovers peers with discv4 from --bootnodes only, not from EIP-1459 DNS lists"},
		{Option: cliconf.Option{Name: "p2p-host-ipv6", Default: ""}, check: checkAny, status: differs,
			basalt: "Basalt runs one peer-to-peer listener, on --p2p-interface and --p2p-port (give IPv6 addresses there for IPv6)"},
		{Option: cliconf.Option{Name: "p2p-interface-ipv6", Default: ""}, check: checkAny, status: differs,
			basalt: "Basalt runs one peer-to-peer listener, on --p2p-interface and --p2p-port (give IPv6 addresses there for IPv6)"},
		{Option: cliconf.Option{Name: "p2p-port-ipv6", Default: "30404"}, check: checkPort, status: differs,
			basalt: "Basalt runs one peer-to-peer listener, on --p2p-interface and --p2p-port (give IPv6 addresses there for IPv6)"},
		{Option: cliconf.Option{Name: "p2p-ipv6-outbound-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt dials the address a peer's enode URL or discovery record gives"},
		{Option: cliconf.Option{Name: "random-peer-priority-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt accepts incoming peers in arrival order up to --max-peers"},
		{Option: cliconf.Option{Name: "remote-connections-limit-enabled", Kind: kindBool, Default: "true"}, check: checkBool, status: differs, noteWhen: givenFalse,
			basalt: "Basalt always limits inbound peers: go-ethereum's p2p server keeps at least a third of --max-peers for peers it dials"},
		{Option: cliconf.Option{Name: "remote-connections-max-percentage", Default: "60"}, check: checkInt(0, 100), status: differs,
			basalt: "Basalt always limits inbound peers: go-ethereum's p2p server keeps at least a third of --max-peers for peers it dials"},
		{Option: cliconf.Option{Name: "poa-discovery-retry-bootnodes", Kind: kindBool, Default: "true"}, check: checkBool, status: differs, noteWhen: givenFalse,
			basalt: "Basalt's discovery (discv4) uses the bootnodes whenever its table runs empty"},
		{Option: cliconf.Option{Name: "compatibility-eth64-forkid-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs,
			basalt: "Basalt always sends and checks the EIP-2124 fork ID (eth/66 and later)"},
		{Option: cliconf.Option{Name: "required-block", Aliases: []string{"required-blocks"}, Kind: kindList, Default: ""},
			check:  refuseSet(checkEach(checkBlockHash), "Basalt cannot require peers to hold a block: refusing to start without the peer check asked for (remove the option to peer without it)"),
			status: refused, basalt: "refused when given: Basalt does not check peers for a required block"},
		{Option: cliconf.Option{Name: "ethstats", Default: ""}, check: checkAny, status: differs, basalt: "Basalt does not report to an Ethstats server"},
		{Option: cliconf.Option{Name: "ethstats-contact", Default: ""}, check: checkAny, status: differs, basalt: "Basalt does not report to an Ethstats server"},
		{Option: cliconf.Option{Name: "ethstats-cacert-file", Default: ""}, check: checkAny, status: differs, basalt: "Basalt does not report to an Ethstats server"},
		{Option: cliconf.Option{Name: "ethstats-report-interval", Default: "5"}, check: checkInt(1, math.MaxInt32), status: differs, basalt: "Basalt does not report to an Ethstats server"},

		// JSON-RPC, GraphQL and the Engine API.
		{Option: cliconf.Option{Name: "rpc-max-trace-filter-range", Default: "1000"}, check: checkInt(0, math.MaxInt64), status: differs,
			basalt: "Basalt serves no TRACE methods yet"},
		{Option: cliconf.Option{Name: "auto-log-bloom-caching-enabled", Kind: kindBool, Default: "true"}, check: checkBool, status: differs, noteWhen: always,
			basalt: "Basalt reads the headers' log blooms directly (a sequential scan); it keeps no bloom cache"},
		{Option: cliconf.Option{Name: "rpc-http-api-methods-no-auth", Aliases: []string{"rpc-http-api-method-no-auth"}, Kind: kindList, Default: ""}, check: checkAny, status: differs,
			basalt: "Basalt exempts no method from authentication: with --rpc-http-authentication-enabled every method needs a token"},
		{Option: cliconf.Option{Name: "rpc-ws-api-methods-no-auth", Aliases: []string{"rpc-ws-api-method-no-auth"}, Kind: kindList, Default: ""}, check: checkAny, status: differs,
			basalt: "Basalt exempts no method from authentication: with --rpc-ws-authentication-enabled every method needs a token"},
	}
	opts = append(opts, tlsOptions()...)
	opts = append(opts, []option{
		{Option: cliconf.Option{Name: "engine-rpc-enabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs, basalt: noEngineAPI},
		{Option: cliconf.Option{Name: "engine-rpc-port", Aliases: []string{"engine-rpc-http-port"}, Default: "8551"}, check: checkPort, status: differs, basalt: noEngineAPI},
		{Option: cliconf.Option{Name: "engine-host-allowlist", Kind: kindList, Default: "localhost,127.0.0.1"}, check: checkAny, status: differs, basalt: noEngineAPI},
		{Option: cliconf.Option{Name: "engine-jwt-disabled", Kind: kindBool, Default: "false"}, check: checkBool, status: differs, basalt: noEngineAPI},
		{Option: cliconf.Option{Name: "engine-jwt-secret", Default: ""}, check: checkAny, status: differs, basalt: noEngineAPI},

		// Transaction pool: the options of Besu's layered pool that have no
		// counterpart in Basalt's count-bounded pool.
		{Option: cliconf.Option{Name: "tx-pool-layer-max-capacity", Default: "12500000"}, status: differs,
			apply: func(c *Config, v string) (err error) {
				c.TxPool.LayerMaxCapacity, err = parseInt64(v, 1, math.MaxInt64)
				return err
			},
			basalt: "Basalt's pool bounds the number of transactions, not their memory: without --tx-pool-max-size the layered pool holds --tx-pool-max-prioritized plus two layers of this many bytes at 1,000 bytes a transaction (27,000 by default)"},
		{Option: cliconf.Option{Name: "tx-pool-max-prioritized", Default: "2000"}, status: differs,
			apply: func(c *Config, v string) (err error) {
				n, err := parseInt64(v, 1, math.MaxInt32)
				c.TxPool.MaxPrioritized = int(n)
				return err
			},
			basalt: "counted into the pool's size (see --tx-pool-layer-max-capacity); Basalt does not keep a separate prioritized layer"},
		{Option: cliconf.Option{Name: "tx-pool-max-prioritized-by-type", Kind: kindList, Default: "BLOB=6"}, check: checkEach(checkTypeCount), status: differs, basalt: layeredOnly},
		{Option: cliconf.Option{Name: "tx-pool-min-score", Default: "-128"}, check: checkInt(-128, 127), status: differs, basalt: layeredOnly},
		{Option: cliconf.Option{Name: "tx-pool-enable-balance-check", Kind: kindBool, Default: "false"}, check: checkBool, status: differs, noteWhen: givenFalse,
			basalt: "Basalt always checks that the sender can pay a transaction's upfront cost when it enters the pool"},
		{Option: cliconf.Option{Name: "tx-pool-priority-senders", Kind: kindList, Default: ""}, check: checkEach(checkAddress), status: differs,
			basalt: "Basalt prioritises local senders (transactions sent to this node) only"},

		// Logging and the process.
		{Option: cliconf.Option{Name: "color-enabled", Kind: kindBool, Default: ""}, check: checkBool, status: differs,
			basalt: "Basalt's logs are never coloured (see --logging-format)"},
		{Option: cliconf.Option{Name: "profile", Default: ""}, check: checkAny, status: differs,
			basalt: "Basalt has no profiles: its defaults are those of Besu's ENTERPRISE/PRIVATE profile (FULL sync, every state kept)"},
		{Option: cliconf.Option{Name: "plugins", Kind: kindList, Default: ""}, check: checkAny, status: differs, basalt: noPlugins},
		{Option: cliconf.Option{Name: "plugin-continue-on-error", Kind: kindBool, Default: "false"}, check: checkBool, status: differs, basalt: noPlugins},
		{Option: cliconf.Option{Name: "plugins-verification-mode", Default: "NONE"}, check: checkEnum("NONE", "FULL"), status: differs, basalt: noPlugins},
		{Option: cliconf.Option{Name: "security-module", Default: "localfile"}, status: refused,
			check: func(v string) error {
				if strings.TrimSpace(v) == "" || strings.EqualFold(strings.TrimSpace(v), "localfile") {
					return nil
				}
				return errSecurityModule
			},
			basalt: "only localfile (the key file, --node-private-key-file) is accepted: Basalt loads no key-storage plugin, and refuses to create a key on disk where one was meant to stay in a module"},

		// Metrics: built by another part of the project.
		{Option: cliconf.Option{Name: "metrics-protocol", Default: "PROMETHEUS"}, check: checkEnum("PROMETHEUS", "OPENTELEMETRY", "NONE"), status: differs, basalt: "Basalt serves Prometheus only (GET /metrics, or the push gateway)"},

		// Contract permissioning: refusing the enabled options keeps a node
		// that was meant to admit only listed nodes and accounts from
		// admitting all. Local (file) permissioning is in flags.go.
		{Option: cliconf.Option{Name: "permissions-nodes-contract-enabled", Kind: kindBool, Default: "false"}, status: refused,
			check:  refuseTrue("contract permissioning is not built: refusing to start rather than admit every node"),
			basalt: "refused when true: contract permissioning is not built (Besu 1.x–24.x option)"},
		{Option: cliconf.Option{Name: "permissions-accounts-contract-enabled", Kind: kindBool, Default: "false"}, status: refused,
			check:  refuseTrue("contract permissioning is not built: refusing to start rather than admit every account's transactions"),
			basalt: "refused when true: contract permissioning is not built (Besu 1.x–24.x option)"},
		{Option: cliconf.Option{Name: "permissions-nodes-contract-address", Default: ""}, check: checkAny, status: differs, basalt: "contract permissioning is not built (Besu 1.x–24.x option)"},
		{Option: cliconf.Option{Name: "permissions-nodes-contract-version", Default: "1"}, check: checkInt(1, 2), status: differs, basalt: "contract permissioning is not built (Besu 1.x–24.x option)"},
		{Option: cliconf.Option{Name: "permissions-accounts-contract-address", Default: ""}, check: checkAny, status: differs, basalt: "contract permissioning is not built (Besu 1.x–24.x option)"},
	}...)
	for i := range opts {
		if opts[i].Type == "" {
			opts[i].Type = typeName(opts[i].Kind)
		}
	}
	return append(opts, unstableOptions()...)
}

// tlsOptions are Besu's TLS options of the JSON-RPC HTTP and WebSocket
// endpoints and of GraphQL, which Basalt serves in plain text only (noTLS).
// Asking for TLS or for client authentication is refused, so that what was
// meant to be encrypted or to admit only some clients is not served to all;
// the options naming key stores, protocols and cipher suites are accepted
// without effect.
func tlsOptions() []option {
	const httpAuth, wsAuth = ", or use --rpc-http-authentication-enabled", ", or use --rpc-ws-authentication-enabled"
	opts := []option{
		refuseTLS("rpc-http-tls-enabled", "JSON-RPC over plain HTTP"),
		refuseClientAuth("rpc-http-tls-client-auth-enabled", "", httpAuth),
		refuseClientAuth("rpc-http-tls-ca-clients-enabled", "", httpAuth),
	}
	opts = append(opts, ignoreTLS(
		"rpc-http-tls-keystore-file", "rpc-http-tls-keystore-password-file", "rpc-http-tls-known-clients-file",
		"rpc-http-tls-truststore-file", "rpc-http-tls-truststore-password-file")...)
	opts = append(opts,
		option{Option: cliconf.Option{Name: "rpc-http-tls-protocol", Aliases: []string{"rpc-http-tls-protocols"}, Kind: kindList, Default: "TLSv1.3,TLSv1.2"}, check: checkAny, status: differs, basalt: noTLS},
		option{Option: cliconf.Option{Name: "rpc-http-tls-cipher-suite", Aliases: []string{"rpc-http-tls-cipher-suites"}, Kind: kindList, Default: ""}, check: checkAny, status: differs, basalt: noTLS},
		refuseTLS("rpc-ws-ssl-enabled", "JSON-RPC over plain WebSocket"),
		refuseClientAuth("rpc-ws-ssl-client-auth-enabled", "", wsAuth))
	opts = append(opts, ignoreTLS(
		"rpc-ws-ssl-cert-file", "rpc-ws-ssl-key-file", "rpc-ws-ssl-keystore-file", "rpc-ws-ssl-keystore-password",
		"rpc-ws-ssl-keystore-password-file", "rpc-ws-ssl-keystore-type", "rpc-ws-ssl-trustcert-file",
		"rpc-ws-ssl-truststore-file", "rpc-ws-ssl-truststore-password", "rpc-ws-ssl-truststore-password-file",
		"rpc-ws-ssl-truststore-type")...)
	opts = append(opts,
		refuseTLS("graphql-tls-enabled", "GraphQL over plain HTTP"),
		refuseClientAuth("graphql-mtls-enabled", " for GraphQL", ""))
	return append(opts, ignoreTLS(
		"graphql-tls-keystore-file", "graphql-tls-keystore-password-file",
		"graphql-tls-truststore-file", "graphql-tls-truststore-password-file")...)
}

// refuseTLS is the boolean option that turns TLS on for an endpoint that
// serves only in plain text.
func refuseTLS(name, served string) option {
	return option{Option: cliconf.Option{Name: name, Kind: kindBool, Default: "false"}, status: refused,
		check:  refuseTrue("Basalt serves " + served + " only; refusing to start rather than serve in the clear what was meant to be encrypted (terminate TLS in a reverse proxy and set this to false)"),
		basalt: "refused when true: " + noTLS}
}

// refuseClientAuth is the boolean option that asks an endpoint to admit
// only clients with a trusted TLS certificate; what names the endpoint
// where the message needs it, and instead the endpoint's own client check.
func refuseClientAuth(name, what, instead string) option {
	return option{Option: cliconf.Option{Name: name, Kind: kindBool, Default: "false"}, status: refused,
		check:  refuseTrue("Basalt has no TLS client authentication" + what + "; refusing to start without the client check asked for (authenticate clients in a reverse proxy" + instead + ")"),
		basalt: "refused when true: " + noTLS}
}

// ignoreTLS are TLS options with no default that Basalt accepts without
// effect (key stores, trust stores and their passwords).
func ignoreTLS(names ...string) []option {
	opts := make([]option, len(names))
	for i, n := range names {
		opts[i] = option{Option: cliconf.Option{Name: n, Default: ""}, check: checkAny, status: differs, basalt: noTLS}
	}
	return opts
}

// unstableNames are Besu's hidden --X options (current and 24.x), which
// Besu itself may drop between releases; Basalt accepts them hidden, with a
// start-up line. Those Basalt acts on (--Xhttp-timeout-seconds,
// --Xws-timeout-seconds, --Xdns-enabled, ...) are in flags.go.
var unstableNames = []string{
	"Xaltbn128-native-enabled", "Xbal-lenient-on-state-root-mismatch", "Xbal-log-bals-on-mismatch",
	"Xbal-perfect-parallelization-enabled", "Xbal-processing-timeout", "Xbal-state-root-timeout", "Xbal-trust-state-root",
	"Xblake2bf-native-enabled", "Xbonsai-code-using-code-hash-enabled", "Xbonsai-full-flat-db-enabled",
	"Xbonsai-limit-trie-logs-enabled", "Xbonsai-parallel-tx-processing-enabled", "Xbonsai-trie-log-pruning-enabled",
	"Xbonsai-trie-logs-pruning-window-size", "Xchain-pruning-bals-retained", "Xchain-pruning-blocks-retained",
	"Xchain-pruning-blocks-retained-limit", "Xchain-pruning-enabled", "Xchain-pruning-frequency",
	"Xchain-pruning-retained-minimum", "Xcheckpoint-post-merge-enabled",
	"Xeth-capability-max", "Xeth-capability-min", "Xeth-max-message-size", "Xeth-max-transactions-message-size",
	"Xeth65-tx-announced-buffering-period-milliseconds", "Xevm-jumpdest-cache-weight-kb", "Xevm-optimized-opcodes",
	"Xevm-worldstate-update-mode", "Xewp-max-get-bodies", "Xewp-max-get-headers", "Xewp-max-get-node-data",
	"Xewp-max-get-pooled-transactions", "Xewp-max-get-receipts", "Xin-process-rpc-api", "Xin-process-rpc-enabled",
	"Xincoming-tx-messages-keep-alive-seconds", "Xmax-ommers-depth", "Xmax-tracked-seen-txs-per-peer",
	"Xmetrics-idle-timeout", "Xminer-pow-job-ttl", "Xminer-remote-sealers-hashrate-ttl",
	"Xminer-remote-sealers-limit", "Xminer-stratum-extranonce", "Xmodexp-native-enabled", "Xnat-kube-service-name",
	"Xnat-method-fallback-enabled", "Xp256verify-native-enabled", "Xp2p-check-maintained-connections-frequency",
	"Xp2p-dns-discovery-server", "Xp2p-initiate-connections-frequency", "Xp2p-peer-task-timeout",
	"Xpeer-tracker-forget-evicted-txs", "Xpeertask-system-enabled", "Xplugins-external-enabled",
	"Xpos-block-creation-max-time", "Xpos-block-creation-repetition-min-duration", "Xpos-block-finalization-timeout-ms",
	"Xpos-slot-duration", "Xpre-merge-pruning-quantity", "Xprivacy-plugin-enabled", "Xpruning-block-confirmations",
	"Xpruning-blocks-retained", "Xqbft-enable-early-round-change", "Xrpc-ipc-api", "Xrpc-ipc-enabled", "Xrpc-ipc-path",
	"Xsecp256k1-native-enabled", "Xsnapsync-bft-enabled", "Xsnapsync-server-enabled",
	"Xsnapsync-synchronizer-bytecode-count-per-request", "Xsnapsync-synchronizer-flat-account-healed-count-per-request",
	"Xsnapsync-synchronizer-flat-db-healing-enabled", "Xsnapsync-synchronizer-flat-slot-healed-count-per-request",
	"Xsnapsync-synchronizer-pivot-block-distance-before-caching", "Xsnapsync-synchronizer-pivot-block-window-validity",
	"Xsnapsync-synchronizer-storage-count-per-request", "Xsnapsync-synchronizer-trienode-count-per-request",
	"Xsynchronizer-backward-headers-download-step-timeout-millis", "Xsynchronizer-block-propagation-range",
	"Xsynchronizer-bodies-download-step-timeout-millis", "Xsynchronizer-computation-parallelism",
	"Xsynchronizer-downloader-bodies-request-size", "Xsynchronizer-downloader-chain-segment-size",
	"Xsynchronizer-downloader-change-target-threshold-by-height", "Xsynchronizer-downloader-change-target-threshold-by-td",
	"Xsynchronizer-downloader-checkpoint-timeouts-permitted", "Xsynchronizer-downloader-header-request-size",
	"Xsynchronizer-downloader-parallelism", "Xsynchronizer-fast-sync-full-validation-rate",
	"Xsynchronizer-fast-sync-pivot-distance", "Xsynchronizer-header-download-parallelism-factor",
	"Xsynchronizer-pivot-distance", "Xsynchronizer-receipts-download-step-timeout-millis",
	"Xsynchronizer-transactions-parallelism", "Xsynchronizer-world-state-hash-count-per-request",
	"Xsynchronizer-world-state-max-requests-without-progress", "Xsynchronizer-world-state-min-millis-before-stalling",
	"Xsynchronizer-world-state-request-parallelism", "Xsynchronizer-world-state-task-cache-size",
	"Xtx-pool-save-restore-timeout", "Xv5-discovery-enabled",
}

// unstableAliases are second names Besu gives some unstable options.
var unstableAliases = map[string][]string{
	"Xin-process-rpc-api":       {"Xin-process-rpc-apis"},
	"Xrpc-ipc-api":              {"Xrpc-ipc-apis"},
	"Xsecp256k1-native-enabled": {"Xsecp-native-enabled"},
	"Xsynchronizer-downloader-checkpoint-timeouts-permitted": {"Xsynchronizer-downloader-checkpoint-RETRIES"},
}

// unstableOptions are the options of unstableNames: a name ending in
// -enabled is a boolean (checked as one), any other takes any value, as
// their types vary between Besu releases.
func unstableOptions() []option {
	out := make([]option, 0, len(unstableNames))
	for _, n := range unstableNames {
		o := option{Option: cliconf.Option{Name: n, Aliases: unstableAliases[n], Hidden: true, Type: "value"}, check: checkAny, status: differs,
			basalt: "a Besu unstable (--X) option Basalt has no counterpart for"}
		if strings.HasSuffix(n, "-enabled") && n != "Xchain-pruning-enabled" {
			o.Kind, o.check, o.Type, o.noteWhen = kindBool, checkBool, "", always
		}
		out = append(out, o)
	}
	return out
}

// typeName is the value name shown in help for an option of kind.
func typeName(k cliconf.Kind) string {
	switch k {
	case kindBool:
		return ""
	case kindList:
		return "list"
	}
	return "value"
}

// checkTypeCount accepts --tx-pool-max-prioritized-by-type's TYPE=count.
func checkTypeCount(v string) error {
	t, n, ok := strings.Cut(v, "=")
	if !ok {
		return errTypeCount
	}
	if _, err := parseEnum(t, "FRONTIER", "ACCESS_LIST", "EIP1559", "BLOB", "DELEGATE_CODE"); err != nil {
		return err
	}
	return checkInt(0, math.MaxInt32)(n)
}

// noteWhen rules.
func always(string) bool         { return true }
func givenFalse(v string) bool   { b, err := cliconf.ParseBool(v); return err == nil && !b }
func givenNonZero(v string) bool { return strings.Trim(strings.TrimSpace(v), "0x") != "" }

var (
	errSecurityModule = errors.New("Basalt loads no security module plugin and keeps the node key in --node-private-key-file; refusing to create a key on disk where one was meant to stay in a module (give localfile, or remove the option)")
	errTypeCount      = errors.New("expected <transaction type>=<count>")
)
