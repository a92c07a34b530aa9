package chain

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/testsupport/chaingen"
	"github.com/basaltchain/basalt/testsupport/devnode"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// TestDevNodeTransferAndContract is the README's first-use path: a dev node
// mines a signed transfer and a contract deployment, and eth_call reads it.
func TestDevNodeTransferAndContract(t *testing.T) {
	n := devnode.Start(t, t.TempDir())
	signer := types.LatestSignerForChainID(big.NewInt(config.DevChainID))
	key, from := devnode.Key(t, 1)
	to := common.HexToAddress("0x00000000000000000000000000000000000b0b01")

	var chainID hexutil.Big
	n.MustCall(&chainID, "eth_chainId")
	if chainID.ToInt().Int64() != config.DevChainID {
		t.Fatalf("eth_chainId %v", chainID.ToInt())
	}
	var gasPrice hexutil.Big
	n.MustCall(&gasPrice, "eth_gasPrice")

	before := devnode.Balance(t, n, from)
	value := big.NewInt(1_000_000_000_000_000_000)
	tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{
		ChainID: big.NewInt(config.DevChainID), Nonce: 0, To: &to, Value: value,
		Gas: 21000, GasFeeCap: gasPrice.ToInt(), GasTipCap: gasPrice.ToInt(),
	})
	r := devnode.WaitReceipt(t, n, devnode.SendRaw(t, n, tx))
	if r.Status != 1 || r.GasUsed != 21000 {
		t.Fatalf("transfer receipt %+v", r)
	}
	if got := devnode.Balance(t, n, to); got.Cmp(value) != 0 {
		t.Fatalf("recipient balance %v, want %v", got, value)
	}
	fee := new(big.Int).Mul(big.NewInt(21000), r.EffectiveGas.ToInt())
	want := new(big.Int).Sub(new(big.Int).Sub(before, value), fee)
	if got := devnode.Balance(t, n, from); got.Cmp(want) != 0 {
		t.Fatalf("sender balance %v, want %v", got, want)
	}

	// A contract whose runtime uses PUSH0 (Shanghai) and returns 42.
	runtime := common.FromHex("602a5f5260205ff3")
	initCode := append(common.FromHex("6008600a5f3960085ff3"), runtime...)
	var est hexutil.Uint64
	n.MustCall(&est, "eth_estimateGas", map[string]any{"from": from, "data": hexutil.Bytes(initCode)})
	deploy := types.MustSignNewTx(key, signer, &types.LegacyTx{
		Nonce: 1, Gas: uint64(est), GasPrice: gasPrice.ToInt(), Data: initCode,
	})
	r = devnode.WaitReceipt(t, n, devnode.SendRaw(t, n, deploy))
	if r.Status != 1 || r.ContractAddress == nil {
		t.Fatalf("deployment receipt %+v", r)
	}
	var code hexutil.Bytes
	n.MustCall(&code, "eth_getCode", r.ContractAddress, "latest")
	if common.Bytes2Hex(code) != common.Bytes2Hex(runtime) {
		t.Fatalf("code %x, want %x", code, runtime)
	}
	var out hexutil.Bytes
	n.MustCall(&out, "eth_call", map[string]any{"to": r.ContractAddress}, "latest")
	if new(big.Int).SetBytes(out).Int64() != 42 {
		t.Fatalf("eth_call returned %x", out)
	}

	// Re-sending the same transaction and a stale nonce give Besu's errors.
	raw, _ := tx.MarshalBinary()
	if _, err := n.Call("eth_sendRawTransaction", hexutil.Bytes(raw)); err == nil || err.(*testnode.RPCError).Code != -32001 {
		t.Fatalf("stale nonce: %v", err)
	}
	var count hexutil.Uint64
	n.MustCall(&count, "eth_getTransactionCount", from, "pending")
	if count != 2 {
		t.Fatalf("pending nonce %d, want 2", count)
	}
}

