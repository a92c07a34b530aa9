// Package qbft is QBFT as Besu and GoQuorum speak it: the header extraData
// [vanity, [validators], vote, round, [seals]], the block-hash and
// commit-seal hash rules, the four consensus messages (Proposal, Prepare,
// Commit, RoundChange) with their justifications on the istanbul/100
// sub-protocol codes, and the Format that runs them on the shared BFT
// engine (package bftengine) with QBFT's message-set rules (bft.QBFT).
// Schedule builds the engine's segments from a genesis: QBFT alone, QBFT
// with transitions, or IBFT 2.0 up to config.qbft.startblock and QBFT from
// it.
package qbft
