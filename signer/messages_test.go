package signer

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/signer/keys"
)

// keySet is a store of the given keys.
type keySet map[common.Address]keys.Key

func newKeySet(t testing.TB, hexKeys ...string) keySet {
	t.Helper()
	ks := keySet{}
	for _, h := range hexKeys {
		k, err := keys.ParseHexKey(h)
		if err != nil {
			t.Fatal(err)
		}
		ks[k.Address()] = k
	}
	return ks
}

func (ks keySet) Accounts() []common.Address {
	var out []common.Address
	for a := range ks {
		out = append(out, a)
	}
	return out
}

func (ks keySet) Key(a common.Address) (keys.Key, bool) {
	k, ok := ks[a]
	return k, ok
}

// recoverSigner recovers the address that made sig (r ‖ s ‖ v, v 27/28)
// over digest.
func recoverSigner(t testing.TB, digest []byte, sigHex string) common.Address {
	t.Helper()
	sig := hexutil.MustDecode(sigHex)
	if len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) {
		t.Fatalf("signature %s: want 65 bytes with v 27 or 28", sigHex)
	}
	sig[64] -= 27
	pub, err := crypto.SigToPub(digest, sig)
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(*pub)
}

// TestPersonalSign checks personal_sign against MetaMask's eth-sig-util
// vectors (src/personal-sign.test.ts: "Hello, world!" with its test key,
// and three geth-made vectors "kumavis fml manual test I-III"), in the
// parameter order and encoding ethers' signMessage uses (hex message,
// lower-case address).
func TestPersonalSign(t *testing.T) {
	const (
		metaMaskKey = "4af1bceebf7f3634ec3cff8a2c38e51178d5d4ce585c52d6043e5e2cc3418bb0"
		key69       = "6969696969696969696969696969696969696969696969696969696969696969"
		key45       = "4545454545454545454545454545454545454545454545454545454545454545"
	)
	ks := newKeySet(t, metaMaskKey, key69, key45)
	node := newFakeNode(t)
	s := signerFor(t, node, func(c *Config) { c.Keys = ks })
	addrOf := func(h string) common.Address { k, _ := keys.ParseHexKey(h); return k.Address() }

	for _, v := range []struct {
		name    string
		key     string
		message string
		address string // published, when the vector gives it
		sig     string
	}{
		{"Hello, world! (text)", metaMaskKey, "Hello, world!", "0x29c76e6ad8f28bb1004902578fb108c507be341b",
			"0x90a938f7457df6e8f741264c32697fc52f9a8f867c52dd70713d9d2d472f2e415d9c94148991bbe1f4a1818d1dff09165782749c877f5cf1eff4ef126e55714d1c"},
		{"Hello, world! (hex, as ethers sends it)", metaMaskKey, hexutil.Encode([]byte("Hello, world!")), "0x29c76e6ad8f28bb1004902578fb108c507be341b",
			"0x90a938f7457df6e8f741264c32697fc52f9a8f867c52dd70713d9d2d472f2e415d9c94148991bbe1f4a1818d1dff09165782749c877f5cf1eff4ef126e55714d1c"},
		{"kumavis I", key69, "0x68656c6c6f20776f726c64", "0xbe93f9bacbcffc8ee6663f2647917ed7a20a57bb",
			"0xce909e8ea6851bc36c007a0072d0524b07a3ff8d4e623aca4c71ca8e57250c4d0a3fc38fa8fbaaa81ead4b9f6bd03356b6f8bf18bccad167d78891636e1d69561b"},
		{"kumavis II", key69, "0x0cc175b9c0f1b6a831c399e26977266192eb5ffee6ae2fec3ad71c777531578f", "0xbe93f9bacbcffc8ee6663f2647917ed7a20a57bb",
			"0x9ff8350cc7354b80740a3580d0e0fd4f1f02062040bc06b893d70906f8728bb5163837fd376bf77ce03b55e9bd092b32af60e86abce48f7b8d3539988ee5a9be1c"},
		{"kumavis III", key45, "0x0cc175b9c0f1b6a831c399e26977266192eb5ffee6ae2fec3ad71c777531578f", "0xe0da1edcea030875cd0f199d96eb70f6ab78faf2",
			"0xa2870db1d0c26ef93c7b72d2a0830fa6b841e0593f7186bc6c7cc317af8cf3a42fda03bd589a49949aa05db83300cdb553116274518dbe9d90c65d0213f4af491b"},
	} {
		addr := addrOf(v.key)
		if !strings.EqualFold(addr.Hex(), v.address) {
			t.Fatalf("%s: key address %s, published %s", v.name, addr.Hex(), v.address)
		}
		got := call(t, s.URL, "personal_sign", v.message, strings.ToLower(addr.Hex())).str(t)
		if got != v.sig {
			t.Errorf("%s: %s, want %s", v.name, got, v.sig)
		}
		// Recovering with go-ethereum gives the key's address back.
		data := []byte(v.message)
		if strings.HasPrefix(v.message, "0x") {
			data = hexutil.MustDecode(v.message)
		}
		if rec := recoverSigner(t, accounts.TextHash(data), got); rec != addr {
			t.Errorf("%s: recovers to %s", v.name, rec.Hex())
		}
		// eth_sign is the same signature with the parameters swapped.
		if es := call(t, s.URL, "eth_sign", addr.Hex(), v.message).str(t); es != v.sig {
			t.Errorf("%s: eth_sign %s", v.name, es)
		}
	}

	// web3.js's personal.sign adds a password: accepted and ignored.
	mm := addrOf(metaMaskKey).Hex()
	for _, pw := range []any{"secret", nil} {
		if got := call(t, s.URL, "personal_sign", "Hello, world!", mm, pw).str(t); !strings.HasPrefix(got, "0x90a938f7") {
			t.Errorf("with password %v: %s", pw, got)
		}
	}

	call(t, s.URL, "personal_sign", "0xdead", dev1.Hex()).wantError(t, 200, -32000, "No unlocked account matches the Sender")
	for _, params := range []string{`[]`, `null`, `{}`, `["0xdead"]`, `["0xdead","` + mm + `","pw","x"]`,
		`["` + mm + `","0xdead"]`, `["0xzz","` + mm + `"]`, `["0xabc","` + mm + `"]`, `[5,"` + mm + `"]`, `["0xdead","` + mm + `",5]`} {
		post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":`+params+`}`).wantError(t, 400, -32602, "Invalid params (")
	}
	if len(node.methods()) != 0 {
		t.Errorf("personal_sign reached the node: %v", node.methods())
	}
}

// mailTypedData is EIP-712's own example (the EIP and its
// assets/eip-712/Example.js), as ethers' signTypedData sends it.
const mailTypedData = `{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],` +
	`"Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],` +
	`"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]},` +
	`"primaryType":"Mail","domain":{"name":"Ether Mail","version":"1","chainId":1,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},` +
	`"message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"Hello, Bob!"}}`

// TestSignTypedData checks eth_signTypedData_v4 against EIP-712's
// example: the Mail digest signed with the EIP's "cow" key
// (keccak256("cow"), address 0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826)
// gives the EIP's signature v 28, r 0x4355c47d…, s 0x07299936….
func TestSignTypedData(t *testing.T) {
	cowKey := hexutil.Encode(crypto.Keccak256([]byte("cow")))
	ks := newKeySet(t, cowKey)
	cow := common.HexToAddress("0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826")
	if _, ok := ks[cow]; !ok {
		t.Fatal("keccak256(cow) is not the EIP's Cow")
	}
	node := newFakeNode(t)
	// The example's domain is chain 1.
	s := signerFor(t, node, func(c *Config) { c.Keys, c.ChainID = ks, big.NewInt(1) })
	const want = "0x" +
		"4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d" + // r
		"07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b91562" + // s
		"1c" // v = 28
	digest := hexutil.MustDecode("0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2")

	// As ethers sends it (a JSON string, lower-case address), as an object,
	// and under Web3Signer's name.
	var obj any
	json.Unmarshal([]byte(mailTypedData), &obj)
	for _, tc := range []struct {
		method string
		data   any
	}{
		{"eth_signTypedData_v4", mailTypedData},
		{"eth_signTypedData_v4", obj},
		{"eth_signTypedData", mailTypedData},
	} {
		got := call(t, s.URL, tc.method, strings.ToLower(cow.Hex()), tc.data).str(t)
		if got != want {
			t.Errorf("%s %T: %s, want %s", tc.method, tc.data, got, want)
		}
		if rec := recoverSigner(t, digest, got); rec != cow {
			t.Errorf("recovers to %s", rec.Hex())
		}
	}

	// Errors: unknown account, wrong chain, malformed data with its reason.
	call(t, s.URL, "eth_signTypedData_v4", dev1.Hex(), mailTypedData).wantError(t, 200, -32000, "No unlocked account matches the Sender")
	other := signerFor(t, node, func(c *Config) { c.Keys = ks }) // chain 1337
	call(t, other.URL, "eth_signTypedData_v4", cow.Hex(), mailTypedData).
		wantError(t, 400, -32602, "Invalid params (typed data: domain chainId 1 does not match the signer's chain id 1337)")
	for _, tc := range []struct {
		params string
		want   string
	}{
		{`[]`, "Invalid params (eth_signTypedData_v4 takes an address and the typed data)"},
		{`null`, "Invalid params (eth_signTypedData_v4 takes an address and the typed data)"},
		{`["` + cow.Hex() + `"]`, "Invalid params (eth_signTypedData_v4 takes an address and the typed data)"},
		{`[` + mustJSON(mailTypedData) + `,"` + cow.Hex() + `"]`, "Invalid params (address must be a 20-byte hex address)"},
		{`["` + cow.Hex() + `","{not json"]`, "Invalid params (typed data: typed data is not valid JSON)"},
		{`["` + cow.Hex() + `",5]`, "Invalid params (typed data: typed data must be a JSON object)"},
		{`["` + cow.Hex() + `",` + mustJSON(strings.Replace(mailTypedData, `"contents":"Hello, Bob!"`, `"contents":5`, 1)) + `]`,
			"Invalid params (typed data: message.contents: must be a string)"},
		{`["` + cow.Hex() + `",` + strings.Replace(mailTypedData, `"wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"`, `"wallet":"0xbB"`, 1) + `]`,
			"Invalid params (typed data: message.to.wallet: must be a 20-byte hex address)"},
	} {
		post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_signTypedData_v4","params":`+tc.params+`}`).wantError(t, 400, -32602, tc.want)
	}
	if len(node.methods()) != 0 {
		t.Errorf("typed data reached the node: %v", node.methods())
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
