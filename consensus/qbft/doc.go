// Package qbft is the codec layer of QBFT, as Besu and GoQuorum speak it:
// the header extraData [vanity, [validators], vote, round, [seals]], the
// block-hash and commit-seal hash rules, and the signed payloads of the four
// consensus messages (Proposal, Prepare, Commit, RoundChange) with their
// justifications, on the istanbul/100 sub-protocol codes.
//
// The package holds pure encode/decode and hashing functions only. The QBFT
// engine, driven by the shared state machine in consensus/bft (as IBFT 2.0
// is), is the next step and is not wired here.
package qbft
