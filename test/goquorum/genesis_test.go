package goquorum

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/consensus/qbft"
)

const (
	chainID  = 1337
	gasLimit = 700000000 // 0x29b92700, kept flat by both clients
	// requestTimeout is the QBFT round timeout (seconds): short, so the
	// rounds of a stopped proposer pass quickly.
	requestTimeout = 2
)

// devKeyHex is the first of the well-known dev accounts, funded in the
// genesis.
const devKeyHex = "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"

// validatorKeys returns count deterministic keys. GoQuorum orders QBFT
// validators by address bytes, but a GoQuorum node that restarts reloads
// its genesis snapshot ordered by the EIP-55 checksum string (an IBFT
// leftover); where the two orders differ, a restarted GoQuorum node picks
// other proposers than everyone else. The keys are chosen so both orders
// agree, and the test checks it, since it restarts a GoQuorum node.
func validatorKeys(t testing.TB, count int) []*ecdsa.PrivateKey {
	t.Helper()
	var keys []*ecdsa.PrivateKey
	var addrs []common.Address
	for i := range count {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("basalt-goquorum-0-%d", i))))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
		addrs = append(addrs, crypto.PubkeyToAddress(k.PublicKey))
	}
	byBytes := slices.SortedFunc(slices.Values(addrs), func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	byString := slices.SortedFunc(slices.Values(addrs), func(a, b common.Address) int { return strings.Compare(a.Hex(), b.Hex()) })
	if !slices.Equal(byBytes, byString) {
		t.Fatalf("validator keys: byte order %v differs from checksum order %v", byBytes, byString)
	}
	return keys
}

// sortedAddresses returns the addresses of keys in ascending byte order.
func sortedAddresses(keys []*ecdsa.PrivateKey) []common.Address {
	var addrs []common.Address
	for _, k := range keys {
		addrs = append(addrs, crypto.PubkeyToAddress(k.PublicKey))
	}
	slices.SortFunc(addrs, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	return addrs
}

// writeGenesis writes the genesis both clients accept (reference/qbft.md
// §2): forks up to Berlin only, isQuorum, gas prices on, quorum
// ceil(2N/3), the validators in a QBFT extraData, the dev account funded.
func writeGenesis(t testing.TB, dir string, validators []common.Address, change ...func(genesis map[string]any)) string {
	t.Helper()
	dev, _ := crypto.HexToECDSA(devKeyHex)
	config := map[string]any{
		"chainId":        chainID,
		"homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
		"byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
		"berlinBlock":         0,
		"isQuorum":            true,
		"enableGasPriceBlock": 0,
		"qbft": map[string]any{
			"blockperiodseconds": 1, "epochlength": 30000,
			"requesttimeoutseconds": requestTimeout, "ceil2Nby3Block": 0,
		},
	}
	g := map[string]any{
		"config":     config,
		"nonce":      "0x0",
		"timestamp":  "0x0",
		"extraData":  hexutil.Encode(qbft.EncodeValidators(validators)),
		"gasLimit":   hexutil.EncodeUint64(gasLimit),
		"difficulty": "0x1",
		"mixHash":    qbft.MixDigest.Hex(),
		"coinbase":   common.Address{}.Hex(),
		"alloc": map[string]any{
			crypto.PubkeyToAddress(dev.PublicKey).Hex(): map[string]string{"balance": "0x200000000000000000000000000000000000000000000000000000000000000"},
		},
		"number":     "0x0",
		"gasUsed":    "0x0",
		"parentHash": common.Hash{}.Hex(),
	}
	for _, c := range change {
		if c != nil {
			c(g)
		}
	}
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "genesis.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
