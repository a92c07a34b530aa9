package permissioning_test

import (
	"crypto/ecdsa"
	"errors"
	"math/big"
	"net"
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
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/enodeurl"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

var devSigner = types.LatestSignerForChainID(big.NewInt(config.DevChainID))

func devKey(i int) *ecdsa.PrivateKey {
	return crypto.ToECDSAUnsafe(common.FromHex(config.DevAccounts[i].PrivateKey))
}

func devAddr(i int) string { return strings.ToLower(config.DevAccounts[i].Address.Hex()) }

// rawTransfer is a signed transfer from dev account i with nonce.
func rawTransfer(i int, nonce uint64) (hexutil.Bytes, common.Hash) {
	to := common.Address{0xbe, 0xef}
	tx := types.MustSignNewTx(devKey(i), devSigner, &types.DynamicFeeTx{
		ChainID: big.NewInt(config.DevChainID), Nonce: nonce, To: &to, Value: big.NewInt(1),
		Gas: 21000, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e10),
	})
	raw, _ := tx.MarshalBinary()
	return raw, tx.Hash()
}

// rpcErr calls method and returns its error (nil on success).
func rpcErr(n *testnode.Node, method string, params ...any) *testnode.RPCError {
	_, err := n.Call(method, params...)
	var e *testnode.RPCError
	if errors.As(err, &e) {
		return e
	}
	if err != nil {
		return &testnode.RPCError{Code: 1, Message: err.Error()}
	}
	return nil
}

func mined(t *testing.T, n *testnode.Node, h common.Hash) bool {
	t.Helper()
	var r *struct {
		Status hexutil.Uint64 `json:"status"`
	}
	n.MustCall(&r, "eth_getTransactionReceipt", h)
	return r != nil && r.Status == 1
}

func blockNumber(t *testing.T, n *testnode.Node) uint64 {
	t.Helper()
	var b hexutil.Uint64
	n.MustCall(&b, "eth_blockNumber")
	return uint64(b)
}

func writePerms(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAccountsAllowlist: a node with an accounts allowlist refuses a
// transaction from an unlisted dev account with Besu's -32007; after
// perm_addAccountsToWhitelist the same transaction is mined and the file
// holds the new list; a reload of an edited file applies; a pooled
// transaction whose sender is then removed is never mined.
func TestAccountsAllowlist(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "permissions_config.toml")
	writePerms(t, file, "# consortium members\naccounts-whitelist=[\""+devAddr(0)+"\"]\n")
	n := testnode.Start(t, dir, "--network=dev", "--miner-enabled", "--miner-coinbase="+devAddr(0),
		"--rpc-http-api=ETH,NET,PERM,MINER,TXPOOL", "--permissions-accounts-config-file-enabled")

	raw, h := rawTransfer(1, 0)
	if e := rpcErr(n, "eth_sendRawTransaction", raw); e == nil || e.Code != -32007 || e.Message != "Sender account not authorized to send transactions" {
		t.Fatalf("unlisted sender: %v", e)
	}
	var res string
	n.MustCall(&res, "perm_addAccountsToWhitelist", []string{config.DevAccounts[1].Address.Hex()})
	if res != "Success" {
		t.Fatalf("add: %q", res)
	}
	data, _ := os.ReadFile(file)
	if want := "accounts-whitelist=[\"" + devAddr(0) + "\",\"" + devAddr(1) + "\"]\n"; string(data) != want {
		t.Fatalf("file after add:\n%s\nwant:\n%s", data, want)
	}
	n.MustCall(&h, "eth_sendRawTransaction", raw)
	testnode.WaitFor(t, 60*time.Second, "the listed sender's transaction mined", func() bool { return mined(t, n, h) })

	// Edit the file by hand: account 1 out, account 2 in (under the
	// current key), and reload.
	writePerms(t, file, "accounts-allowlist = [\n  \""+devAddr(0)+"\",\n  \""+devAddr(2)+"\",\n]\n")
	n.MustCall(&res, "perm_reloadPermissionsFromFile")
	var list []string
	n.MustCall(&list, "perm_getAccountsAllowlist")
	if !slices.Equal(list, []string{devAddr(0), devAddr(2)}) {
		t.Fatalf("list after reload: %v", list)
	}
	raw1, _ := rawTransfer(1, 1)
	if e := rpcErr(n, "eth_sendRawTransaction", raw1); e == nil || e.Code != -32007 {
		t.Fatalf("removed sender after reload: %v", e)
	}
	raw2, h2 := rawTransfer(2, 0)
	n.MustCall(&h2, "eth_sendRawTransaction", raw2)
	testnode.WaitFor(t, 60*time.Second, "the reloaded sender's transaction mined", func() bool { return mined(t, n, h2) })

	// A pooled transaction whose sender leaves the list is not built
	// into a block: the miner's policy asks the list, not the pool.
	if e := rpcErr(n, "miner_stop"); e != nil {
		t.Fatal(e)
	}
	raw3, h3 := rawTransfer(2, 1)
	n.MustCall(&h3, "eth_sendRawTransaction", raw3)
	n.MustCall(&res, "perm_removeAccountsFromAllowlist", []string{devAddr(2)})
	from := blockNumber(t, n)
	if e := rpcErr(n, "miner_start"); e != nil {
		t.Fatal(e)
	}
	testnode.WaitFor(t, 60*time.Second, "three more blocks", func() bool { return blockNumber(t, n) >= from+3 })
	if mined(t, n, h3) {
		t.Fatal("a block the node built holds a transaction of a removed sender")
	}
	data, _ = os.ReadFile(file)
	if want := "accounts-allowlist=[\"" + devAddr(0) + "\"]\n"; string(data) != want {
		t.Fatalf("file after remove:\n%s", data)
	}
}

