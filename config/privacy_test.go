package config

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestPrivacyOptions: Besu's start-up rules of the --privacy-* options.
func TestPrivacyOptions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{args: []string{"--privacy-enabled"}, want: "Please specify Enclave public key file path to enable privacy"},
		{args: []string{"--privacy-enabled", "--privacy-public-key-file=k", "--privacy-multi-tenancy-enabled"}, want: "Privacy multi-tenancy and privacy public key cannot be used together"},
		{args: []string{"--privacy-enabled", "--privacy-multi-tenancy-enabled"}, want: "Privacy multi-tenancy requires either http authentication to be enabled or WebSocket authentication to be enabled"},
		{args: []string{"--privacy-enabled", "--privacy-public-key-file=k", "--min-gas-price=0"}},
		{args: []string{"--privacy-enabled", "--privacy-public-key-file=k", "--privacy-marker-transaction-signing-key-file=m"}},
		{args: []string{"--privacy-url=localhost:8888"}, want: `invalid value "localhost:8888" for --privacy-url: expected an http or https URL`},
		{args: []string{"--privacy-precompiled-address=0x7e"}, want: "for --privacy-precompiled-address: expected a positive integer"},
		{args: []string{"--privacy-flexible-groups-enabled"}, want: "Basalt has no flexible (on-chain) privacy groups"},
		{args: []string{"--privacy-enabled", "--privacy-public-key-file=k", "--min-gas-price=0", "--privacy-tls-enabled"}, want: "--privacy-tls-enabled needs an https --privacy-url"},
		{args: []string{"--privacy-enabled", "--privacy-public-key-file=k", "--min-gas-price=0", "--privacy-tls-keystore-file=x"}, want: "need --privacy-tls-enabled"},
	} {
		_, err := loadArgs(t, nil, tc.args...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v:\n got %v\nwant %s", tc.args, err, tc.want)
		}
	}
	if err := mustLoad(t, nil, "--privacy-enabled", "--privacy-public-key-file=k").FreeGasError(); err == nil ||
		!strings.Contains(err.Error(), "Not a free gas network. --privacy-marker-transaction-signing-key-file must be specified") {
		t.Errorf("free gas rule: %v", err)
	}
	if err := mustLoad(t, nil, "--privacy-enabled", "--privacy-public-key-file=k", "--min-gas-price=0").FreeGasError(); err != nil {
		t.Error(err)
	}
	// The chain's fee market decides too: a London chain charges a base
	// fee unless its genesis sets zeroBaseFee.
	priv := []string{"--privacy-enabled", "--privacy-public-key-file=k", "--min-gas-price=0"}
	genesis := func(extra string) string {
		return "--genesis-file=" + writeFile(t, "genesis.json", `{"config": {"chainId": 2018, "berlinBlock": 0`+extra+`,
			"clique": {"blockperiodseconds": 1}}, "difficulty": "0x1", "extraData": "0x`+strings.Repeat("00", 97)+`", "gasLimit": "0x1fffffffffffff", "alloc": {}}`)
	}
	for _, tc := range []struct {
		args []string
		want string // "" = starts
	}{
		{[]string{"--network=dev"}, "--network=dev activates London at block 0"},
		{[]string{genesis(`, "londonBlock": 5`)}, "the genesis file activates London at block 5"},
		{[]string{genesis(`, "londonBlock": 0, "fixedBaseFee": true`)}, "Basalt does not implement config.fixedBaseFee"},
		{[]string{genesis(`, "londonBlock": 0, "zeroBaseFee": true`)}, ""},
		{[]string{genesis("")}, ""},
		{[]string{"--network=dev", "--privacy-marker-transaction-signing-key-file=m"}, ""},
	} {
		err := mustLoad(t, nil, append(priv, tc.args...)...).FreeGasError()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Not a free gas network")):
			t.Errorf("%v:\n got %v\nwant %s", tc.args, err, tc.want)
		}
	}
	cfg := mustLoad(t, nil, "--privacy-enabled", "--privacy-public-key-file=k", "--min-gas-price=0", "--privacy-precompiled-address=125", "--privacy-url=http://127.0.0.1:9999")
	if p := cfg.Privacy; !p.Enabled || p.PrecompiledAddress != common.HexToAddress("0x7d") || p.URL != "http://127.0.0.1:9999" || p.PublicKeyFile != "k" {
		t.Errorf("privacy config %+v", p)
	}
}
