package goquorum

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/ptmtest"
	"github.com/basaltchain/basalt/testsupport/testnode"
)

// TestTesseraImportParty: the last step of replacing a GoQuorum + Tessera
// node. Two Basalt nodes on a GoQuorum network (genesis isQuorum; QBFT
// validator A and follower B), each with a basalt-privacy. A deploys a
// private contract for {A, B}, B calls it privately for {A} and A calls it
// again for {B}, so B's manager holds payloads it received and one it sent.
// B's node and manager stop; the manager's store is written out as the H2
// script of a Tessera database (what a Tessera holding the same payloads
// has) and imported with `basalt-privacy import-tessera` into a fresh
// manager with B's keys only. A fresh Basalt node (empty data path) whose
// --ptm-url names that manager full-syncs from A and reads the same private
// code, storage, call result, receipts and payloads as A and as B before.
// The fresh manager has no peers, so everything it serves came from the
// import.
func TestTesseraImportParty(t *testing.T) {
	dir := t.TempDir()
	q2t := "q2tenabled = true\nq2tport = 0"
	pa := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "ptm-a"), Keys: []string{"a"}, Extra: q2t})
	pb := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "ptm-b"), Keys: []string{"b"}, Storage: "leveldb:store",
		Extra: q2t, OtherNodes: []string{pa.Conf.NodeURL()}})
	ptmtest.WaitFor(t, 30*time.Second, "the basalt-privacy instances to know each other", func() bool {
		_, ab := pa.Inst.Table.URLFor(pb.Keys[0])
		_, ba := pb.Inst.Table.URLFor(pa.Keys[0])
		return ab && ba
	})
	keyA, keyB := pa.Keys[0].String(), pb.Keys[0].String()

	_, args, validatorArgs := oneValidatorNetwork(t)
	a := testnode.StartP2P(t, t.TempDir(), append(validatorArgs, "--ptm-url="+pa.Inst.Q2TURL())...)
	b := testnode.StartP2P(t, t.TempDir(), append(args, "--ptm-url="+pb.Inst.Q2TURL())...)
	b.AddPeer(a)

	dev, _ := crypto.HexToECDSA(devKeyHex)
	other, _ := crypto.GenerateKey() // B's sender
	deployHash := sendRawPrivate(t, a, pa.Inst.Q2TURL(), keyA, dev, 0, nil, hexutil.MustDecode(storeInit), keyB)
	deploy := receiptOf(t, a, deployHash)
	if deploy.ContractAddress == nil || deploy.Status != 1 {
		t.Fatalf("deploy receipt on A: %+v", deploy)
	}
	contract := *deploy.ContractAddress
	fromB := sendRawPrivate(t, b, pb.Inst.Q2TURL(), keyB, other, 0, &contract, hexutil.MustDecode(word(7)), keyA)
	receiptOf(t, a, fromB)
	fromA := sendRawPrivate(t, a, pa.Inst.Q2TURL(), keyA, dev, 1, &contract, hexutil.MustDecode(word(8)), keyB)
	top := uint64(receiptOf(t, a, fromA).BlockNumber) + 1
	waitHeight(t, 60*time.Second, top, a, b)
	hashes := []common.Hash{deployHash, fromB, fromA}
	payloads := []string{hexutil.Encode(hexutil.MustDecode(storeInit)), word(7), word(8)}

	viewA, viewB := viewOf(t, a, contract), viewOf(t, b, contract)
	if viewA.call != word(8) || viewA.slot != word(8) || len(viewA.code) <= 2 || viewB != viewA {
		t.Fatalf("before the migration A reads %+v, B reads %+v; want 8 and the code on both", viewA, viewB)
	}

	// B is replaced: its node and manager stop, and the manager's payloads
	// become a Tessera store.
	b.Stop(syscall.SIGTERM)
	pb.Close()
	fresh := ptmtest.Conf{Dir: filepath.Join(dir, "ptm-b-new"), Keys: []string{"b"}, Storage: "leveldb:store", Extra: q2t}
	if err := os.MkdirAll(fresh.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".pub", ".key"} {
		data, err := os.ReadFile(filepath.Join(pb.Conf.Dir, "b"+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fresh.Dir, "b"+ext), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(t.TempDir(), "tessera.sql")
	if n := ptmtest.WriteTesseraScript(t, ptmtest.OpenManager(t, pb.Conf), script); n != len(hashes) {
		t.Fatalf("B's store exported as %d Tessera transactions, want %d", n, len(hashes))
	}
	if out := ptmtest.ImportTessera(t, fresh, script); !strings.Contains(out, fmt.Sprintf("%d imported, 0 already present, 0 refused", len(hashes))) {
		t.Fatalf("import-tessera: %s", out)
	}
	pn := ptmtest.StartInProcess(t, fresh)

	// The fresh node rebuilds B's private state by full sync.
	n := testnode.StartP2P(t, t.TempDir(), append(args, "--ptm-url="+pn.Inst.Q2TURL())...)
	n.AddPeer(a)
	waitHeight(t, 90*time.Second, top, n)
	sameHashes(t, 1, top, a, n)
	if got := viewOf(t, n, contract); got != viewA {
		t.Errorf("the fresh node reads %+v, A reads %+v", got, viewA)
	}
	for i, h := range hashes {
		ra, rn := receiptOf(t, a, h), receiptOf(t, n, h)
		if rn.Status != 1 || rn.Status != ra.Status || rn.GasUsed != ra.GasUsed || (rn.ContractAddress == nil) != (ra.ContractAddress == nil) ||
			(rn.ContractAddress != nil && *rn.ContractAddress != *ra.ContractAddress) {
			t.Errorf("receipt of %s on the fresh node %+v, on A %+v", h, rn, ra)
		}
		var payload string
		n.MustCall(&payload, "eth_getQuorumPayload", hexutil.Encode(mustTxInput(t, n, h)))
		if payload != payloads[i] {
			t.Errorf("the fresh node's eth_getQuorumPayload of %s = %.20s…, want %.20s…", h, payload, payloads[i])
		}
	}
}
