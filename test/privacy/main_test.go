// Package privacy holds the end-to-end tests of private transactions: real
// basalt nodes (Clique and dev networks) with real basalt-privacy managers
// and basalt-signer, driven over JSON-RPC: the privacy RPC families,
// private nonces, zero-base-fee networks, block export/import of private
// state and the privacy benchmarks.
package privacy

import (
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/testsupport/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBinaries()
	os.Exit(code)
}

// devCoinbase is the first dev account, the coinbase of mining dev nodes.
const devCoinbase = "0xfe3b557e8fb62b89f4916b721be55ceb828dbd73"

// cliqueChainID is the chain of the Clique networks the tests start.
const cliqueChainID = 2018

// cliqueKey is the node key of test node i (fixed, so signers are known
// before the nodes start).
func cliqueKey(i int) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("clique e2e node " + strconv.Itoa(i))))
	if err != nil {
		panic(err)
	}
	return k
}

func cliqueAddr(i int) common.Address { return crypto.PubkeyToAddress(cliqueKey(i).PublicKey) }

// loginAt posts credentials to base+"/login" (JSON-RPC authentication)
// and returns the token.
func loginAt(t *testing.T, base, user, password string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"username": user, "password": password})
	req, _ := http.NewRequest(http.MethodPost, base+"/login", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("login %s at %s: %d %q", user, base, resp.StatusCode, b)
	}
	var out struct{ Token string }
	if err := json.Unmarshal(b, &out); err != nil || out.Token == "" {
		t.Fatalf("login %s: %q", user, b)
	}
	return out.Token
}
