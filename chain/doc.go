// Package chain is Basalt's block store, fork choice and block executor.
//
// The Executor is the one place that makes an EVM and runs a block's
// transaction loop. The chain's own block processing (InsertBlock, the
// state repair at Open, EnsureState), the block builder (miner.Build) and
// the call simulations (eth_call, eth_estimateGas, eth_createAccessList)
// all use the Chain's executor, so its parameters — extra precompiles, a
// tracer, a policy for the blocks it builds (ExecOption, given to Open) —
// hold for all of them alike. Private transactions run on EVMs the
// executor makes too (Executor.NewEVM).
//
// Execute verifies and runs a block without storing it (a BFT proposal
// before the validators agree); InsertBlock runs the same steps, or takes
// Execute's result (InsertOptions.Executed), then commits. The block hook
// (WithBlockHook, given to Open; the node's private transactions) gathers
// what it needs from outside the node before the insert lock is taken and
// writes under it, between steps 1 and 2 below.
//
// Blocks are keyed by the consensus engine's hash (consensus.Engine.Hash),
// never by go-ethereum's Header.Hash, so every engine — including IBFT 2.0,
// whose on-chain hash excludes the round and commit seals — shares one store.
//
// Write ordering, and why a crash at any point reopens consistently:
//
//  1. The block's post-state trie nodes are committed to the database
//     (a state root with no block pointing to it is harmless garbage).
//  2. One atomic batch writes the header, body, receipts, total difficulty
//     and number index and — if the block becomes the head — the canonical
//     index, transaction lookups and the head pointer.
//
// The database's write-ahead log preserves write order, and ordinary inserts
// flush it before returning, so after a kill at any moment the head pointer
// names a block whose body and state are both on disk, and a head the node
// reported is still there. Bulk imports (blocks import) write state only
// every so many blocks; after a crash during one, Open finds the head's state
// missing and re-executes the stored blocks from the newest ancestor whose
// state is on disk, so the head stays where it was.
//
// Historic state: a bulk import keeps only every so many blocks' states.
// EnsureState produces a missing one on first use by re-executing from the
// newest ancestor whose state is stored and writing the states it computes
// (trie nodes only, step 1 above; no block data, no head change), so a
// crash during it leaves at worst unreferenced trie nodes.
//
// Fork choice is by total difficulty: a block becomes the head when its total
// difficulty is greater than the head's, or, for post-merge blocks (which
// add no difficulty), when it is equal and the block is higher.
package chain
