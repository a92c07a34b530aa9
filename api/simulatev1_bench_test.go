package api

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkSimulateV1 is one eth_simulateV1 request of 8 blocks of 16
// value transfers each (with traceTransfers) through the JSON-RPC
// dispatcher.
func BenchmarkSimulateV1(b *testing.B) {
	srv := newSimServer(b)
	var blocks []string
	for i := 0; i < 8; i++ {
		var calls []string
		for j := 0; j < 16; j++ {
			calls = append(calls, fmt.Sprintf(`{"from":"0xc000000000000000000000000000000000000000","to":"0x%040x","value":"0x1"}`, 0x1000+j))
		}
		override := ""
		if i == 0 {
			override = `"stateOverrides":{"0xc000000000000000000000000000000000000000":{"balance":"0xffffffffffff"}},`
		}
		blocks = append(blocks, `{`+override+`"calls":[`+strings.Join(calls, ",")+`]}`)
	}
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"traceTransfers":true,"blockStateCalls":[` + strings.Join(blocks, ",") + `]}]}`)
	b.ReportAllocs()
	for b.Loop() {
		resp, _ := srv.HandleMessage(context.Background(), req)
		if !strings.Contains(string(resp), `"result"`) {
			b.Fatalf("%s", resp)
		}
	}
}
