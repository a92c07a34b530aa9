// Command basalt-privacy is Basalt's private transaction manager, compatible
// with Orion: it stores and distributes encrypted private payloads between
// the parties of private transactions and manages privacy groups.
//
//	basalt-privacy [config.toml]                 run (Orion's orion.conf format)
//	basalt-privacy --generatekeys a,b [config]   write a.pub/a.key, b.pub/b.key and exit
//	basalt-privacy import-tessera --from <src> [config]   import a Tessera node's payloads
//
// Every configuration key can be overridden by BASALT_PRIVACY_<KEY> or
// ORION_<KEY>; see package ptm/config and docs/how-to/privacy-manager.md.
package main

import (
	"context"
	"os"

	"github.com/basaltchain/basalt/internal/cliconf"
)

func main() {
	cliconf.Main(func(ctx context.Context) int {
		return execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	})
}