// nodeKey writes a fresh node key under dir and returns its enode URL on
// 127.0.0.1:port.
func nodeKey(t *testing.T, dir string, port int) string {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(filepath.Join(dir, "key"), []byte(hexutil.Encode(crypto.FromECDSA(k))), 0o600); err != nil {
		t.Fatal(err)
	}
	return enodeurl.Format(enode.NewV4(&k.PublicKey, net.IPv4(127, 0, 0, 1), port, port), "127.0.0.1", port, port)
}

// TestPermMethodErrors checks every answer of the PERM methods — each
// check of Besu's order, under both names — over HTTP against running
// nodes: one with both lists and a static node, one with neither, one
// with the nodes list and p2p disabled.
func TestPermMethodErrors(t *testing.T) {
	dir := t.TempDir()
	staticDir, otherDir := t.TempDir(), t.TempDir()
	static, other := nodeKey(t, staticDir, 30399), nodeKey(t, otherDir, 30398)
	third := nodeKey(t, t.TempDir(), 30397)
	file := filepath.Join(dir, "permissions_config.toml")
	initial := "accounts-allowlist=[\"" + devAddr(0) + "\"]\nnodes-whitelist=[\"" + static + "\",\"" + other + "\"]\n"
	writePerms(t, file, initial)
	testnode.WriteStaticNodes(t, dir, static)
	both := testnode.StartP2P(t, dir, "--network=dev", "--rpc-http-api=ETH,NET,PERM",
		"--permissions-accounts-config-file-enabled", "--permissions-nodes-config-file-enabled")
	neither := testnode.Start(t, t.TempDir(), "--network=dev", "--rpc-http-api=ETH,PERM")
	noP2PDir := t.TempDir()
	writePerms(t, filepath.Join(noP2PDir, "permissions_config.toml"), "nodes-allowlist=[]\n")
	noP2P := testnode.Start(t, noP2PDir, "--network=dev", "--rpc-http-api=ETH,PERM", "--permissions-nodes-config-file-enabled")

	upper := "0x" + strings.ToUpper(devAddr(1)[2:])
	const (
		invalidParams = -32602
		c             = -32000
	)
	type want struct {
		code    int
		message string // "" with code 0: the result "Success"
	}
	ok := want{}
	type tc struct {
		node   *testnode.Node
		method string
		params []any
		w, wa  want // whitelist name's answer, allowlist name's answer
	}
	accounts := func(s ...string) []any { return []any{s} }
	ws := func(m string) want { return want{c, m} }
	cases := []tc{
		// Parameter shape first.
		{both.Node, "perm_addAccountsTo", []any{}, want{invalidParams, "Invalid params"}, want{invalidParams, "Invalid params"}},
		{both.Node, "perm_addAccountsTo", []any{"0x1"}, want{invalidParams, "Invalid params"}, want{invalidParams, "Invalid params"}},
		// Feature disabled.
		{neither, "perm_addAccountsTo", accounts(devAddr(1)), ws("Account whitelisting has not been enabled"), ws("Account allowlist has not been enabled")},
		{neither, "perm_getAccounts", nil, ws("Account whitelisting has not been enabled"), ws("Account allowlist has not been enabled")},
		{neither, "perm_removeNodesFrom", accounts(other), ws("Node whitelisting has not been enabled"), ws("Node allowlist has not been enabled")},
		{neither, "perm_getNodes", nil, ws("Node whitelisting has not been enabled"), ws("Node allowlist has not been enabled")},
		// P2P disabled.
		{noP2P, "perm_addNodesTo", accounts(third), ws("P2P has been disabled. This functionality is not available"), ws("P2P has been disabled. This functionality is not available")},
		{noP2P, "perm_getNodes", nil, ws("P2P has been disabled. This functionality is not available"), ws("P2P has been disabled. This functionality is not available")},
		// Accounts, in Besu's order.
		{both.Node, "perm_addAccountsTo", []any{nil}, ws("Request contains an empty list of accounts"), ws("Request contains an empty list of accounts")},
		{both.Node, "perm_addAccountsTo", accounts(), ws("Request contains an empty list of accounts"), ws("Request contains an empty list of accounts")},
		{both.Node, "perm_addAccountsTo", accounts(devAddr(0), "0x1234"), ws("Request contains an invalid account"), ws("Request contains an invalid account")},
		{both.Node, "perm_addAccountsTo", accounts(devAddr(1), upper), ws("Request contains duplicate accounts"), ws("Request contains duplicate accounts")},
		{both.Node, "perm_addAccountsTo", accounts(devAddr(1), devAddr(0)), ws("Cannot add an existing account to whitelist"), ws("Cannot add an existing account to allowlist")},
		{both.Node, "perm_removeAccountsFrom", accounts(devAddr(0), devAddr(1)), ws("Cannot remove an absent account from whitelist"), ws("Cannot remove an absent account from allowlist")},
		{both.Node, "perm_removeAccountsFrom", accounts("zz"), ws("Request contains an invalid account"), ws("Request contains an invalid account")},
		// Nodes, in Besu's order.
		{both.Node, "perm_addNodesTo", accounts(), ws("Request contains an empty list of nodes"), ws("Request contains an empty list of nodes")},
		{both.Node, "perm_addNodesTo", accounts("enode://x", "enode://x"), ws("Request contains duplicate nodes"), ws("Request contains duplicate nodes")},
		{both.Node, "perm_addNodesTo", accounts(third, "enode://1234@127.0.0.1:1"), ws("Request contains an invalid node"), ws("Request contains an invalid node")},
		{both.Node, "perm_addNodesTo", accounts(third, other), ws("Cannot add an existing node to whitelist"), ws("Cannot add an existing node to allowlist")},
		{both.Node, "perm_removeNodesFrom", accounts(static), ws("Cannot remove a fixed node (bootnode or static node) from whitelist"), ws("Cannot remove a fixed node (bootnode or static node) from allowlist")},
		{both.Node, "perm_removeNodesFrom", accounts(third), ws("Cannot remove an absent node from whitelist"), ws("Cannot remove an absent node from allowlist")},
	}
	name := func(base string, allow bool) string {
		suffix := "Whitelist"
		if allow {
			suffix = "Allowlist"
		}
		return base + suffix
	}
	check := func(n *testnode.Node, method string, params []any, w want) {
		t.Helper()
		e := rpcErr(n, method, params...)
		switch {
		case w == ok && e != nil:
			t.Errorf("%s %v: %v, want Success", method, params, e)
		case w != ok && (e == nil || e.Code != w.code || e.Message != w.message):
			t.Errorf("%s %v: %v, want %d %q", method, params, e, w.code, w.message)
		}
	}
	for _, tc := range cases {
		check(tc.node, name(tc.method, false), tc.params, tc.w)
		check(tc.node, name(tc.method, true), tc.params, tc.wa)
	}
	// Nothing changed the lists or the file.
	if data, _ := os.ReadFile(file); string(data) != initial {
		t.Fatalf("refused calls changed the file:\n%s", data)
	}

	// Out of sync: the file was edited behind the node's back.
	writePerms(t, file, "accounts-allowlist=[]\nnodes-whitelist=[\""+static+"\",\""+other+"\"]\n")
	check(both.Node, "perm_addAccountsToWhitelist", accounts(devAddr(1)), ws("The permissioning whitelist configuration file is out of sync.  The changes have been applied, but not persisted to disk"))
	check(both.Node, "perm_removeAccountsFromAllowlist", accounts(devAddr(1)), ws("The permissioning allowlist configuration file is out of sync.  The changes have been applied, but not persisted to disk"))
	// A reload of an invalid file keeps the lists.
	writePerms(t, file, "accounts-allowlist=[\"0x12\"]\nnodes-whitelist=[]\n")
	check(both.Node, "perm_reloadPermissionsFromFile", nil, ws("Error reloading permissions file. Please use perm_getAccountsWhitelist and perm_getNodesWhitelist to review the current state of the whitelists"))
	var list []string
	both.MustCall(&list, "perm_getAccountsWhitelist")
	if !slices.Equal(list, []string{devAddr(0)}) {
		t.Fatalf("accounts after a failed reload: %v", list)
	}
	check(neither, "perm_reloadPermissionsFromFile", nil, ws("Node/Account whitelisting has not been enabled"))
	// Success, and the lists as the get methods give them.
	writePerms(t, file, initial)
	check(both.Node, "perm_reloadPermissionsFromFile", nil, ok)
	check(both.Node, "perm_addNodesToAllowlist", accounts(third), ok)
	check(both.Node, "perm_removeNodesFromWhitelist", accounts(other), ok)
	both.MustCall(&list, "perm_getNodesWhitelist")
	if !slices.Equal(list, []string{static, third}) {
		t.Fatalf("nodes: %v", list)
	}
	if data, _ := os.ReadFile(file); !strings.Contains(string(data), "nodes-whitelist=[\""+static+"\",\""+third+"\"]") {
		t.Fatalf("file:\n%s", data)
	}
}

