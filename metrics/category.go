package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// Category is a metric category: the unit --metrics-category enables, and the
// first part of a metric's name (and its group in debug_metrics).
type Category struct {
	// Enum is the value --metrics-category takes (Besu's enum constant,
	// matched case-insensitively), e.g. "TRANSACTION_POOL".
	Enum string
	// Name is the category's part of metric names and its debug_metrics
	// group, e.g. "transaction_pool".
	Name string
	// Prefix is put before Name in Prometheus names: "besu_" for Besu's own
	// categories, "" for the standard ones (process, the runtime) and
	// ETHEREUM, whose metrics other clients export under the same names.
	Prefix string
}

// FullName is the Prometheus name of the category's metric name:
// Prefix + Name + "_" + name.
func (c Category) FullName(name string) string { return c.Prefix + c.Name + "_" + name }

// namePrefix is what every metric of the category starts with.
func (c Category) namePrefix() string { return c.Prefix + c.Name + "_" }

// BesuPrefix is the prefix of Besu's own categories.
const BesuPrefix = "besu_"

// Besu's categories (BesuMetricCategory), for the node.
var (
	Blockchain                 = Category{"BLOCKCHAIN", "blockchain", BesuPrefix}
	Ethereum                   = Category{"ETHEREUM", "ethereum", ""}
	Executors                  = Category{"EXECUTORS", "executors", BesuPrefix}
	Network                    = Category{"NETWORK", "network", BesuPrefix}
	Peers                      = Category{"PEERS", "peers", BesuPrefix}
	Permissioning              = Category{"PERMISSIONING", "permissioning", BesuPrefix}
	KVStoreRocksDB             = Category{"KVSTORE_ROCKSDB", "rocksdb", BesuPrefix}
	KVStorePrivateRocksDB      = Category{"KVSTORE_PRIVATE_ROCKSDB", "private_rocksdb", BesuPrefix}
	KVStoreRocksDBStats        = Category{"KVSTORE_ROCKSDB_STATS", "rocksdb", ""}
	KVStorePrivateRocksDBStats = Category{"KVSTORE_PRIVATE_ROCKSDB_STATS", "private_rocksdb", ""}
	Pruner                     = Category{"PRUNER", "pruner", BesuPrefix}
	RPC                        = Category{"RPC", "rpc", BesuPrefix}
	Synchronizer               = Category{"SYNCHRONIZER", "synchronizer", BesuPrefix}
	TransactionPool            = Category{"TRANSACTION_POOL", "transaction_pool", BesuPrefix}
	Stratum                    = Category{"STRATUM", "stratum", BesuPrefix}
	BlockProcessing            = Category{"BLOCK_PROCESSING", "block_processing", BesuPrefix}

	// Consensus holds the metrics consensus engines export (BFT rounds,
	// Clique votes). Besu has no such category; Basalt's engines register
	// their metrics here (see Instrumented).
	Consensus = Category{"CONSENSUS", "consensus", BesuPrefix}
)

// The standard categories every program has (Besu's StandardMetricCategory).
var (
	// Process is the process collector: CPU seconds, resident memory, open
	// file descriptors, start time (process_*).
	Process = Category{"PROCESS", "process", ""}
	// Runtime is the Go runtime collector (go_*: goroutines, heap, GC).
	// It answers to Besu's JVM, so that an existing --metrics-category list
	// keeps its meaning (the runtime's metrics), and to GO.
	Runtime = Category{"JVM", "go", ""}
)

// basalt-signer's categories (EthSigner's EthSignerMetricCategory: no prefix).
var (
	SignerHTTP = Category{"HTTP", "http", ""}
	Signing    = Category{"SIGNING", "signing", ""}
)

// basalt-privacy's categories. Orion exported no metrics; the prefix keeps
// the names apart from the node's and the signer's on a shared Prometheus.
var (
	PrivacyHTTP    = Category{"HTTP", "http", "privacy_"}
	PrivacyStorage = Category{"STORAGE", "storage", "privacy_"}
	PrivacyPeers   = Category{"PEERS", "peers", "privacy_"}
)

// NodeCategories are the categories of basalt, in Besu's order.
var NodeCategories = []Category{
	Blockchain, Ethereum, Executors, Network, Peers, Permissioning,
	KVStoreRocksDB, KVStorePrivateRocksDB, KVStoreRocksDBStats, KVStorePrivateRocksDBStats,
	Pruner, RPC, Synchronizer, TransactionPool, Stratum, BlockProcessing, Consensus,
	Runtime, Process,
}

// NodeDefaults are the categories enabled without --metrics-category: all
// but the four RocksDB ones, as in Besu (Basalt stores in Pebble, so they
// are empty anyway).
var NodeDefaults = without(NodeCategories, KVStoreRocksDB, KVStorePrivateRocksDB, KVStoreRocksDBStats, KVStorePrivateRocksDBStats)

// SignerCategories are basalt-signer's categories; all are on by default.
var SignerCategories = []Category{SignerHTTP, Signing, Runtime, Process}

// PrivacyCategories are basalt-privacy's categories; all are on by default.
var PrivacyCategories = []Category{PrivacyHTTP, PrivacyStorage, PrivacyPeers, Runtime, Process}

// categoryAliases are other accepted spellings of Enum values.
var categoryAliases = map[string]string{"GO": "JVM"}

// ParseCategories reads --metrics-category values (enum names, any case)
// against the program's known categories. An empty list means none was
// given; the caller then uses its defaults.
func ParseCategories(known []Category, names []string) ([]Category, error) {
	var out []Category
	for _, n := range names {
		enum := strings.ToUpper(strings.TrimSpace(n))
		if a, ok := categoryAliases[enum]; ok {
			enum = a
		}
		i := slices.IndexFunc(known, func(c Category) bool { return c.Enum == enum })
		if i < 0 {
			return nil, fmt.Errorf("unknown metric category %q (valid: %s)", n, strings.Join(Enums(known), ", "))
		}
		if !slices.Contains(out, known[i]) {
			out = append(out, known[i])
		}
	}
	return out, nil
}

// Enums returns the enum names of categories.
func Enums(cats []Category) []string {
	out := make([]string, len(cats))
	for i, c := range cats {
		out[i] = c.Enum
	}
	return out
}

func without(all []Category, drop ...Category) []Category {
	var out []Category
	for _, c := range all {
		if !slices.Contains(drop, c) {
			out = append(out, c)
		}
	}
	return out
}
