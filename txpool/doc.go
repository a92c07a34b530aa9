// Package txpool is Basalt's transaction pool, with Besu's semantics: a
// bounded pool (--tx-pool-max-size) of pending transactions (nonces that
// follow the sender's account nonce without a gap) and queued ones (behind a
// gap), replacement of a same-nonce transaction only at a +10% price,
// eviction of the cheapest remote transaction when full, a minimum gas price,
// a retention period, and local (JSON-RPC) versus remote (p2p) accounting.
//
// Refusals are *Error values carrying a Reason named after Besu's
// TransactionInvalidReason; the JSON-RPC layer maps them to error codes.
//
// # Wiring
//
// The chain reaches the pool only through State (nonce and balance at the
// head), the head header, the chain config, and Reset, which it calls after
// every head change with the transactions of blocks that left the canonical
// chain. JSON-RPC calls AddLocal, p2p calls AddRemotes and subscribes to
// SubscribeNewTxs (every accepted transaction, pending or queued) and
// SubscribePromotedTxs (queued transactions that became executable) for
// propagation, the miner walks Pending.
//
// # Hot path
//
// Admission is dominated by sender recovery (one secp256k1 ecrecover per new
// transaction). AddRemotes hashes, de-duplicates, recovers and runs every
// check that needs neither the pool nor the sender's account on GOMAXPROCS
// goroutines before it takes the pool lock; under the lock it does map and
// slice work only. types.Sender caches the sender in the transaction, so the
// block processor does not recover it again when it uses an equal signer.
//
// # Choices where Besu differs or is silent
//
//   - Fork rules are those of the block after the head (number+1, time+1),
//     the block a pooled transaction can enter; Besu uses the head's. Timestamp
//     forks count on PoW/PoA chains too, as in Basalt's processor.
//   - Replacement follows Besu's rule (see shouldReplace): for EIP-1559 types
//     the effective price at the head's base fee must rise by PriceBump%, so
//     raising both fee caps by 10% is not always enough (go-ethereum accepts
//     that).
//   - A full pool refuses a transaction that does not outrank the first
//     eviction candidate (TX_POOL_FULL); Besu accepts it and then drops it
//     silently. Eviction takes one sender's highest nonce at a time, so it
//     never opens a gap; Besu's sequenced pool evicts the least-priority
//     transaction together with all later nonces of its sender.
//   - --min-gas-price applies to local transactions too (as in Besu 1.3.x);
//     current Besu lets "priority" (local) transactions below it.
//   - The balance check is per transaction (gas*price+value against the
//     balance), as in Besu, not cumulative over the sender's pooled ones.
//   - PendingNonce is the account nonce plus the pending (gap-free) count;
//     Besu returns the first gap after the sender's lowest pooled nonce.
//   - Transactions larger than 128 KiB (MaxTxSize) are refused
//     (OVERSIZED_DATA); Besu has no such limit in the pool.
//   - Blob (type 3) transactions are refused: Basalt's chains have no
//     consensus layer to carry sidecars.
//   - Senders with deployed code (EIP-3607) are not refused at admission:
//     State has no code. Such transactions fail in the miner, which drops
//     them (Iterator.Pop, Pool.Remove).
package txpool
