package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// chainInfo is what signing needs from the node.
type chainInfo struct {
	id     *big.Int
	signer types.Signer
	feeCap *big.Int // maxFeePerGas for every transaction the harness signs
	tip    *big.Int
	// legacy is set on a chain without EIP-1559 (no base fee in its head:
	// GoQuorum at Berlin): transactions are legacy ones at gas price feeCap.
	legacy bool
}

// readChain asks the node for its chain ID and prices: the fee cap is twice
// eth_gasPrice plus 1 gwei, so that base-fee rises during a run do not
// leave transactions unexecutable.
func readChain(ctx context.Context, c *client) (*chainInfo, error) {
	var id, gp hexutil.Big
	if err := c.call(ctx, &id, "eth_chainId"); err != nil {
		return nil, err
	}
	if err := c.call(ctx, &gp, "eth_gasPrice"); err != nil {
		return nil, err
	}
	var head struct {
		BaseFee *hexutil.Big `json:"baseFeePerGas"`
	}
	if err := c.call(ctx, &head, "eth_getBlockByNumber", "latest", false); err != nil {
		return nil, err
	}
	tip := big.NewInt(params.GWei)
	feeCap := new(big.Int).Add(new(big.Int).Mul(gp.ToInt(), big.NewInt(2)), tip)
	ci := &chainInfo{id: id.ToInt(), signer: types.LatestSignerForChainID(id.ToInt()), feeCap: feeCap, tip: tip}
	if head.BaseFee == nil {
		ci.legacy, ci.feeCap = true, gp.ToInt() // free gas stays free
	}
	return ci, nil
}

// sign signs a transaction of a: EIP-1559, or legacy on a chain without.
func (ci *chainInfo) sign(a account, nonce uint64, to *common.Address, value *big.Int, gas uint64, data []byte) *types.Transaction {
	if ci.legacy {
		return types.MustSignNewTx(a.key, ci.signer, &types.LegacyTx{
			Nonce: nonce, GasPrice: ci.feeCap, Gas: gas, To: to, Value: value, Data: data,
		})
	}
	return types.MustSignNewTx(a.key, ci.signer, &types.DynamicFeeTx{
		ChainID: ci.id, Nonce: nonce, GasTipCap: ci.tip, GasFeeCap: ci.feeCap, Gas: gas, To: to, Value: value, Data: data,
	})
}

// account is a key the harness signs with.
type account struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

func newAccount(k *ecdsa.PrivateKey) account {
	return account{key: k, addr: crypto.PubkeyToAddress(k.PublicKey)}
}

// derivedAccounts returns n accounts from keys keccak(seed || i): the same
// accounts on every run, fresh for every seed.
func derivedAccounts(seed string, n int) []account {
	out := make([]account, n)
	for i := range out {
		var idx [8]byte
		binary.BigEndian.PutUint64(idx[:], uint64(i))
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(seed), idx[:]))
		if err != nil {
			panic(err) // keccak output is a valid key but for ~2^-128 odds
		}
		out[i] = newAccount(k)
	}
	return out
}

// transfer signs a value transfer.
func (ci *chainInfo) transfer(a account, nonce uint64, to common.Address, value *big.Int) *types.Transaction {
	return ci.sign(a, nonce, &to, value, params.TxGas, nil)
}

func (ci *chainInfo) create(a account, nonce uint64, code []byte, gas uint64) *types.Transaction {
	return ci.sign(a, nonce, nil, new(big.Int), gas, code)
}

func sendRaw(ctx context.Context, c *client, tx *types.Transaction) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	return c.call(ctx, nil, "eth_sendRawTransaction", hexutil.Encode(raw))
}

func nonceOf(ctx context.Context, c *client, a common.Address, tag string) (uint64, error) {
	var n hexutil.Uint64
	err := c.call(ctx, &n, "eth_getTransactionCount", a, tag)
	return uint64(n), err
}

func balanceOf(ctx context.Context, c *client, a common.Address) (*big.Int, error) {
	var b hexutil.Big
	err := c.call(ctx, &b, "eth_getBalance", a, "latest")
	return b.ToInt(), err
}

