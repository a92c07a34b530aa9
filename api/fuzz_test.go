package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// The parameter decoders read untrusted network input: whatever the bytes,
// they answer a value or an error, never a panic.

func FuzzBlockParam(f *testing.F) {
	for _, s := range []string{`"latest"`, `"0x19"`, `"-0x10"`, `"#ff"`, `"010"`, `{"blockHash":"0x01"}`,
		`{"blockNumber":"0x1","requireCanonical":true}`, `"0xb73cee02246c6f32ac0f459934e89102c2ce904d966a4fc2ab6309c3e104b9cb"`, `null`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p BlockParam
		_ = p.UnmarshalJSON(data)
		var n rpctypes.BlockNumber
		_ = n.UnmarshalJSON(data)
		var ix UintIndex
		_ = ix.UnmarshalJSON(data)
		var k StorageKey
		_ = k.UnmarshalJSON(data)
		var ks StorageKeys
		_ = ks.UnmarshalJSON(data)
		var rk RangeKey
		_ = rk.UnmarshalJSON(data)
	})
}

func FuzzTraceConfig(f *testing.F) {
	for _, s := range []string{`{"disableStorage":true,"disableMemory":true,"disableStack":true}`,
		`{"tracer":"callTracer","tracerConfig":{"onlyTopCall":true}}`, `{"enableMemory":false}`,
		`{"tracer":"prestateTracer","stateOverrides":{"0x01":{"code":"0x00"}}}`, `{"tracer":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c TraceCallConfig
		if json.Unmarshal(data, &c) == nil {
			d := &Debug{b: &backend.Backend{}}
			if c.Tracer == "" || !namedTracers[c.Tracer] {
				_, _ = d.newTracer(&c.TraceConfig, newTraceBudget(1<<10), nil)
			}
		}
	})
}

func FuzzCallArgs(f *testing.F) {
	for _, s := range []string{
		`{"to":"0x6295ee1b4f6dd65047762f924ecd367c17eabf8f","from":"a94f5374fce5edbc8e2a8697c15331677e6ebf0b","data":"0x12a7b914"}`,
		`{"gas":21000,"gasPrice":"0x1","value":"10","nonce":"0x2f","strict":true}`,
		`{"blobVersionedHashes":["0x0100000051c8833cfbaf272e62da1285b183b0405357f62b052a4894ffcdaa2d"],"maxFeePerBlobGas":"0x0"}`,
		`{"accessList":[{"address":"0x0000000000000000000000000000000000000001","storageKeys":[]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var a CallArgs
		if a.UnmarshalJSON(data) == nil {
			_ = a.data()
			_ = a.value()
			_ = a.blobHashes()
		}
	})
}

func FuzzStateOverrides(f *testing.F) {
	for _, s := range []string{
		`{"a94f5374fce5edbc8e2a8697c15331677e6ebf0b":{"balance":"0xde0b6b3a7640000","nonce":88}}`,
		`{"0x01":{"code":"0x6000","movePrecompileToAddress":"0x123456","stateDiff":{"0x1":"0x2"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var o StateOverrides
		_ = json.Unmarshal(data, &o)
	})
}

// FuzzRawTransaction: a raw transaction's hex either decodes to the bytes
// the same digits with 0x give, or is refused.
func FuzzRawTransaction(f *testing.F) {
	for _, s := range []string{`"0xf86b01"`, `"f86b01"`, `"c0c"`, `"0x"`, `"0xzz"`, `null`, `12`, `"\u0030x01"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r RawTransaction
		if r.UnmarshalJSON(data) != nil {
			return
		}
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%q accepted but is no JSON string", data)
		}
		var again RawTransaction
		if err := again.UnmarshalJSON([]byte(`"0x` + strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X") + `"`)); err != nil || string(again.Data) != string(r.Data) {
			t.Fatalf("%q: %x, with 0x %x %v", data, r.Data, again.Data, err)
		}
	})
}
