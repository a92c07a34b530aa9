package main

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/tesserapayload"
	"github.com/basaltchain/basalt/ptm/tesserastore"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

// TestImportTesseraCommand: import-tessera reads an H2 script of a Tessera
// store into the instance's configured storage and reports its counts; a
// payload no configured key opens is listed and makes the exit status 1;
// a re-run imports nothing twice; the instance started afterwards serves
// the payload on its Q2T API.
func TestImportTesseraCommand(t *testing.T) {
	dir := t.TempDir()
	conf := ptmtest.Conf{Dir: dir, Keys: []string{"node"}, Storage: "leveldb:store", Extra: "q2tenabled = true\nq2tport = 0"}
	confPath, ks := conf.Write(t)
	priv, err := keys.ReadPrivateKeyFile(filepath.Join(dir, "node.key"), nil)
	if err != nil {
		t.Fatal(err)
	}
	node := keys.KeyPair{Public: ks[0], Private: priv}
	other, _ := keys.Generate(nil)
	stranger, _ := keys.Generate(nil)

	forNode, err := tesserapayload.Seal(nil, []byte("payload for the node"), other, []keys.PublicKey{node.Public, other.Public})
	if err != nil {
		t.Fatal(err)
	}
	copyForNode, _ := forNode.ForRecipient(node.Public)
	notForNode, _ := tesserapayload.Seal(nil, []byte("not for the node"), other, []keys.PublicKey{stranger.Public})
	var rows []tesserastore.Row
	for _, p := range []*tesserapayload.Payload{copyForNode, notForNode} {
		enc, _ := tesserapayload.EncodeCBOR(p)
		k := payload.TesseraKey(p.CipherText)
		rows = append(rows, tesserastore.Row{Hash: k[:], Encoded: enc, Codec: "CBOR"})
	}
	script := filepath.Join(dir, "tessera.sql")
	f, err := os.Create(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := tesserastore.WriteH2Script(f, rows); err != nil {
		t.Fatal(err)
	}
	f.Close()

	ctx := context.Background()
	code, out := runCLI(t, ctx, "", "import-tessera", "--from", script, confPath)
	if code != exitError || !strings.Contains(out, "read 2 payloads from H2 script "+script+": 1 imported, 0 already present, 1 refused") ||
		!strings.Contains(out, "refused "+payload.TesseraKeyString(notForNode.CipherText)+": none of the configured keys") {
		t.Fatalf("first run: %d\n%s", code, out)
	}
	code, out = runCLI(t, ctx, "", "import-tessera", "--from", script, confPath)
	if code != exitError || !strings.Contains(out, "0 imported, 1 already present, 1 refused") {
		t.Fatalf("second run: %d\n%s", code, out)
	}
	if code, out := runCLI(t, ctx, "", "import-tessera", confPath); code != exitUsage || !strings.Contains(out, "--from is required") {
		t.Errorf("no --from: %d %s", code, out)
	}
	if code, out := runCLI(t, ctx, "", "import-tessera", "--from", "jdbc:h2:/var/tessera/db", confPath); code != exitUsage || !strings.Contains(out, "org.h2.tools.Script") {
		t.Errorf("H2 URL: %d %s", code, out)
	}

	in := ptmtest.StartInProcess(t, conf)
	q := ptmtest.NewAPI(in.Inst.Q2TURL())
	r := q.Must(t, "GET", "/transaction/"+url.PathEscape(payload.TesseraKeyString(forNode.CipherText)), "", nil)
	var got struct {
		Payload   []byte `json:"payload"`
		SenderKey string `json:"senderKey"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &got) != nil || string(got.Payload) != "payload for the node" || got.SenderKey != other.Public.String() {
		t.Fatalf("served: %s", r)
	}
}
