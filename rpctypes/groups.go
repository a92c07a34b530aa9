package rpctypes

import (
	"sort"
	"strings"
)

// API group names (--rpc-http-api / --rpc-ws-api values). Group names are
// case-insensitive; the server keeps them upper case.
const (
	GroupAdmin   = "ADMIN"
	GroupClique  = "CLIQUE"
	GroupDebug   = "DEBUG"
	GroupEEA     = "EEA"
	GroupEth     = "ETH"
	GroupIBFT    = "IBFT"
	GroupQBFT    = "QBFT"
	GroupMiner   = "MINER"
	GroupNet     = "NET"
	GroupPerm    = "PERM"
	GroupPriv    = "PRIV"
	GroupTrace   = "TRACE"
	GroupTxPool  = "TXPOOL"
	GroupWeb3    = "WEB3"
	GroupPlugins = "PLUGINS"

	// GroupRPC holds rpc_modules. Like Besu, it cannot be enabled or
	// disabled: it is served whenever the server is.
	GroupRPC = "RPC"
)

// DefaultAPIs are the groups enabled when none are configured (Besu's
// RpcApis.DEFAULT_RPC_APIS).
var DefaultAPIs = []string{GroupEth, GroupNet, GroupWeb3}

// KnownGroups lists every group --rpc-http-api and --rpc-ws-api accept,
// whether or not the running node registers methods in it: Besu's full list
// (RpcApis: 1.3.x's groups plus current Besu's TRACE, QBFT and PLUGINS),
// sorted. A node that cannot serve an accepted group (CLIQUE on an ethash
// network, a group not built yet) says so at start-up, and its methods
// answer -32604 "Method not enabled".
var KnownGroups = []string{
	GroupAdmin, GroupClique, GroupDebug, GroupEEA, GroupEth, GroupIBFT, GroupMiner,
	GroupNet, GroupPerm, GroupPlugins, GroupPriv, GroupQBFT, GroupTrace, GroupTxPool,
	GroupWeb3,
}

// Group is one API group's method table, as a provider (the node's
// services, a consensus engine) hands it to the node for registration.
type Group struct {
	// Name is the group (GroupEth, GroupClique, ...).
	Name string
	// Methods are the group's methods.
	Methods []Method
	// Errors, when not nil, maps an error a method of the group returns to
	// the error answered. It is the provider's one mapping of its domain
	// errors to JSON-RPC errors, applied at the dispatcher so that the
	// methods themselves return domain errors. A nil result leaves the
	// error to the default rule: an *Error (or an error wrapping one)
	// answers with it, anything else -32603 "Internal error". Parameter
	// decoding errors (Method.ParamErrors) do not pass through it.
	Errors func(error) *Error
}

// prefixGroups maps a method-name prefix (before the first '_') to its group.
var prefixGroups = map[string]string{
	"admin":   GroupAdmin,
	"clique":  GroupClique,
	"debug":   GroupDebug,
	"eea":     GroupEEA,
	"eth":     GroupEth,
	"ibft":    GroupIBFT,
	"qbft":    GroupQBFT,
	"miner":   GroupMiner,
	"net":     GroupNet,
	"perm":    GroupPerm,
	"priv":    GroupPriv,
	"privx":   GroupPriv,
	"trace":   GroupTrace,
	"txpool":  GroupTxPool,
	"web3":    GroupWeb3,
	"plugins": GroupPlugins,
	"rpc":     GroupRPC,
}

// GroupOf returns the API group a method name belongs to by its prefix
// ("eth_getBalance" -> "ETH", "privx_…" -> "PRIV"), or, for a prefix that
// names no known group, the upper-cased prefix itself ("" if the name has
// no '_').
func GroupOf(method string) string {
	i := strings.IndexByte(method, '_')
	if i <= 0 {
		return ""
	}
	p := method[:i]
	if g, ok := prefixGroups[p]; ok {
		return g
	}
	return strings.ToUpper(p)
}

