package main

import (
	"context"
	_ "embed"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// tokenCode is the creation code of erc20/Token.sol, compiled by solc
// 0.8.37 (npm solc, as test/solc) with the optimizer (200 runs) for the
// Berlin EVM, so that it runs unchanged on GoQuorum 24.4.1's Berlin
// networks and on Basalt's.
//
//go:embed erc20/token.hex
var tokenHex string

// tokenSupply is the token's supply, all minted to the funder.
var tokenSupply = new(big.Int).Lsh(big.NewInt(1), 128)

// ERC-20 selectors.
var (
	selTransfer  = common.FromHex("a9059cbb") // transfer(address,uint256)
	selBalanceOf = common.FromHex("70a08231") // balanceOf(address)
)

// erc20Gas is the gas limit of a token transfer: a transfer to a holder
// costs about 35,000 gas, to a new one about 52,000.
const erc20Gas = 80_000

// transferCall is the call data of transfer(to, value).
func transferCall(to common.Address, value *big.Int) []byte {
	data := append([]byte{}, selTransfer...)
	data = append(data, common.LeftPadBytes(to[:], 32)...)
	return append(data, common.LeftPadBytes(value.Bytes(), 32)...)
}

// tokenTransfer signs a token transfer of value to to from a.
func (ci *chainInfo) tokenTransfer(a account, nonce uint64, token, to common.Address, value *big.Int) *types.Transaction {
	return ci.sign(a, nonce, &token, new(big.Int), erc20Gas, transferCall(to, value))
}

// deployToken deploys the ERC-20 from a, its supply minted to a.
func deployToken(ctx context.Context, c *client, ci *chainInfo, a account) (common.Address, error) {
	code := append(common.FromHex(strings.TrimSpace(tokenHex)), common.LeftPadBytes(tokenSupply.Bytes(), 32)...)
	return deploy(ctx, c, ci, a, "token", code, 1_500_000)
}

// tokenBalance is balanceOf(a) of token.
func tokenBalance(ctx context.Context, c *client, token, a common.Address) (*big.Int, error) {
	data := append(append([]byte{}, selBalanceOf...), common.LeftPadBytes(a[:], 32)...)
	var out string
	if err := c.call(ctx, &out, "eth_call", map[string]any{"to": token, "data": fmt.Sprintf("0x%x", data)}, "latest"); err != nil {
		return nil, err
	}
	return new(big.Int).SetBytes(common.FromHex(out)), nil
}

// fundTokens gives each sender grant tokens from the funder, stage
// transfers at a time, each stage mined before the next.
func fundTokens(ctx context.Context, c *client, ci *chainInfo, from account, token common.Address, senders []account, grant *big.Int, stage int) error {
	nonce, err := nonceOf(ctx, c, from.addr, "pending")
	if err != nil {
		return err
	}
	for len(senders) > 0 {
		n := min(stage, len(senders))
		var last *types.Transaction
		for _, s := range senders[:n] {
			last = ci.tokenTransfer(from, nonce, token, s.addr, grant)
			if err := sendRaw(ctx, c, last); err != nil {
				return fmt.Errorf("token grant to %s: %w", s.addr.Hex(), err)
			}
			nonce++
		}
		r, err := receipt(ctx, c, last.Hash(), 2*time.Minute)
		if err != nil {
			return err
		}
		if r.Status != 1 {
			return fmt.Errorf("token grant %s failed", last.Hash().Hex())
		}
		senders = senders[n:]
	}
	return nil
}
