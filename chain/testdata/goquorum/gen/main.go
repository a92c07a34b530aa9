// Generates GoQuorum 24.4.1 vectors for Basalt's GoQuorum private
// transaction tests: a block with public and private transactions applied
// by GoQuorum's own state processor as a non-party and as a party.
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/private"
	"github.com/ethereum/go-ethereum/private/engine"
	"github.com/ethereum/go-ethereum/private/engine/notinuse"
	"github.com/ethereum/go-ethereum/trie"
)

// partyPTM answers payloads as a party's Tessera would.
type partyPTM struct {
	notinuse.PrivateTransactionManager
	payloads map[common.EncryptedPayloadHash][]byte
}

func (p *partyPTM) Receive(h common.EncryptedPayloadHash) (string, []string, []byte, *engine.ExtraMetadata, error) {
	if d, ok := p.payloads[h]; ok {
		return "sender", []string{"sender"}, d, &engine.ExtraMetadata{PrivacyFlag: engine.PrivacyFlagStandardPrivate}, nil
	}
	return "", nil, nil, nil, nil
}

type Receipt struct {
	Status            uint64 `json:"status"`
	CumulativeGasUsed uint64 `json:"cumulativeGasUsed"`
	GasUsed           uint64 `json:"gasUsed"`
	ContractAddress   string `json:"contractAddress"`
	Logs              int    `json:"logs"`
}

type Run struct {
	Root         string    `json:"root"`
	GasUsed      uint64    `json:"gasUsed"`
	ReceiptsRoot string    `json:"receiptsRoot"`
	Bloom        string    `json:"bloom"`
	Receipts     []Receipt `json:"receipts"`
	PrivateRoot  string    `json:"privateRoot"`
	Err          string    `json:"error,omitempty"`
}