func peerCount(t *testing.T, n *testnode.P2PNode) int { return n.PeerCount() }

// TestNodesAllowlist runs three nodes. A lists only B. C is not on A's
// list: it cannot peer with A — not by dialing A itself (found through
// discovery, A being its bootnode), and A refuses to dial it — until A
// adds it with perm_addNodesToWhitelist; removed again, it is
// disconnected. A also has an accounts allowlist without dev account 1,
// and still imports B's blocks holding that account's transaction: the
// allowlist is local policy, not consensus.
func TestNodesAllowlist(t *testing.T) {
	dirA, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	portA, portB, portC := testnode.FreePort(t), testnode.FreePort(t), testnode.FreePort(t)
	urlA, urlB, urlC := nodeKey(t, dirA, portA), nodeKey(t, dirB, portB), nodeKey(t, dirC, portC)
	writePerms(t, filepath.Join(dirA, "permissions_config.toml"),
		"accounts-allowlist=[\""+devAddr(0)+"\"]\nnodes-allowlist=[\""+urlB+"\"]\n")
	a := testnode.StartP2P(t, dirA, "--network=dev", "--p2p-port="+strconv.Itoa(portA), "--discovery-enabled", "--logging=DEBUG",
		"--rpc-http-api=ETH,NET,ADMIN,PERM", "--permissions-nodes-config-file-enabled", "--permissions-accounts-config-file-enabled")
	b := testnode.StartP2P(t, dirB, "--network=dev", "--p2p-port="+strconv.Itoa(portB), "--miner-enabled", "--miner-coinbase="+devAddr(0))
	if !b.AddPeer(a) {
		t.Fatal("B: admin_addPeer A")
	}
	a.WaitPeers(1, 30*time.Second)

	// Blocks of B holding a transaction A's pool would refuse are valid
	// on A.
	raw, h := rawTransfer(1, 0)
	if e := rpcErr(a.Node, "eth_sendRawTransaction", raw); e == nil || e.Code != -32007 {
		t.Fatalf("A accepted an unlisted sender: %v", e)
	}
	b.MustCall(&h, "eth_sendRawTransaction", raw)
	testnode.WaitFor(t, 60*time.Second, "A importing B's block with the transaction", func() bool { return mined(t, a.Node, h) })

	c := testnode.StartP2P(t, dirC, "--network=dev", "--p2p-port="+strconv.Itoa(portC), "--discovery-enabled",
		"--bootnodes="+urlA, "--Xp2p-static-reconnect-seconds=1")
	idC := enode.MustParse(urlC).ID().TerminalString()
	if e := rpcErr(a.Node, "admin_addPeer", urlC); e == nil || e.Code != -32000 || e.Message != "Cannot add a non-permitted node as a peer" {
		t.Fatalf("A: admin_addPeer C: %v", e)
	}
	// C finds A through discovery (A is its bootnode) and dials it.
	testnode.WaitFor(t, 60*time.Second, "A refusing C's connection", func() bool {
		return strings.Contains(a.Logs(), `msg="Connection refused: node not on the nodes allowlist" id=`+idC)
	})
	t.Logf("%s inbound refused", time.Now().Format("05.000"))
	testnode.WaitFor(t, 60*time.Second, "A refusing to dial C", func() bool {
		return strings.Contains(a.Logs(), `msg="Dial refused: node not on the nodes allowlist" id=`+idC)
	})
	t.Logf("%s outbound refused", time.Now().Format("05.000"))
	if !c.AddPeer(a) {
		t.Fatal("C: admin_addPeer A")
	}
	if na, nc := peerCount(t, a), peerCount(t, c); na != 1 || nc != 0 {
		t.Fatalf("peers: A %d, C %d; want 1 and 0", na, nc)
	}

	var res string
	a.MustCall(&res, "perm_addNodesToWhitelist", []string{urlC})
	// C redials A every second (its static node); A may dial C too now.
	a.MustCall(new(bool), "admin_addPeer", urlC)
	testnode.WaitFor(t, 30*time.Second, "A and C peering", func() bool { return peerCount(t, a) == 2 && peerCount(t, c) >= 1 })

	a.MustCall(&res, "perm_removeNodesFromWhitelist", []string{urlC})
	testnode.WaitFor(t, 30*time.Second, "A disconnecting C", func() bool { return peerCount(t, a) == 1 })
	if !strings.Contains(a.Logs(), "Disconnecting peer removed from the nodes allowlist") {
		t.Fatal("no disconnection logged")
	}
	var peers []struct {
		Enode string `json:"enode"`
	}
	a.MustCall(&peers, "admin_peers")
	if len(peers) != 1 || !strings.Contains(peers[0].Enode, urlB[8:40]) {
		t.Fatalf("A's peers: %+v", peers)
	}
}

