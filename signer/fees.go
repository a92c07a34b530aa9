package signer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strconv"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/rpctypes"
)

// Fees of eth_sendTransaction.
//
// The spec (Document 3) and EthSigner default gasPrice to 0, which every
// node with a minimum gas price refuses (Basalt's and Besu's default
// --min-gas-price is 1000 wei), and ethers v6's
// JsonRpcSigner.sendTransaction sends no fee at all: it leaves the fee to
// the node, as go-ethereum's own eth_sendTransaction fills it. So for
// eth_sendTransaction the signer asks the node for the fees the caller
// left out, the way go-ethereum (setFeeDefaults) and ethers (getFeeData)
// compute them:
//
//   - No type and no fee field: when the latest block has a non-zero
//     baseFeePerGas, a type 2 transaction with maxPriorityFeePerGas =
//     eth_maxPriorityFeePerGas and maxFeePerGas = 2 × baseFee +
//     maxPriorityFeePerGas (twice the base fee keeps the transaction
//     includable through six full blocks of base fee increases);
//     otherwise a legacy transaction (type 1 with accessList) at
//     eth_gasPrice. A zero base fee (a free-gas network, Besu's
//     zeroBaseFee) keeps the legacy transaction EthSigner signs, at the
//     node's eth_gasPrice, which is 0 there; ethers reads a zero
//     baseFeePerGas the same way.
//   - Type 0 or 1 without gasPrice: eth_gasPrice.
//   - Type 2, or one EIP-1559 field without the other: the missing one.
//     maxPriorityFeePerGas is eth_maxPriorityFeePerGas, but never above a
//     given maxFeePerGas (that is the caller's limit; the tip is only the
//     node's suggestion). maxFeePerGas is 2 × baseFee +
//     maxPriorityFeePerGas, a latest block without a base fee counting as
//     0.
//   - gasPrice, or both EIP-1559 fields: nothing is asked.
//
// The lookups run once per call, before a nonce is taken: a failed lookup
// leaves the nonce manager untouched, and a retry with a new nonce keeps
// the fees. eth_signTransaction, which never reaches the node, and
// eea_sendTransaction keep the spec's gasPrice default of 0.

// feeHint is added to the node's error when a fee lookup fails, so the
// caller sees which call failed and how to avoid it.
const feeHint = "asked for a transaction without fee fields; give gasPrice, or maxFeePerGas and maxPriorityFeePerGas, to skip it"

// fillFees asks the node for the fees the request left out. On failure it
// returns the reply to the client.
func (s *Server) fillFees(ctx context.Context, hdr http.Header, id json.RawMessage, a *txArgs) *reply {
	if a.feesComplete() {
		return nil
	}
	var baseFee *big.Int
	if a.autoType || (a.txType == types.DynamicFeeTxType && a.maxFee == nil) {
		var rp *reply
		if baseFee, rp = s.latestBaseFee(ctx, hdr, id); rp != nil {
			return rp
		}
		if a.autoType && baseFee != nil && baseFee.Sign() > 0 {
			a.txType = types.DynamicFeeTxType
		}
	}
	if a.txType != types.DynamicFeeTxType {
		price, rp := s.askQuantity(ctx, hdr, id, "eth_gasPrice")
		if rp != nil {
			return rp
		}
		a.gasPrice = price
		s.log.Debug("Gas price from the node", "from", a.from.Hex(), "gasPrice", price)
		return nil
	}
	if a.maxTip == nil {
		tip, rp := s.askQuantity(ctx, hdr, id, "eth_maxPriorityFeePerGas")
		if rp != nil {
			return rp
		}
		if a.maxFee != nil && tip.Cmp(a.maxFee) > 0 {
			tip.Set(a.maxFee)
		}
		a.maxTip = tip
	}
	if a.maxFee == nil {
		fee := new(big.Int)
		if baseFee != nil {
			fee.Lsh(baseFee, 1)
		}
		fee.Add(fee, a.maxTip)
		if fee.BitLen() > maxQuantityBits {
			return errorReplyStatus(id, rpctypes.ErrInternal.WithReason(fmt.Sprintf(
				"maxFeePerGas from the node's base fee %s and priority fee %s exceeds 256 bits", baseFee, a.maxTip)), http.StatusBadGateway)
		}
		a.maxFee = fee
	}
	s.log.Debug("Fees from the node", "from", a.from.Hex(), "baseFee", baseFee, "maxFeePerGas", a.maxFee, "maxPriorityFeePerGas", a.maxTip)
	return nil
}

