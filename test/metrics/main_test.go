// Package metrics holds the end-to-end tests of what real basalt nodes
// export for monitoring: the Prometheus /metrics page with Besu's names,
// health and readiness checks, the push gateway mode, and the engines'
// consensus metrics.
package metrics

import (
	"os"
	"testing"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// pegasysHash is Besu's test vector: the bcrypt hash of "pegasys".
const pegasysHash = "$2a$10$l3GA7K8g6rJ/Yv.YFSygCuI9byngpEzxgWS9qEg5emYDZomQW7fGC"
