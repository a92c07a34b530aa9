package network

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/testnode"
)

// TestBootnodesWithoutDiscovery: --bootnodes only seed discovery, so with
// --discovery-enabled=false the node says at start-up that it ignores
// them (Besu's warning, in the process's log); with discovery on it does
// not.
func TestBootnodesWithoutDiscovery(t *testing.T) {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	boot := fmt.Sprintf("enode://%x@127.0.0.1:30399", crypto.FromECDSAPub(&key.PublicKey)[1:])
	const warning = "Discovery disabled: bootnodes will be ignored."
	for _, discovery := range []bool{false, true} {
		n := testnode.Start(t, t.TempDir(), "--network=dev", "--p2p-enabled", "--p2p-port=0", "--p2p-host=127.0.0.1", "--p2p-interface=127.0.0.1",
			fmt.Sprintf("--discovery-enabled=%v", discovery), "--bootnodes="+boot)
		testnode.WaitFor(t, 30*time.Second, "the node's start-up log", func() bool { return strings.Contains(n.Logs(), "Node started") })
		logs := n.Logs()
		var line string
		for _, l := range strings.Split(logs, "\n") {
			if strings.Contains(l, warning) {
				line = l
			}
		}
		switch {
		case !discovery && (line == "" || !strings.Contains(line, "level=WARN") || !strings.Contains(line, "bootnodes=1")):
			t.Fatalf("discovery disabled: no WARN %q with the bootnode count in the log:\n%s", warning, logs)
		case discovery && line != "":
			t.Fatalf("discovery enabled, yet: %s", line)
		}
	}
}