// TestRestartKeepsChain stops the node with SIGTERM and, separately, SIGKILL
// while it mines; it reopens with the same chain, at least at the head it had
// reported, and mines on.
func TestRestartKeepsChain(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			n := devnode.Start(t, dir)
			testnode.WaitFor(t, 30*time.Second, "3 blocks", func() bool { return devnode.BlockNumber(t, n) >= 3 })
			acked := devnode.BlockNumber(t, n)
			var ackedBlock struct{ Hash common.Hash }
			n.MustCall(&ackedBlock, "eth_getBlockByNumber", hexutil.Uint64(acked), false)
			n.Stop(sig)

			n = devnode.Start(t, dir)
			if got := devnode.BlockNumber(t, n); got < acked {
				t.Fatalf("head %d after restart, node had reported %d", got, acked)
			}
			var again struct{ Hash common.Hash }
			n.MustCall(&again, "eth_getBlockByNumber", hexutil.Uint64(acked), false)
			if again.Hash != ackedBlock.Hash {
				t.Fatalf("block %d is %s after restart, was %s", acked, again.Hash, ackedBlock.Hash)
			}
			restart := devnode.BlockNumber(t, n)
			testnode.WaitFor(t, 30*time.Second, "mining to resume", func() bool { return devnode.BlockNumber(t, n) > restart })
		})
	}
}

// TestImportConformanceChain imports Besu's conformance chain with its
// Besu-format genesis and checks the head against the file's.
func TestImportConformanceChain(t *testing.T) {
	chainDir := filepath.Join("..", "..", "..", "shared", "conformance", "besu", "chain")
	if _, err := os.Stat(chainDir); err != nil {
		t.Skip("shared conformance data absent")
	}
	dir := t.TempDir()
	genesis := "--genesis-file=" + filepath.Join(chainDir, "testGenesis.json")
	cmd := exec.Command(testnode.Binary(t), "--data-path="+dir, genesis, "blocks", "import",
		"--from="+filepath.Join(chainDir, "testBlockchain.blocks"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("blocks import: %v\n%s", err, out)
	}
	const head = "0x4859ea10d276f6df988eabd48a02e0696cfd3deb769d2a5e0e416a5f3191028a"
	for _, want := range []string{"Imported 34 blocks", "blocks/s", "Mgas/s", head} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("import output lacks %q:\n%s", want, out)
		}
	}
	// Importing again skips everything.
	out, err = exec.Command(testnode.Binary(t), "--data-path="+dir, genesis, "blocks", "import",
		"--from="+filepath.Join(chainDir, "testBlockchain.blocks")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Imported 0 blocks (35 skipped") {
		t.Fatalf("re-import: %v\n%s", err, out)
	}

	n := testnode.Start(t, dir, genesis)
	var block struct {
		Hash   common.Hash
		Number hexutil.Uint64
	}
	n.MustCall(&block, "eth_getBlockByNumber", "latest", true)
	if block.Hash.Hex() != head || block.Number != 34 {
		t.Fatalf("head %d %s", block.Number, block.Hash.Hex())
	}
	n.Stop(syscall.SIGTERM)

	// Export and re-import into a fresh data path reproduces the chain.
	exported := filepath.Join(t.TempDir(), "chain.rlp")
	if out, err := exec.Command(testnode.Binary(t), "--data-path="+dir, genesis, "blocks", "export",
		"--to="+exported).CombinedOutput(); err != nil {
		t.Fatalf("blocks export: %v\n%s", err, out)
	}
	out, err = exec.Command(testnode.Binary(t), "--data-path="+t.TempDir(), genesis, "blocks", "import",
		"--from="+exported).CombinedOutput()
	if err != nil || !strings.Contains(string(out), head) {
		t.Fatalf("import of export: %v\n%s", err, out)
	}
}

