// Package clique is Basalt's Clique proof-of-authority engine (EIP-225),
// compatible with Besu's: a Besu Clique genesis starts a Basalt network
// unchanged, and Besu and Basalt signers agree on every seal and hash.
//
// # Blocks
//
// extraData is a 32-byte vanity, the sorted signer list (on the genesis
// block and every epoch checkpoint only) and the 65-byte secp256k1 seal of
// the block's signer over SealHash. The signer seals with difficulty 2 when
// it is its turn (the signer at index number mod n of the sorted list) and
// 1 otherwise; the fees go to the signer, because the coinbase holds a
// vote: a non-zero coinbase with nonce 0xff…ff asks to add that address,
// with nonce 0 to drop it. A signer may seal at most one of any n/2+1
// consecutive blocks.
//
// # Signer state
//
// Snapshot is the signer state after a block: the signers, who signed the
// latest blocks and the outstanding votes, tallied as Besu tallies them (a
// majority of floor(n/2)+1 adds or drops the candidate; a dropped signer's
// own votes go with it; checkpoints clear every vote). Snapshot.apply is a
// pure function of the headers and their signers: no clock, key, storage
// or goroutine is involved (STYLE.md §1), so the voting rules are table
// tests on it alone, including go-ethereum's and Besu's published
// scenarios. The engine keeps recent snapshots in an LRU cache and writes
// one to the database every 1,024 blocks, so a restarted node rebuilds the
// state at its head from at most 1,023 headers instead of the whole chain.
//
// # Sealing
//
// The engine is driven, never drives: the node's production loop asks
// NextSeal (consensus.Scheduler) whether and when the node key may seal on
// the head — in turn one period after the parent, out of turn after a
// further random 1 ms to (n/2+1)×500 ms as Besu — waits on its own clock,
// builds the block (Prepare fills the Clique fields and picks a vote from
// the node's clique_propose proposals) and has Seal sign it. The time and
// the randomness are inputs (Options.Clock, Options.Rand), so tests run the
// schedule on a manual clock. The node runs this loop without
// --miner-enabled when the engine has its key (consensus.KeySealer).
//
// # Fork choice
//
// Heads are chosen by total difficulty; ties (competing out-of-turn blocks)
// are broken by PreferHead with EIP-3436's rules, as Besu does, so every
// node settles on the same head (consensus.ForkChooser).
//
// # Later forks
//
// Shanghai through Osaka may be scheduled on a Clique chain, as Besu
// allows: their header fields must be present exactly when active, and
// SealHash leaves them out as Besu's does.
package clique
