package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/consensus/qbft"
	"github.com/basaltchain/basalt/testsupport/bftnet"
)

// besuRLPExample is RLPSubCommandTest's encodeWithoutPathMustWriteToStandardOutput.
const (
	besuRLPInput  = `["be068f726a13c8d46c44be6ce9d275600e1735a4", "5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193"]`
	besuRLPOutput = "0xf853a00000000000000000000000000000000000000000000000000000000000000000ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193808400000000c0"
)

func runWithStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	root := newRootCommand()
	root.SetIn(strings.NewReader(stdin))
	return runCLI(t, root, args...)
}

func TestRLPEncode(t *testing.T) {
	code, out, errOut := runWithStdin(t, besuRLPInput, "rlp", "encode")
	if code != 0 || out != besuRLPOutput+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// --type explicit, whitespace around the input, files both ways.
	dir := t.TempDir()
	in, to := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.txt")
	if err := os.WriteFile(in, []byte("\n  "+besuRLPInput+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runWithStdin(t, "", "rlp", "encode", "--from="+in, "--to="+to, "--type=IBFT_EXTRA_DATA")
	got, _ := os.ReadFile(to)
	if code != 0 || string(got) != besuRLPOutput {
		t.Fatalf("exit %d, file %q, stderr %q", code, got, errOut)
	}
	// decode is the reverse.
	code, out, _ = runWithStdin(t, besuRLPOutput, "rlp", "decode")
	var dec struct{ Validators []common.Address }
	if code != 0 || json.Unmarshal([]byte(out), &dec) != nil || len(dec.Validators) != 2 ||
		dec.Validators[0] != common.HexToAddress("be068f726a13c8d46c44be6ce9d275600e1735a4") {
		t.Fatalf("decode: exit %d, %q", code, out)
	}
}

func TestRLPEncodeErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "An error occurred while trying to read the JSON data."},
		{"   \n", "An error occurred while trying to read the JSON data."},
		{`{"a": 1}`, "Unable to map the JSON data with selected type. Please check JSON input format."},
		{`["zz068f726a13c8d46c44be6ce9d275600e1735a4"]`, "Unable to map the JSON data with selected type. Please check JSON input format."},
		{`["be068f726a13c8d46c44be6ce9d275600e1735"]`, "Unable to map the JSON data with selected type. Please check JSON input format."},
	}
	for _, c := range cases {
		code, _, errOut := runWithStdin(t, c.in, "rlp", "encode")
		if code == 0 {
			t.Errorf("%q: exit 0", c.in)
			continue
		}
		assertOneLine(t, errOut, c.want)
	}
	code, _, errOut := runWithStdin(t, besuRLPInput, "rlp", "encode", "--type=QBFT")
	if code == 0 || !strings.Contains(errOut, "IBFT_EXTRA_DATA, QBFT_EXTRA_DATA") {
		t.Fatalf("unknown type: exit %d, %q", code, errOut)
	}
}