// TestPublicKeyExport checks Besu's formats: 0x + 128 hex (no 04 prefix) and
// 0x + 40 hex, from the key generated into the data path.
func TestPublicKeyExport(t *testing.T) {
	dir := t.TempDir()
	pub, err := exec.Command(testnode.Binary(t), "--data-path="+dir, "public-key", "export").Output()
	if err != nil {
		t.Fatal(err)
	}
	p := strings.TrimSpace(string(pub))
	if len(p) != 130 || !strings.HasPrefix(p, "0x") {
		t.Fatalf("public key %q", p)
	}
	keyHex, err := os.ReadFile(filepath.Join(dir, "key"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(string(keyHex), "0x"))
	if err != nil {
		t.Fatal(err)
	}
	if want := hexutil.Encode(crypto.FromECDSAPub(&key.PublicKey)[1:]); p != want {
		t.Fatalf("public key %s, want %s", p, want)
	}
	file := filepath.Join(dir, "addr")
	if out, err := exec.Command(testnode.Binary(t), "--data-path="+dir, "public-key", "export-address", "--to="+file).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	addr, _ := os.ReadFile(file)
	if string(addr) != strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()) {
		t.Fatalf("address file %q", addr)
	}
}

// TestImportInterrupted stops `blocks import` of the 1,000-block bench chain
// with SIGINT and, separately, SIGKILL part way, then imports again: the
// chain reopens consistently and the import completes to the file's head.
func TestImportInterrupted(t *testing.T) {
	benchDir := filepath.Join("..", "..", "..", "shared", "bench", "import-1000")
	if _, err := os.Stat(benchDir); err != nil {
		t.Skip("shared bench data absent")
	}
	if testing.Short() {
		t.Skip("imports 1,000 blocks")
	}
	const head = "0x6dfb3a14299e2ea860de868105a295bc0d936bcbb1be369dc53a2a181d6521f0"
	genesis := "--genesis-file=" + filepath.Join(benchDir, "genesis.json")
	from := "--from=" + filepath.Join(benchDir, "chain.rlp")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(testnode.Binary(t), "--data-path="+dir, genesis, "blocks", "import", "--no-progress", from)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Second)
			cmd.Process.Signal(sig)
			cmd.Wait()

			out, err := exec.Command(testnode.Binary(t), "--data-path="+dir, genesis, "blocks", "import", "--no-progress", from).CombinedOutput()
			if err != nil || !strings.Contains(string(out), head) {
				t.Fatalf("import after %v: %v\n%s", sig, err, out)
			}
			if strings.Contains(string(out), "Imported 1000 blocks") {
				t.Logf("the first import made no progress before %v", sig)
			}
		})
	}
}

