package signer

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/rpc"
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

// ethSign answers eth_sign [address, message]: the signature r ‖ s ‖ v (v
// 27 or 28) of keccak256("\x19Ethereum Signed Message:\n" + len(message) +
// message), go-ethereum's accounts.TextHash. A message starting with 0x is
// hex; any other is taken as UTF-8 text.
func (s *Server) ethSign(_ context.Context, _ *http.Request, env *envelope) *reply {
	id := env.responseID()
	var params []json.RawMessage
	if absent(env.Params) || json.Unmarshal(env.Params, &params) != nil || len(params) != 2 {
		return errorReply(id, invalid("eth_sign takes an address and a message"))
	}
	addr, e := address(params[0], "address")
	if e != nil {
		return errorReply(id, e)
	}
	msg, e := jsonString(params[1], "message")
	if e != nil {
		return errorReply(id, e)
	}
	data := []byte(msg)
	if strings.HasPrefix(msg, "0x") {
		b, err := hex.DecodeString(msg[2:])
		if err != nil {
			return errorReply(id, invalid("message starts with 0x but is not hex"))
		}
		data = b
	}
	key, ok := s.keys.Key(addr)
	if !ok {
		return errorReply(id, ErrNoUnlockedAccount)
	}
	sig, err := key.Sign(accounts.TextHash(data))
	if err != nil {
		s.log.Error("eth_sign failed", "address", addr.Hex(), "err", err)
		return errorReply(id, rpc.ErrInternal)
	}
	sig[64] += 27
	return resultReply(id, hexutil.Bytes(sig))
}

// ethSignTransaction answers eth_signTransaction [tx]: the signed raw
// transaction, not sent. The nonce is required (EthSigner 20.10).
func (s *Server) ethSignTransaction(_ context.Context, _ *http.Request, env *envelope) *reply {
	id := env.responseID()
	args, e := parseTx(env.Params, s.chainID, false)
	if e != nil {
		return errorReply(id, e)
	}
	if args.nonce == nil {
		return errorReply(id, invalid("nonce is required by eth_signTransaction"))
	}
	key, ok := s.keys.Key(args.from)
	if !ok {
		return errorReply(id, ErrNoUnlockedAccount)
	}
	raw, _, err := s.signEth(key, args, *args.nonce)
	if err != nil {
		s.log.Error("eth_signTransaction failed", "from", args.from.Hex(), "err", err)
		return errorReply(id, rpc.ErrInternal)
	}
	return resultReply(id, hexutil.Bytes(raw))
}