// generate-blockchain-config writes the genesis with the validators'
// extraData and a keys/<address>/{key.priv,key.pub} folder per node, and
// refuses a non-empty output directory.
func TestGenerateBlockchainConfig(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfgFile, []byte(bftnet.IBFTOperatorConfig(4, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, _, errOut := runWithStdin(t, "", "operator", "generate-blockchain-config", "--config-file="+cfgFile, "--to="+out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	g, err := config.LoadGenesisFile(filepath.Join(out, "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Consensus != "ibft2" || g.IBFT2.RequestTimeoutSeconds != 1 {
		t.Fatalf("genesis consensus %q", g.Consensus)
	}
	extra, err := ibft2.DecodeExtraData(g.Core.ExtraData)
	if err != nil || len(extra.Validators) != 4 {
		t.Fatalf("extraData %x: %v", g.Core.ExtraData, err)
	}
	entries, _ := os.ReadDir(filepath.Join(out, "keys"))
	if len(entries) != 4 {
		t.Fatalf("%d key folders", len(entries))
	}
	for _, e := range entries {
		priv, err1 := os.ReadFile(filepath.Join(out, "keys", e.Name(), "key.priv"))
		pub, err2 := os.ReadFile(filepath.Join(out, "keys", e.Name(), "key.pub"))
		if err1 != nil || err2 != nil || strings.HasSuffix(string(priv), "\n") {
			t.Fatalf("key files of %s: %v %v", e.Name(), err1, err2)
		}
		k, err := crypto.HexToECDSA(strings.TrimPrefix(string(priv), "0x"))
		if err != nil {
			t.Fatal(err)
		}
		a := crypto.PubkeyToAddress(k.PublicKey)
		if strings.ToLower(a.Hex()) != e.Name() || hexutil.Encode(crypto.FromECDSAPub(&k.PublicKey)[1:]) != string(pub) {
			t.Fatalf("folder %s holds the key of %s", e.Name(), a.Hex())
		}
		found := false
		for _, v := range extra.Validators {
			found = found || v == a
		}
		if !found {
			t.Fatalf("%s is not in extraData", a.Hex())
		}
	}
	code, _, errOut = runWithStdin(t, "", "operator", "generate-blockchain-config", "--config-file="+cfgFile, "--to="+out)
	if code == 0 {
		t.Fatal("wrote into a non-empty directory")
	}
	assertOneLine(t, errOut, "Output directory must be empty.")

	// Import mode writes only public keys, with custom file names.
	k1, _ := crypto.GenerateKey()
	imp := strings.Replace(bftnet.IBFTOperatorConfig(1, 1), `"generate": true, "count": 1`,
		`"keys": ["`+hexutil.Encode(crypto.FromECDSAPub(&k1.PublicKey)[1:])+`"]`, 1)
	if err := os.WriteFile(cfgFile, []byte(imp), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "out2")
	code, _, errOut = runWithStdin(t, "", "operator", "generate-blockchain-config", "--config-file="+cfgFile, "--to="+out2,
		"--genesis-file-name=g.json", "--public-key-file-name=pub")
	a := strings.ToLower(crypto.PubkeyToAddress(k1.PublicKey).Hex())
	if _, err := os.Stat(filepath.Join(out2, "keys", a, "pub")); code != 0 || err != nil {
		t.Fatalf("import: exit %d %s %v", code, errOut, err)
	}
	if _, err := os.Stat(filepath.Join(out2, "keys", a, "key.priv")); err == nil {
		t.Fatal("import mode wrote a private key")
	}
	if _, err := os.Stat(filepath.Join(out2, "g.json")); err != nil {
		t.Fatal(err)
	}
}

// QBFT_EXTRA_DATA: the same validators in QBFT's layout (zero vanity, the
// validators, an empty vote list, round 0 as an RLP integer, no seals), and
// back.
func TestRLPQBFTExtraData(t *testing.T) {
	const want = "0xf84fa00000000000000000000000000000000000000000000000000000000000000000" +
		"ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193c080c0"
	code, out, errOut := runWithStdin(t, besuRLPInput, "rlp", "encode", "--type=QBFT_EXTRA_DATA")
	if code != 0 || out != want+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runWithStdin(t, want, "rlp", "decode", "--type=QBFT_EXTRA_DATA")
	var dec struct {
		Validators []common.Address
		Round      uint32
	}
	if code != 0 || json.Unmarshal([]byte(out), &dec) != nil || len(dec.Validators) != 2 || dec.Round != 0 {
		t.Fatalf("decode: exit %d, %q", code, out)
	}
	// An IBFT 2.0 extraData is not a QBFT one.
	if code, _, errOut := runWithStdin(t, besuRLPOutput, "rlp", "decode", "--type=QBFT_EXTRA_DATA"); code == 0 {
		t.Fatalf("IBFT 2.0 extraData decoded as QBFT: %q", errOut)
	}
}

// generate-blockchain-config with config.qbft writes QBFT extraData; with
// both config.ibft2 and config.qbft (a migration) IBFT 2.0's.
func TestGenerateBlockchainConfigQBFT(t *testing.T) {
	for _, c := range []struct {
		engine string
		qbft   bool
	}{
		{`"qbft": {"blockperiodseconds": 1}`, true},
		{`"ibft2": {}, "qbft": {"startblock": 10}`, false},
	} {
		dir := t.TempDir()
		cfgFile := filepath.Join(dir, "config.json")
		if err := os.WriteFile(cfgFile, []byte(bftnet.OperatorConfig(4, c.engine, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		if code, _, errOut := runWithStdin(t, "", "operator", "generate-blockchain-config", "--config-file="+cfgFile, "--to="+out); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		g, err := config.LoadGenesisFile(filepath.Join(out, "genesis.json"))
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if c.qbft {
			x, err := qbft.DecodeExtraData(g.Core.ExtraData)
			if err != nil || g.Consensus != "qbft" {
				t.Fatalf("%s: extraData %x consensus %q: %v", c.engine, g.Core.ExtraData, g.Consensus, err)
			}
			n = len(x.Validators)
		} else {
			x, err := ibft2.DecodeExtraData(g.Core.ExtraData)
			if err != nil || g.QBFT.StartBlock != 10 {
				t.Fatalf("%s: extraData %x: %v", c.engine, g.Core.ExtraData, err)
			}
			n = len(x.Validators)
		}
		if n != 4 {
			t.Fatalf("%s: %d validators", c.engine, n)
		}
	}
}