// knownMethods are the method names Besu knows (its RpcMethod enum, 1.3.x and
// current, plus every method of the API documents). A known name that is not
// registered or whose group is disabled answers -32604 "Method not enabled";
// any other unregistered name answers -32601 "Method not found".
var knownMethods = toSet(
	// ADMIN
	"admin_addPeer", "admin_nodeInfo", "admin_peers", "admin_removePeer", "admin_changeLogLevel",
	"admin_generateLogBloomCache", "admin_logsRepairCache", "admin_logsRemoveCache",
	// CLIQUE
	"clique_discard", "clique_getSigners", "clique_getSignersAtHash", "clique_proposals",
	"clique_propose", "clique_getSignerMetrics",
	// DEBUG
	"debug_accountAt", "debug_accountRange", "debug_metrics", "debug_resyncWorldState",
	"debug_setHead", "debug_replayBlock", "debug_storageRangeAt", "debug_traceBlock",
	"debug_traceBlockByHash", "debug_traceBlockByNumber", "debug_standardTraceBlockToFile",
	"debug_standardTraceBadBlockToFile", "debug_traceTransaction", "debug_traceCall",
	"debug_batchSendRawTransaction", "debug_getBadBlocks", "debug_getRawHeader",
	"debug_getRawBlock", "debug_getRawReceipts", "debug_getRawTransaction",
	// EEA and PRIV
	"eea_sendRawTransaction",
	"priv_call", "priv_getPrivateTransaction", "priv_getTransactionCount",
	"priv_getPrivacyPrecompileAddress", "priv_getTransactionReceipt", "priv_createPrivacyGroup",
	"priv_deletePrivacyGroup", "priv_findPrivacyGroup", "priv_debugGetStateRoot",
	"priv_distributeRawTransaction", "priv_getEeaTransactionCount", "priv_getCode",
	"priv_getLogs", "priv_newFilter", "priv_uninstallFilter", "priv_getFilterChanges",
	"priv_getFilterLogs", "priv_subscribe", "priv_unsubscribe", "priv_traceTransaction",
	"privx_findOnChainPrivacyGroup", "privx_findFlexiblePrivacyGroup",
	// ETH
	"eth_accounts", "eth_blockNumber", "eth_call", "eth_chainId", "eth_coinbase",
	"eth_capabilities", "eth_config", "eth_estimateGas", "eth_createAccessList",
	"eth_feeHistory", "eth_gasPrice", "eth_baseFee", "eth_blobBaseFee", "eth_getBalance",
	"eth_getBlockByHash", "eth_getBlockByNumber", "eth_getBlockReceipts",
	"eth_getBlockTransactionCountByHash", "eth_getBlockTransactionCountByNumber", "eth_getCode",
	"eth_getFilterChanges", "eth_getFilterLogs", "eth_getLogs", "eth_maxPriorityFeePerGas",
	"eth_getProof", "eth_getStorageAt", "eth_getTransactionByBlockHashAndIndex",
	"eth_getTransactionByBlockNumberAndIndex", "eth_getTransactionByHash",
	"eth_getTransactionBySenderAndNonce", "eth_getTransactionCount", "eth_getTransactionReceipt",
	"eth_getUncleByBlockHashAndIndex", "eth_getUncleByBlockNumberAndIndex",
	"eth_getUncleCountByBlockHash", "eth_getUncleCountByBlockNumber", "eth_getWork",
	"eth_hashrate", "eth_submitHashrate", "eth_mining", "eth_newBlockFilter", "eth_newFilter",
	"eth_newPendingTransactionFilter", "eth_protocolVersion", "eth_sendRawTransaction",
	"eth_sendTransaction", "eth_simulateV1", "eth_submitWork", "eth_subscribe", "eth_syncing",
	"eth_uninstallFilter", "eth_unsubscribe",
	// IBFT and QBFT
	"ibft_discardValidatorVote", "ibft_getPendingVotes", "ibft_getValidatorsByBlockHash",
	"ibft_getValidatorsByBlockNumber", "ibft_proposeValidatorVote", "ibft_getSignerMetrics",
	"qbft_discardValidatorVote", "qbft_getPendingVotes", "qbft_getValidatorsByBlockHash",
	"qbft_getValidatorsByBlockNumber", "qbft_proposeValidatorVote", "qbft_getSignerMetrics",
	"qbft_getRequestTimeoutSeconds",
	// MINER
	"miner_start", "miner_stop", "miner_setCoinbase", "miner_setEtherbase",
	"miner_changeTargetGasLimit", "miner_getMinPriorityFee", "miner_setMinPriorityFee",
	"miner_getMinGasPrice", "miner_setMinGasPrice", "miner_getExtraData", "miner_setExtraData",
	// NET
	"net_enode", "net_listening", "net_peerCount", "net_services", "net_version",
	// PERM (1.3.x "Whitelist" names and current "Allowlist" names)
	"perm_addAccountsToWhitelist", "perm_addAccountsToAllowlist",
	"perm_addNodesToWhitelist", "perm_addNodesToAllowlist",
	"perm_getAccountsWhitelist", "perm_getAccountsAllowlist",
	"perm_getNodesWhitelist", "perm_getNodesAllowlist",
	"perm_removeAccountsFromWhitelist", "perm_removeAccountsFromAllowlist",
	"perm_removeNodesFromWhitelist", "perm_removeNodesFromAllowlist",
	"perm_reloadPermissionsFromFile",
	// RPC
	"rpc_modules",
	// TRACE
	"trace_block", "trace_call", "trace_callMany", "trace_get", "trace_filter",
	"trace_rawTransaction", "trace_replayBlockTransactions", "trace_transaction",
	// TXPOOL (the API documents' txpool_client* stand for these)
	"txpool_besuStatistics", "txpool_besuTransactions", "txpool_besuPendingTransactions",
	"txpool_status", "txpool_content", "txpool_contentFrom", "txpool_inspect",
	// WEB3
	"web3_clientVersion", "web3_sha3",
	// PLUGINS
	"plugins_reloadPluginConfig",
)

// IsKnownMethod reports whether name is a method Besu knows, registered here
// or not.
func IsKnownMethod(name string) bool {
	_, ok := knownMethods[name]
	return ok
}

// KnownMethods returns the names IsKnownMethod accepts, sorted.
func KnownMethods() []string {
	out := make([]string, 0, len(knownMethods))
	for n := range knownMethods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func toSet(names ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}