// TestNodesAllowlistHostNames runs A with --Xdns-enabled and
// --Xdns-update-enabled and a nodes list naming B as localhost: B peers
// with A; the PERM methods take, list and write localhost URLs; the
// allowlist of a node without the options refuses them as invalid.
func TestNodesAllowlistHostNames(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	portA, portB := testnode.FreePort(t), testnode.FreePort(t)
	nodeKey(t, dirA, portA)
	urlB := nodeKey(t, dirB, portB)
	byName := func(u string) string { return strings.Replace(u, "@127.0.0.1:", "@localhost:", 1) }
	fileA := filepath.Join(dirA, "permissions_config.toml")
	writePerms(t, fileA, "nodes-allowlist=[\""+byName(urlB)+"\"]\n")
	a := testnode.StartP2P(t, dirA, "--network=dev", "--p2p-port="+strconv.Itoa(portA), "--rpc-http-api=ETH,NET,ADMIN,PERM",
		"--permissions-nodes-config-file-enabled", "--Xdns-enabled=true", "--Xdns-update-enabled=true")
	b := testnode.StartP2P(t, dirB, "--network=dev", "--p2p-port="+strconv.Itoa(portB))
	if !b.AddPeer(a) {
		t.Fatal("B: admin_addPeer A")
	}
	a.WaitPeers(1, 30*time.Second)

	var list []string
	a.MustCall(&list, "perm_getNodesAllowlist")
	if !slices.Equal(list, []string{byName(urlB)}) {
		t.Fatalf("A's list: %v", list)
	}
	third := byName(nodeKey(t, t.TempDir(), 30397))
	var res string
	a.MustCall(&res, "perm_addNodesToAllowlist", []string{third})
	if data, _ := os.ReadFile(fileA); !strings.Contains(string(data), third) {
		t.Fatalf("file:\n%s", data)
	}
	a.MustCall(&res, "perm_removeNodesFromAllowlist", []string{third})

	// Without the options a host name is an invalid entry.
	dirN := t.TempDir()
	writePerms(t, filepath.Join(dirN, "permissions_config.toml"), "nodes-allowlist=[]\n")
	n := testnode.StartP2P(t, dirN, "--network=dev", "--rpc-http-api=PERM", "--permissions-nodes-config-file-enabled")
	if e := rpcErr(n.Node, "perm_addNodesToAllowlist", []string{third}); e == nil || e.Message != "Request contains an invalid node" {
		t.Fatalf("host name without --Xdns-enabled: %v", e)
	}
}
