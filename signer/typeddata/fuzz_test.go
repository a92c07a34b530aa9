package typeddata

import (
	"errors"
	"testing"
)

// FuzzParse feeds arbitrary documents to the parser: no panic, every
// failure an *Error, and an accepted document hashes the same twice.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		mail,
		doc(`[{"name":"a","type":"uint8[2][]"},{"name":"b","type":"bytes3"},{"name":"c","type":"int16"}]`, `{"a":[[1,2]],"b":"0x010203","c":"-0x10"}`),
		`{"types":{"EIP712Domain":[{"name":"name","type":"string"}],"Node":[{"name":"v","type":"uint8"},{"name":"kids","type":"Node[]"}]},"primaryType":"Node","domain":{"name":"t"},"message":{"v":1,"kids":[{"v":2,"kids":[null]}]}}`,
		`{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"M":[{"name":"s","type":"string[]"}]},"primaryType":"M","domain":{"chainId":"0x539"},"message":{"s":["a",1]}}`,
		`{"types":{"EIP712Domain":[]},"primaryType":"EIP712Domain","domain":{},"message":{}}`,
		`{}`, `[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		td, err := Parse(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v", err, err)
			}
			if td != nil {
				t.Fatal("a result with an error")
			}
			return
		}
		again, err := Parse(data)
		if err != nil || again.Digest != td.Digest || again.DomainSeparator != td.DomainSeparator {
			t.Fatalf("not deterministic: %v", err)
		}
	})
}
