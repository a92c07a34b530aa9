package graphql_test

import (
	"encoding/json"
	"math/big"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/testnode"
)

// TestDevNodeSubmitAndPending submits a transaction to a real dev node
// through the GraphQL mutation and finds it in the pool through GraphQL and
// JSON-RPC alike, then checks a pool refusal's error.
func TestDevNodeSubmitAndPending(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the basalt binary")
	}
	t.Parallel()
	n := testnode.StartGraphQL(t, t.TempDir(), "--network=dev")
	key, _ := crypto.HexToECDSA("8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63")
	sender := crypto.PubkeyToAddress(key.PublicKey)
	to := common.HexToAddress("0x627306090abaB3A6e1400e9345bC60c78a8BEf57")
	signer := types.LatestSignerForChainID(big.NewInt(1337))
	sign := func(nonce uint64) string {
		tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{
			ChainID: big.NewInt(1337), Nonce: nonce, To: &to, Value: big.NewInt(1),
			Gas: 21000, GasFeeCap: big.NewInt(2_000_000_000), GasTipCap: big.NewInt(1_000_000_000),
		})
		raw, _ := tx.MarshalBinary()
		return hexutil.Encode(raw)
	}

	status, out := query(t, n.GraphQLURL, `mutation { sendRawTransaction(data: "`+sign(0)+`") }`)
	hash, _ := out["data"].(map[string]any)["sendRawTransaction"].(string)
	if status != 200 || len(hash) != 66 {
		t.Fatalf("sendRawTransaction: %d %v", status, out)
	}
	var viaRPC struct{ Hash string }
	n.MustCall(&viaRPC, "eth_getTransactionByHash", hash)
	if viaRPC.Hash != hash {
		t.Fatalf("JSON-RPC does not see %s: %+v", hash, viaRPC)
	}

	_, out = query(t, n.GraphQLURL, `{ pending { transactionCount transactions { hash from { address } } }
		transaction(hash: "`+hash+`") { hash index block { number } from { address } to { address } value maxFeePerGas type } }`)
	want := `{"data":{"pending":{"transactionCount":"0x1","transactions":[{"hash":"` + hash + `","from":{"address":"` + strings.ToLower(sender.Hex()) + `"}}]},` +
		`"transaction":{"hash":"` + hash + `","index":null,"block":null,"from":{"address":"` + strings.ToLower(sender.Hex()) + `"},` +
		`"to":{"address":"` + strings.ToLower(to.Hex()) + `"},"value":"0x1","maxFeePerGas":"0x77359400","type":"0x2"}}}`
	var wantV map[string]any
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, wantV) {
		got, _ := json.Marshal(out)
		t.Errorf("pending\n got  %s\n want %s", got, want)
	}

	// The same transaction again: the pool's refusal with its JSON-RPC code.
	status, out = query(t, n.GraphQLURL, `mutation { sendRawTransaction(data: "`+sign(0)+`") }`)
	got, _ := json.Marshal(out)
	if status != 400 || !strings.Contains(string(got), `"errorCode":-32000,"errorMessage":"Known transaction"`) || !strings.Contains(string(got), `"data":null`) {
		t.Errorf("resubmission: %d %s", status, got)
	}
}

// query posts a document and decodes the answer.
func query(t *testing.T, url, q string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/graphql", strings.NewReader(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}
