// Package walkthrough runs the walkthroughs of README.md and of every page
// under docs/ as they are written, so that the documentation cannot drift
// from the code. It also checks that every relative link of those pages
// leads to a file (and heading) of the repository (TestLinks).
//
// Every ```sh block of every page is preceded by an annotation, an HTML
// comment that the rendered page does not show:
//
//	<!-- walkthrough: NAME -->                 run the block as the next step of walkthrough NAME
//	<!-- walkthrough: NAME background wait=8545 -->
//	                                           start the block in the background (a node) and wait
//	                                           until port 8545 accepts connections
//	<!-- walkthrough: NAME stop -->            stop the walkthrough's background processes
//	                                           (SIGTERM; a user presses Ctrl-C), then run the block
//	<!-- walkthrough: skip -- REASON -->       not a walkthrough step (the test command itself,
//	                                           benchmarks, a tool the machine may lack); the
//	                                           reason is required
//
// The steps of one walkthrough run in order in one bash process (so shell
// variables carry from a block to the next, as in a terminal), with
// `set -euo pipefail`, in a new temporary directory, with basalt,
// basalt-privacy and basalt-signer (built from this checkout) first on
// PATH: the pages' commands are what a user types after `go install
// ./cmd/...`. The well-known ports the pages use (8545, 30303, 8888, …)
// are replaced by free ones, so walkthroughs do not collide with anything
// else on the machine, and basalt's default ports move with them
// (BASALT_RPC_HTTP_PORT and friends, which win over a config file: a
// page's basalt config file leaves its ports to the defaults or to
// flags); nothing else is changed.
//
// A comment line holding JSON right after a command shows what it prints:
//
//	curl -s … eth_chainId …
//	# {"jsonrpc":"2.0","id":1,"result":"0x539"}
//
// The block's output must contain each such comment's text, in order;
// "…" (or "...") in a comment matches anything within a line. A walkthrough fails
// when a step exits with an error, an expected line is missing, or it
// leaves anything in the checkout.
package walkthrough
