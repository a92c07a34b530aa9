// Command basalt-signer is Basalt's transaction-signing proxy, compatible
// with EthSigner: it holds signing keys, answers eth_accounts, eth_sign,
// eth_signTransaction, eth_sendTransaction and eea_sendTransaction, and
// passes every other request to a downstream node.
//
//	basalt-signer --chain-id=1337 --downstream-http-port=8545 --http-listen-port=9545 \
//	    file-based-signer -k key.json -p key.password
//
// Run `basalt-signer --help` for the options. Options are read from the
// command line, ETHSIGNER_* environment variables and a TOML file
// (--config-file). See docs/how-to/signer.md.
package main

import (
	"context"
	"os"

	"github.com/basaltchain/basalt/internal/cliconf"
)

func main() {
	cliconf.Main(func(ctx context.Context) int {
		a := &app{stdout: os.Stdout, stderr: os.Stderr, lookupEnv: os.LookupEnv}
		return a.execute(ctx, os.Args[1:])
	})
}
