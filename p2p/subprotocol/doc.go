// Package subprotocol is the devp2p transport of a consensus engine's own
// sub-protocol (IBFT 2.0's and QBFT's IBF/1, run beside eth on every
// connection): the peers the protocol runs with, delivery of their messages
// to the engine's handler, sends and broadcasts, and the list of peers
// banned for misbehaving. It lives under p2p, as DESIGN.md places the BFT
// message transport, and imports only the consensus interface package, so
// an engine uses it without pulling in the node's p2p service.
package subprotocol
