package tesserastore_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
	"github.com/basaltchain/basalt/ptm/tesserapayload"
	"github.com/basaltchain/basalt/ptm/tesserastore"
)

// sliceSource is a Source over rows in memory, to time the import itself.
type sliceSource []tesserastore.Row

func (s sliceSource) Transactions(_ context.Context, fn func(tesserastore.Row) error) error {
	for _, r := range s {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}
func (sliceSource) NotImported(context.Context) (int64, int64, error) { return 0, 0, nil }
func (sliceSource) String() string                                    { return "rows" }
func (sliceSource) Close() error                                      { return nil }

// BenchmarkImport times importing recipient copies of 1 KiB payloads
// (decode, open, re-encrypt, two durable writes) into a Pebble store:
//
//	go test ./ptm/tesserastore -run '^$' -bench Import -benchtime 2000x
func BenchmarkImport(b *testing.B) {
	a, _ := keys.Generate(nil)
	sender, _ := keys.Generate(nil)
	rows := make(sliceSource, b.N)
	for i := range rows {
		p, err := tesserapayload.Seal(nil, bytes.Repeat([]byte{byte(i)}, 1024), sender, []keys.PublicKey{a.Public, sender.Public})
		if err != nil {
			b.Fatal(err)
		}
		r, _ := p.ForRecipient(a.Public)
		enc, _ := tesserapayload.EncodeCBOR(r)
		k := payload.TesseraKey(r.CipherText)
		rows[i] = tesserastore.Row{Hash: k[:], Encoded: enc, Codec: "CBOR"}
	}
	kv, err := storage.OpenPebble(filepath.Join(b.TempDir(), "store"))
	if err != nil {
		b.Fatal(err)
	}
	defer kv.Close()
	m := &manager.Manager{Enclave: enclave.New([]keys.KeyPair{a}, nil), Store: kv}
	b.ResetTimer()
	rep, err := tesserastore.Import(context.Background(), rows, m, tesserastore.Options{})
	if err != nil || rep.Imported != b.N {
		b.Fatal(fmt.Sprint(rep, err))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payloads/s")
}