type Vector struct {
	Name     string            `json:"name"`
	ChainID  uint64            `json:"chainId"`
	Coinbase string            `json:"coinbase"`
	GasLimit uint64            `json:"gasLimit"`
	Number   uint64            `json:"number"`
	Time     uint64            `json:"time"`
	Alloc    map[string]string `json:"alloc"` // address -> balance (wei, decimal)
	Txs      []string          `json:"txs"`
	Senders  []string          `json:"senders"`
	NonParty Run               `json:"nonParty"`
	Party    Run               `json:"party"`
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

var (
	keyS, _ = crypto.HexToECDSA("8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63")
	keyT, _ = crypto.HexToECDSA("c87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3")
	addrS   = crypto.PubkeyToAddress(keyS.PublicKey)
	addrT   = crypto.PubkeyToAddress(keyT.PublicKey)
	cb      = common.HexToAddress("0x00000000000000000000000000000000000c0ffe")
)

func key(b byte) []byte {
	k := make([]byte, 64)
	for i := range k {
		k[i] = b + byte(i)
	}
	return k
}

func run(cfg *params.ChainConfig, header *types.Header, alloc map[common.Address]*big.Int, txs []*types.Transaction) Run {
	db := state.NewDatabase(rawdb.NewMemoryDatabase())
	st, _ := state.New(common.Hash{}, db, nil)
	for a, b := range alloc {
		st.AddBalance(a, b)
	}
	root, err := st.Commit(true)
	must(err)
	st, err = state.New(root, db, nil)
	must(err)
	priv, err := state.New(common.Hash{}, state.NewDatabase(rawdb.NewMemoryDatabase()), nil)
	must(err)
	gp := new(core.GasPool).AddGas(header.GasLimit)
	var used uint64
	var receipts types.Receipts
	var out Run
	for i, tx := range txs {
		st.Prepare(tx.Hash(), common.Hash{}, i)
		priv.Prepare(tx.Hash(), common.Hash{}, i)
		r, _, err := core.ApplyTransaction(cfg, nil, &cb, gp, st, priv, header, tx, &used, vm.Config{}, false, nil, false)
		if err != nil {
			out.Err = fmt.Sprintf("tx %d: %v", i, err)
			return out
		}
		receipts = append(receipts, r)
		ca := ""
		if r.ContractAddress != (common.Address{}) {
			ca = r.ContractAddress.Hex()
		}
		out.Receipts = append(out.Receipts, Receipt{r.Status, r.CumulativeGasUsed, r.GasUsed, ca, len(r.Logs)})
	}
	out.Root = st.IntermediateRoot(true).Hex()
	out.PrivateRoot = priv.IntermediateRoot(true).Hex()
	out.GasUsed = used
	out.ReceiptsRoot = types.DeriveSha(receipts, trie.NewStackTrie(nil)).Hex()
	out.Bloom = hex.EncodeToString(types.CreateBloom(receipts).Bytes())
	return out
}

func main() {
	cfg := &params.ChainConfig{
		ChainID: big.NewInt(10), HomesteadBlock: big.NewInt(0), EIP150Block: big.NewInt(0), EIP155Block: big.NewInt(0),
		EIP158Block: big.NewInt(0), ByzantiumBlock: big.NewInt(0), ConstantinopleBlock: big.NewInt(0),
		PetersburgBlock: big.NewInt(0), IstanbulBlock: big.NewInt(0), BerlinBlock: big.NewInt(0),
		IsQuorum: true, EnableGasPriceBlock: big.NewInt(0),
	}
	header := &types.Header{Number: big.NewInt(1), Time: 1000, GasLimit: 10_000_000, Difficulty: big.NewInt(1), Coinbase: cb}
	alloc := map[common.Address]*big.Int{addrS: new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether)), addrT: big.NewInt(params.Ether)}
	pub := types.NewEIP155Signer(cfg.ChainID)
	privSigner := types.QuorumPrivateTxSigner{}
	sign := func(tx *types.Transaction, s types.Signer, k interface{}) *types.Transaction {
		t, err := types.SignTx(tx, s, keyS)
		if k != nil {
			t, err = types.SignTx(tx, s, keyT)
		}
		must(err)
		return t
	}
	// Private payloads: an init code that stores 42 in slot 0 and logs, and
	// a call that reverts.
	initCode := common.FromHex("602a60005560006000a0600a6013600039600a6000f3602a60005260206000f3")
	revertCall := common.FromHex("60006000fd")
	k1, k2, k3 := key(1), key(100), key(200)
	created := crypto.CreateAddress(addrS, 1)
	price := big.NewInt(3)
	txs := []*types.Transaction{
		sign(types.NewTransaction(0, addrT, big.NewInt(1), 21000, price, nil), pub, nil),
		sign(types.NewContractCreation(1, big.NewInt(0), 300000, price, k1), privSigner, nil),
		sign(types.NewTransaction(2, created, big.NewInt(0), 100000, price, k2), privSigner, nil),
		// a private call carrying a value, to an address (non-party: no execution)
		sign(types.NewTransaction(3, addrT, big.NewInt(5), 50000, price, k3), privSigner, nil),
		// a public creation after them: cumulative gas must exclude the private ones
		sign(types.NewContractCreation(0, big.NewInt(0), 200000, price, initCode), pub, keyT),
	}
	v := Vector{Name: "mixed", ChainID: 10, Coinbase: cb.Hex(), GasLimit: header.GasLimit, Number: 1, Time: 1000, Alloc: map[string]string{}}
	for a, b := range alloc {
		v.Alloc[a.Hex()] = b.String()
	}
	for _, tx := range txs {
		raw, err := tx.MarshalBinary()
		must(err)
		v.Txs = append(v.Txs, hex.EncodeToString(raw))
		from, err := types.Sender(types.MakeSigner(cfg, header.Number), tx)
		must(err)
		v.Senders = append(v.Senders, from.Hex())
	}
	party := &partyPTM{payloads: map[common.EncryptedPayloadHash][]byte{
		common.BytesToEncryptedPayloadHash(k1): initCode,
		common.BytesToEncryptedPayloadHash(k2): revertCall,
	}}
	both := func(v *Vector, header *types.Header, txs []*types.Transaction) {
		private.P = &notinuse.PrivateTransactionManager{}
		v.NonParty = run(cfg, header, alloc, txs)
		private.P = party
		v.Party = run(cfg, header, alloc, txs)
	}
	both(&v, header, txs)
	out := []Vector{v}
	// The block gas pool keeps a private transaction's intrinsic gas:
	// a private creation whose gas is exactly its intrinsic gas (54024),
	// then a transfer, in blocks with 20999 and 21000 gas left for it.
	for _, extra := range []uint64{20999, 21000} {
		h := *header
		h.GasLimit = 54024 + extra
		txs := []*types.Transaction{
			sign(types.NewContractCreation(0, big.NewInt(0), 54024, price, k1), privSigner, nil),
			sign(types.NewTransaction(0, addrS, big.NewInt(1), 21000, price, nil), pub, keyT),
		}
		w := Vector{Name: fmt.Sprintf("pool-%d", extra), ChainID: 10, Coinbase: cb.Hex(), GasLimit: h.GasLimit, Number: 1, Time: 1000, Alloc: v.Alloc}
		for _, tx := range txs {
			raw, err := tx.MarshalBinary()
			must(err)
			w.Txs = append(w.Txs, hex.EncodeToString(raw))
			from, err := types.Sender(types.MakeSigner(cfg, h.Number), tx)
			must(err)
			w.Senders = append(w.Senders, from.Hex())
		}
		both(&w, &h, txs)
		out = append(out, w)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	must(enc.Encode(out))
}
