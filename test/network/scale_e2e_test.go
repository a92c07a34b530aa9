package network

import (
	"bufio"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/localnet"
	"github.com/basaltchain/basalt/testsupport/proctest"
)

// TestSixteenValidators: `network up --validators 16` runs a full mesh of
// sixteen QBFT validators that agree on their blocks, and a validator
// relays no other validator's messages once the mesh is known (bftmesh):
// each prepare it sends per block is its own, to fifteen peers, not
// fifteen copies of every other one's.
func TestSixteenValidators(t *testing.T) {
	const n = 16
	bin := networkBin(t)
	base := proctest.FreePortRange(t, n*10)
	dir := filepath.Join(t.TempDir(), "net")
	upNetwork(t, bin, "--validators", strconv.Itoa(n), "--dir", dir, "--base-port", strconv.Itoa(base))
	m, err := localnet.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	height := func(url string) uint64 {
		raw, err := netRPC(url, "eth_blockNumber")
		if err != nil {
			return 0
		}
		var h hexutil.Uint64
		_ = h.UnmarshalJSON(raw)
		return uint64(h)
	}
	proctest.WaitFor(t, 2*time.Minute, 200*time.Millisecond, "a full mesh", func() bool {
		var peers hexutil.Uint64
		raw, err := netRPC(m.Nodes[0].HTTP, "net_peerCount")
		return err == nil && peers.UnmarshalJSON(raw) == nil && peers == n-1
	})
	// Counted from a block after the mesh is up and advertised.
	from := height(m.Nodes[0].HTTP) + 2
	proctest.WaitFor(t, 2*time.Minute, 200*time.Millisecond, "the next blocks", func() bool { return height(m.Nodes[0].HTTP) >= from })
	sentFrom := outboundMessages(t, m.Nodes[0].Metrics, "istanbul", "19")
	to := from + 3
	for _, nd := range m.Nodes {
		proctest.WaitFor(t, 2*time.Minute, 200*time.Millisecond, nd.Name+" at block "+strconv.FormatUint(to, 10), func() bool { return height(nd.HTTP) >= to })
	}
	sent := outboundMessages(t, m.Nodes[0].Metrics, "istanbul", "19") - sentFrom
	var want common.Hash
	for _, nd := range m.Nodes {
		var b struct{ Hash common.Hash }
		mustRPC(t, &b, nd.HTTP, "eth_getBlockByNumber", hexutil.Uint64(to).String(), false)
		if want == (common.Hash{}) {
			want = b.Hash
		} else if b.Hash != want {
			t.Fatalf("%s's block %d is %s, node1's %s", nd.Name, to, b.Hash, want)
		}
	}
	// Relaying every other validator's prepare would send about 15 × 14
	// a block; its own, 15 (more after a round change).
	if blocks := float64(height(m.Nodes[0].HTTP) - from + 1); float64(sent)/blocks > 3*(n-1) {
		t.Fatalf("node1 sent %d prepares over about %.0f blocks: relayed", sent, blocks)
	}
}

// outboundMessages reads besu_network_p2p_messages_outbound of one
// protocol and message code from a node's metrics.
func outboundMessages(t *testing.T, url, protocol, code string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "besu_network_p2p_messages_outbound{") && strings.Contains(line, `code="`+code+`"`) && strings.Contains(line, `protocol="`+protocol+`"`) {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				t.Fatal(err)
			}
			return int(v)
		}
	}
	t.Fatalf("no outbound %s/%s messages in %s", protocol, code, url)
	return 0
}