// TestImportUnsealedUncles imports a generated chain whose ommers carry no
// valid proof of work, as the chains of client test suites do:
// --skip-pow-validation-enabled skips the seal of every header of a block,
// ommers included, and nothing else. Without the option the import stops at
// the first ommer; with it an ommer that breaks another rule still stops it.
func TestImportUnsealedUncles(t *testing.T) {
	const n = 12
	f, err := chaingen.WriteFilesWith(context.Background(), t.TempDir(), chaingen.Genesis(1), n,
		chaingen.Options{TxsPerBlock: 1, Uncles: true, UnsealedUncles: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Uncles != n-1 {
		t.Fatalf("generated %d ommers, want %d", f.Uncles, n-1)
	}
	importBlocks := func(file string, skipPoW bool) (string, error) {
		args := []string{"--data-path=" + t.TempDir(), "--genesis-file=" + f.Genesis, "blocks", "import", "--no-progress", "--from=" + file}
		if skipPoW {
			args = append(args, "--skip-pow-validation-enabled")
		}
		out, err := exec.Command(testnode.Binary(t), args...).CombinedOutput()
		return string(out), err
	}

	out, err := importBlocks(f.Blocks, true)
	if err != nil || !strings.Contains(out, fmt.Sprintf("Imported %d blocks", n)) || !strings.Contains(out, f.Head.Hex()) {
		t.Fatalf("import with --skip-pow-validation-enabled: %v\n%s", err, out)
	}
	out, err = importBlocks(f.Blocks, false)
	if err == nil || !strings.Contains(out, "block 2: invalid uncles") || !strings.Contains(out, "invalid seal") {
		t.Fatalf("import with seal checks: %v, want block 2's ommer refused for its seal\n%s", err, out)
	}

	// The last block with other ommers: its own seal breaks too, but the
	// option skips that, so the ommer rule is what stops the import.
	blocks := devnode.ReadBlocks(t, f.Blocks)
	last := blocks[n-1]
	for _, tc := range []struct {
		name   string
		uncles []*types.Header
		want   string
	}{
		{"too deep", blocks[1].Uncles(), "uncle's parent is not an ancestor within 7 generations"},
		{"duplicate", []*types.Header{last.Uncles()[0], last.Uncles()[0]}, "duplicate uncle"},
		{"included before", blocks[n-2].Uncles(), "duplicate uncle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := last.Header()
			h.UncleHash = types.CalcUncleHash(tc.uncles)
			bad := types.NewBlockWithHeader(h).WithBody(types.Body{Transactions: last.Transactions(), Uncles: tc.uncles, Withdrawals: last.Withdrawals()})
			file := filepath.Join(t.TempDir(), "bad.rlp")
			var buf bytes.Buffer
			if err := chaingen.WriteRLP(&buf, append(blocks[:n-1:n-1], bad)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := importBlocks(file, true)
			if err == nil || !strings.Contains(out, fmt.Sprintf("block %d: invalid uncles", n)) || !strings.Contains(out, tc.want) {
				t.Fatalf("import: %v, want block %d refused with %q\n%s", err, n, tc.want, out)
			}
		})
	}
}

// TestTypedTransactions sends an access-list (type 1) and a set-code (type
// 4, Prague) transaction to a dev node; both are mined with status 1, and the
// EIP-7702 delegation shows in the authority's code.
func TestTypedTransactions(t *testing.T) {
	n := devnode.Start(t, t.TempDir())
	chainID := big.NewInt(config.DevChainID)
	signer := types.LatestSignerForChainID(chainID)
	key, from := devnode.Key(t, 2)
	to := common.Address{0xaa}
	// eth_gasPrice covers the next block's base fee, which on the dev
	// network only falls from there.
	var gp hexutil.Big
	n.MustCall(&gp, "eth_gasPrice")
	price := gp.ToInt()

	al := types.MustSignNewTx(key, signer, &types.AccessListTx{
		ChainID: chainID, Nonce: 0, To: &to, Gas: 30000, GasPrice: price, Value: big.NewInt(5),
		AccessList: types.AccessList{{Address: to, StorageKeys: []common.Hash{{1}}}},
	})
	if r := devnode.WaitReceipt(t, n, devnode.SendRaw(t, n, al)); r.Status != 1 {
		t.Fatalf("type 1 receipt %+v", r)
	}

	// Account 0 delegates its code to `delegate`; account 2 pays.
	authKey, authority := devnode.Key(t, 0)
	var authNonce hexutil.Uint64
	n.MustCall(&authNonce, "eth_getTransactionCount", authority, "latest")
	delegate := common.HexToAddress("0x000000000000000000000000000000000000dead")
	auth, err := types.SignSetCode(authKey, types.SetCodeAuthorization{
		ChainID: *uint256.MustFromBig(chainID), Address: delegate, Nonce: uint64(authNonce),
	})
	if err != nil {
		t.Fatal(err)
	}
	setCode := types.MustSignNewTx(key, signer, &types.SetCodeTx{
		ChainID: uint256.MustFromBig(chainID), Nonce: 1, To: from, Gas: 100000,
		GasFeeCap: uint256.MustFromBig(price), GasTipCap: uint256.MustFromBig(price),
		AuthList: []types.SetCodeAuthorization{auth},
	})
	if r := devnode.WaitReceipt(t, n, devnode.SendRaw(t, n, setCode)); r.Status != 1 {
		t.Fatalf("type 4 receipt %+v", r)
	}
	var code hexutil.Bytes
	n.MustCall(&code, "eth_getCode", authority, "latest")
	if want := append(common.FromHex("ef0100"), delegate.Bytes()...); common.Bytes2Hex(code) != common.Bytes2Hex(want) {
		t.Fatalf("authority code %x, want delegation %x", code, want)
	}
	var tx map[string]any
	n.MustCall(&tx, "eth_getTransactionByHash", setCode.Hash())
	if tx["type"] != "0x4" || tx["authorizationList"] == nil {
		t.Fatalf("type 4 transaction object %v", tx)
	}
}
