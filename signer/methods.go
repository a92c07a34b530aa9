package signer

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/rpctypes"
)

// ethAccounts answers eth_accounts: the configured keys' addresses, lower
// case, sorted. Params must be absent, null or [].
func (s *Server) ethAccounts(_ context.Context, _ *http.Request, env *envelope) *reply {
	if p := bytes.TrimSpace(env.Params); !absent(p) {
		var arr []json.RawMessage
		if json.Unmarshal(p, &arr) != nil || len(arr) != 0 {
			return errorReply(env.responseID(), invalid("eth_accounts takes no parameters"))
		}
	}
	addrs := s.keys.Accounts()
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = "0x" + hex.EncodeToString(a[:])
	}
	return resultReply(env.responseID(), out)
}

// ethSignTransaction answers eth_signTransaction [tx]: the signed raw
// transaction, not sent. The nonce is required (EthSigner 20.10).
func (s *Server) ethSignTransaction(_ context.Context, _ *http.Request, env *envelope) *reply {
	id := env.responseID()
	args, e := parseTx(env.Params, s.chainID, false)
	if e != nil {
		return errorReply(id, e)
	}
	if args.goquorum {
		// Signing one means storing its payload with the privacy manager,
		// which a call that only signs must not do.
		return errorReply(id, invalid("privateFor is not supported by eth_signTransaction: send GoQuorum private transactions with eth_sendTransaction"))
	}
	if args.nonce == nil {
		return errorReply(id, invalid("nonce is required by eth_signTransaction"))
	}
	// Like the nonce, the fees are not asked of the node: the spec's
	// default gasPrice 0 stands.
	if e := args.defaultFees("eth_signTransaction"); e != nil {
		return errorReply(id, e)
	}
	key, ok := s.keys.Key(args.from)
	if !ok {
		return errorReply(id, ErrNoUnlockedAccount)
	}
	raw, _, err := s.signEth(key, args, *args.nonce)
	if err != nil {
		s.log.Error("eth_signTransaction failed", "from", args.from.Hex(), "err", err)
		return errorReply(id, rpctypes.ErrInternal)
	}
	return resultReply(id, hexutil.Bytes(raw))
}
