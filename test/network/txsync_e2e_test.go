package network

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/localnet"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/proctest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// TestBacklogDrainsAfterRestart: one sender submits round-robin to the
// four validators of a QBFT network while no blocks are made, then every
// validator restarts. Each node's journal replays only the nonces that node
// acknowledged, so each pool is a run full of gaps the others fill; the
// nodes must exchange their pools when they reconnect, and every
// acknowledged transaction must be mined within 3 blocks of production
// resuming (blocks are counted, not seconds).
func TestBacklogDrainsAfterRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 4-validator network")
	}
	const backlog = 197 // the backlog; under the pool's nonce gap limit of 200
	bin := networkBin(t)
	base := proctest.FreePortRange(t, 40)
	dir := filepath.Join(t.TempDir(), "net")
	p := upNetwork(t, bin, "--validators", "4", "--dir", dir, "--base-port", strconv.Itoa(base))
	m, err := localnet.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}

	// Production stops: every validator drops every other (admin_removePeer
	// on both ends, so nobody redials), leaving no quorum. Each node then
	// keeps exactly what it acknowledges, as after a restart. A redial
	// already under way when its node was removed can still connect (the
	// removal only disconnects established peers), so the sweep repeats
	// until no node has a peer: with no static nodes left nobody dials.
	testnode.WaitFor(t, 60*time.Second, "every validator without peers", func() bool {
		for _, nd := range m.Nodes {
			for _, other := range m.Nodes {
				if other.Name != nd.Name {
					var ok bool
					mustRPC(t, &ok, nd.HTTP, "admin_removePeer", other.Enode)
				}
			}
		}
		time.Sleep(time.Second) // what is still dialing connects or fails
		for _, nd := range m.Nodes {
			var n hexutil.Uint64
			mustRPC(t, &n, nd.HTTP, "net_peerCount")
			if n != 0 {
				return false
			}
		}
		return true
	})
	heights := func() []uint64 {
		hs := make([]uint64, len(m.Nodes))
		for i, nd := range m.Nodes {
			hs[i] = devnode.Height(t, nd.HTTP)
		}
		return hs
	}
	stopped := heights()

	// Round-robin submissions from one sender, each acknowledged hash kept.
	key, err := crypto.HexToECDSA(strings.TrimPrefix(m.DevKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	var first hexutil.Uint64
	mustRPC(t, &first, m.Nodes[0].HTTP, "eth_getTransactionCount", m.DevAddress, "latest")
	signer := types.LatestSignerForChainID(new(big.Int).SetUint64(m.ChainID))
	to := common.HexToAddress(m.Nodes[3].Address)
	acked := make([]common.Hash, backlog)
	for i := range backlog {
		tx := types.MustSignNewTx(key, signer, &types.LegacyTx{
			Nonce: uint64(first) + uint64(i), GasPrice: big.NewInt(1000), Gas: 21000, To: &to, Value: big.NewInt(1),
		})
		raw, err := tx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		nd := m.Nodes[i%len(m.Nodes)]
		mustRPC(t, &acked[i], nd.HTTP, "eth_sendRawTransaction", hexutil.Encode(raw))
		if acked[i] != tx.Hash() {
			t.Fatalf("%s acknowledged %s for %s", nd.Name, acked[i], tx.Hash())
		}
	}
	// The precondition: no block since, and each pool holds only its own.
	if now := heights(); !slices.Equal(now, stopped) {
		t.Fatalf("blocks were made without a quorum: heights %v, then %v", stopped, now)
	}
	for i, nd := range m.Nodes {
		var st struct{ LocalCount, RemoteCount int }
		mustRPC(t, &st, nd.HTTP, "txpool_besuStatistics")
		if want := (backlog - i + len(m.Nodes) - 1) / len(m.Nodes); st.LocalCount != want || st.RemoteCount != 0 {
			t.Fatalf("%s pools %d local and %d remote transactions, want its own %d only", nd.Name, st.LocalCount, st.RemoteCount, want)
		}
	}

	// Every validator restarts: the statics of static-nodes.json again.
	pids := childPIDs(t, p.Cmd.Process.Pid)
	if !p.Stop(os.Interrupt, 60*time.Second) {
		t.Fatal("network up did not stop on SIGINT")
	}
	waitGone(t, pids)
	resumedAt := slices.Max(stopped)
	upNetwork(t, bin, "--dir", dir)

	// Three blocks after production resumed, every acknowledged transaction
	// is mined (node 1 has imported those blocks once it is past them).
	const within = 3
	testnode.WaitFor(t, 2*time.Minute, fmt.Sprintf("block %d", resumedAt+within+1), func() bool {
		return devnode.Height(t, m.Nodes[0].HTTP) > resumedAt+within
	})
	perBlock := map[uint64]int{}
	var missing []common.Hash
	for _, h := range acked {
		var r *struct {
			BlockNumber hexutil.Uint64
			Status      hexutil.Uint64
		}
		mustRPC(t, &r, m.Nodes[0].HTTP, "eth_getTransactionReceipt", h)
		switch {
		case r == nil:
			missing = append(missing, h)
		case r.Status != 1:
			t.Fatalf("transaction %s failed in block %d", h, r.BlockNumber)
		case uint64(r.BlockNumber) <= resumedAt:
			t.Fatalf("transaction %s mined in block %d, before production resumed after %d", h, r.BlockNumber, resumedAt)
		default:
			perBlock[uint64(r.BlockNumber)-resumedAt]++
		}
	}
	var spread []string
	for n := uint64(1); len(spread) < len(perBlock); n++ {
		if c, ok := perBlock[n]; ok {
			spread = append(spread, fmt.Sprintf("+%d: %d", n, c))
		}
	}
	t.Logf("production resumed after block %d; acknowledged transactions per block after it: %s", resumedAt, strings.Join(spread, ", "))
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged transactions not mined within %d blocks of production resuming (first missing: %s)",
			len(missing), backlog, within, missing[0])
	}
}