// latestBaseFee is the baseFeePerGas of the node's latest block, nil when
// the block has none (before London).
func (s *Server) latestBaseFee(ctx context.Context, hdr http.Header, id json.RawMessage) (*big.Int, *reply) {
	const method = "eth_getBlockByNumber"
	res, rp := s.ask(ctx, hdr, id, feeHint, method, "latest", false)
	if rp != nil {
		return nil, rp
	}
	var block *struct {
		BaseFee json.RawMessage `json:"baseFeePerGas"`
	}
	if json.Unmarshal(res, &block) != nil || block == nil {
		return nil, badAnswer(id, method, "not a block", res)
	}
	if absent(block.BaseFee) {
		return nil, nil
	}
	var q string
	if json.Unmarshal(block.BaseFee, &q) == nil {
		if n, ok := parseQuantity(q); ok {
			return n, nil
		}
	}
	return nil, badAnswer(id, method, "a block whose baseFeePerGas is not a quantity", block.BaseFee)
}

// askQuantity asks the node a method without parameters whose result is a
// quantity (eth_gasPrice, eth_maxPriorityFeePerGas).
func (s *Server) askQuantity(ctx context.Context, hdr http.Header, id json.RawMessage, method string) (*big.Int, *reply) {
	res, rp := s.ask(ctx, hdr, id, feeHint, method)
	if rp != nil {
		return nil, rp
	}
	var q string
	if json.Unmarshal(res, &q) == nil {
		if n, ok := parseQuantity(q); ok {
			return n, nil
		}
	}
	return nil, badAnswer(id, method, "not a quantity", res)
}

// ask sends a JSON-RPC request of the signer's own (with its own id and the
// client's headers) to the node and returns the result. On failure it
// returns the reply to the client's request id: the transport error, 502
// -32603 for an answer that is not JSON-RPC, or the node's error with the
// node's HTTP status (e.g. 401 for a missing JWT) — with "<method>, <hint>"
// as its reason when hint is not empty.
func (s *Server) ask(ctx context.Context, hdr http.Header, id json.RawMessage, hint, method string, params ...any) (json.RawMessage, *reply) {
	ownID := json.RawMessage(strconv.FormatUint(s.nextID.Add(1), 10))
	resp, err := s.call(ctx, hdr, ownID, method, params...)
	if err != nil {
		return nil, transportReply(id, err)
	}
	res, ok := parseResponse(resp.Body)
	if !ok {
		return nil, errorReplyStatus(id, rpctypes.ErrInternal.WithReason(fmt.Sprintf(
			"the node's answer to %s is not JSON-RPC (HTTP %d)", method, resp.Status)), http.StatusBadGateway)
	}
	if res.Error != nil {
		e := res.rpcError()
		if hint != "" {
			e = e.WithReason(method + ", " + hint)
		}
		return nil, errorReplyStatus(id, e, resp.Status)
	}
	return res.Result, nil
}

// badAnswer answers (502 -32603) for a node result that is not what the
// method returns.
func badAnswer(id json.RawMessage, method, what string, res json.RawMessage) *reply {
	return errorReplyStatus(id, rpctypes.ErrInternal.WithReason(fmt.Sprintf(
		"the node's answer to %s is %s: %.64s", method, what, res)), http.StatusBadGateway)
}
