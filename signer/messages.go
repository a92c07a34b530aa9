package signer

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/signer/typeddata"
)

// Message signing: eth_sign and personal_sign (EIP-191 personal messages)
// and eth_signTypedData_v4 (EIP-712). None of them reaches the node, and
// each signs only with a key the signer holds: any other address is
// -32000 "No unlocked account matches the Sender" with HTTP 200, as
// EthSigner answers eth_sign. Signatures are r ‖ s ‖ v with v 27 or 28,
// what ethers, web3.js and MetaMask produce and ecrecover expects.

// ethSign answers eth_sign [address, message]: the signature of
// keccak256("\x19Ethereum Signed Message:\n" + len(message) + message),
// go-ethereum's accounts.TextHash. A message starting with 0x is hex; any
// other is taken as UTF-8 text (EthSigner 21.10.0).
func (s *Server) ethSign(_ context.Context, _ *http.Request, env *envelope) *reply {
	id := env.responseID()
	params, ok := paramList(env.Params)
	if !ok || len(params) != 2 {
		return errorReply(id, invalid("eth_sign takes an address and a message"))
	}
	addr, e := address(params[0], "address")
	if e != nil {
		return errorReply(id, e)
	}
	msg, e := messageBytes(params[1])
	if e != nil {
		return errorReply(id, e)
	}
	return s.signDigest(id, "eth_sign", addr, accounts.TextHash(msg))
}

// personalSign answers personal_sign [message, address], what ethers'
// JsonRpcSigner.signMessage and MetaMask send: the same EIP-191 signature
// as eth_sign, with the parameters the other way round. web3.js's
// personal.sign adds a password as a third parameter; the signer's keys
// are unlocked already, so a string or null there is accepted and
// ignored.
func (s *Server) personalSign(_ context.Context, _ *http.Request, env *envelope) *reply {
	id := env.responseID()
	params, ok := paramList(env.Params)
	if !ok || len(params) < 2 || len(params) > 3 {
		return errorReply(id, invalid("personal_sign takes a message and an address (and optionally a password)"))
	}
	msg, e := messageBytes(params[0])
	if e != nil {
		return errorReply(id, e)
	}
	addr, e := address(params[1], "address")
	if e != nil {
		return errorReply(id, e)
	}
	if len(params) == 3 && !absent(params[2]) {
		if _, e := jsonString(params[2], "password"); e != nil {
			return errorReply(id, e)
		}
	}
	return s.signDigest(id, "personal_sign", addr, accounts.TextHash(msg))
}

// signTypedData answers eth_signTypedData_v4 [address, typedData] (and
// eth_signTypedData, Web3Signer's name for it): the signature of the
// EIP-712 digest keccak256("\x19\x01" ‖ domainSeparator ‖
// hashStruct(message)). typedData is the JSON document, as a string (what
// ethers and MetaMask send) or as an object. A domain chainId other than
// the signer's is refused, as MetaMask refuses it: the signer's keys sign
// for one chain, and a signature for another chain's contract (a token
// permit, say) is exactly what the domain's chainId exists to keep apart.
func (s *Server) signTypedData(_ context.Context, _ *http.Request, env *envelope) *reply {
	id := env.responseID()
	method := env.method()
	params, ok := paramList(env.Params)
	if !ok || len(params) != 2 {
		return errorReply(id, invalid("%s takes an address and the typed data", method))
	}
	addr, e := address(params[0], "address")
	if e != nil {
		return errorReply(id, e)
	}
	doc := bytes.TrimSpace(params[1])
	if len(doc) > 0 && doc[0] == '"' {
		var text string
		if json.Unmarshal(doc, &text) != nil {
			return errorReply(id, invalid("typed data must be a JSON object or a string holding one"))
		}
		doc = []byte(text)
	}
	td, err := typeddata.Parse(doc)
	if err != nil {
		return errorReply(id, invalid("typed data: %v", err))
	}
	if td.ChainID != nil && td.ChainID.Cmp(s.chainID) != 0 {
		return errorReply(id, invalid("typed data: domain chainId %s does not match the signer's chain id %s", td.ChainID, s.chainID))
	}
	return s.signDigest(id, method, addr, td.Digest.Bytes())
}

// signDigest signs a 32-byte digest with addr's key and answers with
// r ‖ s ‖ v, v 27 or 28.
func (s *Server) signDigest(id json.RawMessage, method string, addr common.Address, digest []byte) *reply {
	key, ok := s.keys.Key(addr)
	if !ok {
		return errorReply(id, ErrNoUnlockedAccount)
	}
	sig, err := key.Sign(digest)
	if err != nil {
		s.log.Error("Signing a message failed", "method", method, "address", addr.Hex(), "err", err)
		return errorReply(id, rpctypes.ErrInternal)
	}
	sig[64] += 27
	return resultReply(id, hexutil.Bytes(sig))
}

// paramList decodes positional params.
func paramList(raw json.RawMessage) ([]json.RawMessage, bool) {
	var params []json.RawMessage
	if absent(raw) || json.Unmarshal(raw, &params) != nil {
		return nil, false
	}
	return params, true
}

// messageBytes decodes a message to sign: a string starting with 0x is
// hex (what ethers sends, and EthSigner since 21.10.0 reads), any other
// string its UTF-8 bytes.
func messageBytes(raw json.RawMessage) ([]byte, *rpctypes.Error) {
	msg, e := jsonString(raw, "message")
	if e != nil {
		return nil, e
	}
	if !strings.HasPrefix(msg, "0x") {
		return []byte(msg), nil
	}
	b, err := hex.DecodeString(msg[2:])
	if err != nil {
		return nil, invalid("message starts with 0x but is not hex")
	}
	return b, nil
}
