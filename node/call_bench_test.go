package node

import (
	"bytes"
	"io"
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/config"
)

// viewContract answers get() (selector 0x6d4ce63c) with storage slot 0, as
// a compiled Solidity view function does: selector dispatch, SLOAD, return.
var viewContract = common.FromHex("600035" + "60e01c" + "636d4ce63c" + "14" + "6013" + "57" + "6000" + "80" + "fd" +
	"5b" + "600054" + "600052" + "6020" + "6000" + "f3")

// BenchmarkEthCall measures eth_call of a simple view function against a
// running node, with 64 concurrent keep-alive clients (the figure),
// with metrics off and on ("+metrics"):
//
//	go test -run '^$' -bench EthCall -benchtime 5s ./node/
func BenchmarkEthCall(b *testing.B) {
	g, call := viewCallGenesis()
	for _, metrics := range []bool{false, true} {
		name := "eth_call"
		if metrics {
			name += "+metrics"
		}
		// A node of its own for each run, closed after it: two nodes in
		// one process measure the second one slower whatever it is.
		b.Run(name, func(b *testing.B) {
			url := benchNode(b, g, metrics)
			resp, err := http.Post(url, "application/json", bytes.NewReader(call))
			if err != nil {
				b.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := `"result":"0x000000000000000000000000000000000000000000000000000000000000002a"`; !bytes.Contains(body, []byte(want)) {
				b.Fatalf("get() answered %s", body)
			}
			drive(b, url, call)
		})
	}
}

// viewCallGenesis is the dev genesis with viewContract deployed, and the
// eth_call request of its get().
func viewCallGenesis() (*config.Genesis, []byte) {
	g := config.DevGenesis()
	contract := common.HexToAddress("0x00000000000000000000000000000000000c0de1")
	alloc := make(types.GenesisAlloc, len(g.Core.Alloc)+1)
	for a, acc := range g.Core.Alloc {
		alloc[a] = acc
	}
	alloc[contract] = types.Account{
		Code:    viewContract,
		Balance: new(big.Int),
		Storage: map[common.Hash]common.Hash{{}: common.BigToHash(big.NewInt(42))},
	}
	g.Core.Alloc = alloc
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","to":"` +
		contract.Hex() + `","data":"0x6d4ce63c"},"latest"]}`)
	return g, call
}
