package node

import (
	"strings"
	"testing"
)

// debugMethods are the DEBUG methods FuzzDebugParams drives.
var debugMethods = []string{
	"debug_traceTransaction", "debug_traceBlockByNumber", "debug_traceBlockByHash", "debug_traceCall",
	"debug_storageRangeAt", "debug_accountRange", "debug_getRawHeader", "debug_getRawBlock",
	"debug_getRawReceipts", "debug_getRawTransaction",
}

// FuzzDebugParams sends every DEBUG method arbitrary params over HTTP to a
// node on the debug test chain: whatever they are, the answer is a result
// or a JSON-RPC error other than -32603, and no method panics (the
// dispatcher would log it).
func FuzzDebugParams(f *testing.F) {
	e, txs := debugChain(f, 1<<20)
	tx := `"` + txs["nested"].Hash().Hex() + `"`
	block := `"` + e.n.Chain().Hash(e.blocks[0].Header()).Hex() + `"`
	seeds := map[string][]string{
		"debug_traceTransaction": {`[` + tx + `]`, `[` + tx + `,{"disableStack":true,"disableMemory":true}]`,
			`[` + tx + `,{"tracer":"callTracer","tracerConfig":{"onlyTopCall":true,"withLog":true}}]`,
			`[` + tx + `,{"tracer":"prestateTracer","tracerConfig":{"diffMode":true}}]`, `[` + tx + `,{"tracer":"x"}]`,
			`["0x1"]`, `[]`, `[null]`, `[` + tx + `,{"tracerConfig":[1]}]`, `[` + tx + `,{"tracer":"callTracer","tracerConfig":"x"}]`},
		"debug_traceBlockByNumber": {`["0x1"]`, `["latest",{"tracer":"callTracer"}]`, `["0x0"]`, `["-1"]`, `["0xffffffffffffffff"]`, `[{}]`},
		"debug_traceBlockByHash":   {`[` + block + `]`, `[` + block + `,{"disableStorage":true}]`, `["0x00"]`},
		"debug_traceCall": {`[{"to":"0x000000000000000000000000000000000000c010","data":"0x01"},"latest"]`,
			`[{"to":"0x000000000000000000000000000000000000c012"},"0x1",{"tracer":"callTracer"}]`,
			`[{"from":"0x0000000000000000000000000000000000000001","value":"0xffffffffffffffffffffffff"},"latest",{"stateOverrides":{"0x01":{"balance":"0x1"}}}]`,
			`[{"gas":"0x1"},"pending",{"tracer":"prestateTracer"}]`, `[{}]`, `[1,2,3]`},
		"debug_storageRangeAt": {`[` + block + `,2,"0x000000000000000000000000000000000000c013","0x0",5]`,
			`[` + block + `,"0x2","0x000000000000000000000000000000000000c013","0xffff",2147483647]`,
			`[` + block + `,-1,"0x00","0x0",1]`, `[` + block + `,0,"0x000000000000000000000000000000000000c013","0x` + strings.Repeat("f", 65) + `",1]`},
		"debug_accountRange":      {`["0x1",0,"0x0",5]`, `[` + block + `,0,"0xabc",0]`, `["latest","x","0x0",1]`},
		"debug_getRawHeader":      {`["0x1"]`, `["earliest"]`, `[` + block + `]`, `[true]`},
		"debug_getRawBlock":       {`["0x2"]`, `["0x1000"]`},
		"debug_getRawReceipts":    {`["0x1"]`, `["0x0"]`, `[{"blockHash":` + block + `}]`},
		"debug_getRawTransaction": {`[` + tx + `]`, `["0x"]`},
	}
	for i, m := range debugMethods {
		for _, s := range seeds[m] {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, params []byte) {
		method := debugMethods[int(which)%len(debugMethods)]
		body := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`), params...)
		body = append(body, '}')
		a := e.postRaw(t, body)
		if a.Error != nil && a.Error.Code == -32603 {
			t.Errorf("%s %s: internal error %s", method, params, a.Error.Message)
		}
		if strings.Contains(e.logs.String(), "panicked") {
			t.Fatalf("%s %s: a method panicked:\n%s", method, params, e.logs.String())
		}
	})
}