// receipt waits for tx's receipt and returns its contract address and
// status.
func receipt(ctx context.Context, c *client, h common.Hash, timeout time.Duration) (*types.Receipt, error) {
	deadline := time.Now().Add(timeout)
	for {
		var r *struct {
			Status          hexutil.Uint64  `json:"status"`
			ContractAddress *common.Address `json:"contractAddress"`
			BlockNumber     hexutil.Uint64  `json:"blockNumber"`
		}
		err := c.call(ctx, &r, "eth_getTransactionReceipt", h)
		if err != nil && !indexing(err) {
			return nil, err
		}
		if err == nil && r != nil {
			out := &types.Receipt{Status: uint64(r.Status), BlockNumber: new(big.Int).SetUint64(uint64(r.BlockNumber))}
			if r.ContractAddress != nil {
				out.ContractAddress = *r.ContractAddress
			}
			return out, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("transaction %s not mined within %s", h.Hex(), timeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// indexing tells go-ethereum's answer for a receipt its transaction index
// has not reached yet (it indexes new blocks in the background): not yet
// mined, ask again.
func indexing(err error) bool {
	var e *rpcError
	return errors.As(err, &e) && strings.Contains(e.Message, "indexing is in progress")
}

// funder returns a funded account: key if it holds at least need wei,
// else key funded with need from the node's first unlocked account
// (eth_accounts, eth_sendTransaction: go-ethereum's --dev account).
func funder(ctx context.Context, c *client, key *ecdsa.PrivateKey, need *big.Int) (account, error) {
	a := newAccount(key)
	bal, err := balanceOf(ctx, c, a.addr)
	if err != nil {
		return a, err
	}
	if bal.Cmp(need) >= 0 {
		return a, nil
	}
	var accts []common.Address
	if err := c.call(ctx, &accts, "eth_accounts"); err != nil || len(accts) == 0 {
		return a, fmt.Errorf("funding key %s holds %s wei, needs %s, and the node has no unlocked account to fund it (give --key)", a.addr.Hex(), bal, need)
	}
	var h common.Hash
	if err := c.call(ctx, &h, "eth_sendTransaction", map[string]any{
		"from": accts[0], "to": a.addr, "value": (*hexutil.Big)(need), "gas": hexutil.Uint64(params.TxGas),
	}); err != nil {
		return a, fmt.Errorf("fund %s from %s: %w", a.addr.Hex(), accts[0].Hex(), err)
	}
	if _, err := receipt(ctx, c, h, 2*time.Minute); err != nil {
		return a, err
	}
	return a, nil
}

// viewRuntime is the 10-byte contract eth_call runs: it returns the word
// 42 whatever the input (PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN).
var viewRuntime = common.FromHex("602a60005260206000f3")

// deployView deploys viewRuntime from a and returns its address.
func deployView(ctx context.Context, c *client, ci *chainInfo, a account) (common.Address, error) {
	// PUSH10 runtime PUSH1 0 MSTORE PUSH1 10 PUSH1 22 RETURN
	initcode := append(append([]byte{0x69}, viewRuntime...), 0x60, 0x00, 0x52, 0x60, 0x0a, 0x60, 0x16, 0xf3)
	return deploy(ctx, c, ci, a, "view contract", initcode, 100_000)
}

// deploy sends a contract creation from a with its pending nonce, waits
// for it to be mined and returns the new contract's address; what names the
// contract in errors.
func deploy(ctx context.Context, c *client, ci *chainInfo, a account, what string, initcode []byte, gas uint64) (common.Address, error) {
	nonce, err := nonceOf(ctx, c, a.addr, "pending")
	if err != nil {
		return common.Address{}, err
	}
	tx := ci.create(a, nonce, initcode, gas)
	if err := sendRaw(ctx, c, tx); err != nil {
		return common.Address{}, fmt.Errorf("deploy the %s: %w", what, err)
	}
	r, err := receipt(ctx, c, tx.Hash(), 2*time.Minute)
	if err != nil {
		return common.Address{}, err
	}
	if r.Status != 1 {
		return common.Address{}, fmt.Errorf("%s deployment failed", what)
	}
	return r.ContractAddress, nil
}

// parseKey reads a hex private key (with or without 0x).
func parseKey(s string) (*ecdsa.PrivateKey, error) {
	return crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(s), "0x"))
}
