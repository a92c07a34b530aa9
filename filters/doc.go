// Package filters is the node's log and event service behind eth_getLogs,
// the polling filters (eth_newFilter, eth_newBlockFilter,
// eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs,
// eth_uninstallFilter) and the push subscriptions of eth_subscribe
// (newHeads, logs, newPendingTransactions).
//
// Log queries scan the canonical headers' logs blooms in order
// (chain.CanonicalBlooms, sequential reads) and read receipts only for
// blocks whose bloom may match, so a selective query over thousands of
// blocks costs milliseconds. A query is bounded by the maximum block range
// (--rpc-max-logs-range), a cap on the number of results and the caller's
// context (the JSON-RPC timeout).
//
// Polling filters hold a position in one shared, bounded history of head
// changes (and one of pending transaction hashes), so they cost little
// memory however many there are and however rarely they are polled; they
// expire after 10 minutes without a poll, like Besu's, and their number is
// capped. On a reorg, log filters and log subscriptions report the logs of
// the blocks that left the canonical chain with removed: true, then the
// logs of the blocks that joined it.
//
// The system never waits on a client: subscriptions are handed events on
// one goroutine through a deliver function that must not block (the
// WebSocket transport queues the message or drops a connection that does
// not keep up).
package filters
