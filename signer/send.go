package signer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/signer/downstream"
	"github.com/basaltchain/basalt/signer/keys"
	"github.com/basaltchain/basalt/signer/nonce"
)

// ethSendTransaction answers eth_sendTransaction: sign, then
// eth_sendRawTransaction on the node.
func (s *Server) ethSendTransaction(ctx context.Context, r *http.Request, env *envelope) *reply {
	return s.send(ctx, r, env, false)
}

// eeaSendTransaction answers eea_sendTransaction: sign a private
// transaction, then eea_sendRawTransaction on the node.
func (s *Server) eeaSendTransaction(ctx context.Context, r *http.Request, env *envelope) *reply {
	return s.send(ctx, r, env, true)
}

// send signs and submits a transaction. Fees the request left out come
// from the node first (fees.go). With a nonce in the request it is
// signed and sent once and the node's answer returned as is. Without one,
// the nonce comes from the node (eth_getTransactionCount pending, or the
// private counts, which a Basalt node gives pending too) through the nonce
// manager; when the node answers Nonce too low, Known transaction or
// Replacement transaction underpriced (or, for a private transaction,
// Nonce too high), the transaction is signed again with a new nonce, up to
// NonceRetries times. A request that got no answer from the
// node is never signed again: the node may have the transaction, and a
// second one with another nonce could move the same value twice.
func (s *Server) send(ctx context.Context, r *http.Request, env *envelope, private bool) *reply {
	id := env.responseID()
	args, e := parseTx(env.Params, s.chainID, private)
	if e != nil {
		return errorReply(id, e)
	}
	if args.goquorum && s.tessera == nil {
		return errorReply(id, ErrNoPrivacyManager)
	}
	key, ok := s.keys.Key(args.from)
	if !ok {
		return errorReplyStatus(id, ErrNoUnlockedAccount, http.StatusBadRequest)
	}
	hdr := callHeader(r)
	// Fees first, while nothing is committed: a client that goes away
	// cancels the lookup, and a failure leaves no nonce taken.
	if !private {
		if rp := s.fillFees(ctx, hdr, id, args); rp != nil {
			return rp
		}
	}
	// A GoQuorum private transaction's data is stored once, before any
	// nonce is taken; retries sign the same key again (goquorum.go).
	if args.goquorum {
		if rp := s.storePrivate(ctx, id, args); rp != nil {
			return rp
		}
	}
	// The transaction is the caller's, not the connection's: once started,
	// finish it (and the nonce bookkeeping) even if the client goes away.
	ctx = context.WithoutCancel(ctx)
	method := "eth_sendRawTransaction"
	switch {
	case private:
		method = "eea_sendRawTransaction"
	case args.goquorum:
		method = "eth_sendRawPrivateTransaction"
	}

	if args.nonce != nil {
		raw, hash, err := s.sign(key, args, *args.nonce)
		if err != nil {
			s.log.Error("Signing failed", "from", args.from.Hex(), "err", err)
			return errorReply(id, rpctypes.ErrInternal)
		}
		resp, err := s.call(ctx, hdr, id, method, sendParams(args, raw)...)
		if err != nil {
			s.log.Warn("Transaction sent without an answer", "from", args.from.Hex(), "nonce", *args.nonce, "hash", hash.Hex(), "err", err)
			return transportReplyTx(id, err, &hash)
		}
		return relayed(resp)
	}

	// Private nonces are managed per account and privacy group, and sent
	// one at a time per group: the node takes a private transaction only
	// at exactly its pending private nonce (it has no queue of future
	// ones), so two in flight at once could reach it out of order.
	// The session begins before the wait for the lock, so that the Key's
	// burst state lasts while calls queue for it.
	seq := nonce.Key{Account: args.from}
	if private {
		seq.Group = args.privateLane()
	}
	sess := s.nonces.Begin(seq)
	defer sess.End()
	if private {
		unlock := s.nonces.Lock(seq)
		defer unlock()
	}
	for attempt := 0; ; attempt++ {
		pending, rp := s.pendingNonce(ctx, hdr, id, args)
		if rp != nil {
			return rp
		}
		n := sess.Next(pending)
		s.log.Debug("Nonce chosen", "from", args.from.Hex(), "pending", pending, "nonce", n, "attempt", attempt)
		raw, hash, err := s.sign(key, args, n)
		if err != nil {
			sess.Settle(nonce.Free)
			s.log.Error("Signing failed", "from", args.from.Hex(), "err", err)
			return errorReply(id, rpctypes.ErrInternal)
		}
		resp, err := s.call(ctx, hdr, id, method, sendParams(args, raw)...)
		if err != nil {
			sess.Settle(nonce.Unknown)
			s.log.Warn("Transaction sent without an answer", "from", args.from.Hex(), "nonce", n, "hash", hash.Hex(), "err", err)
			return transportReplyTx(id, err, &hash)
		}
		outcome, retry, reason := classifySend(resp, private)
		sess.Settle(outcome)
		if !retry {
			if outcome == nonce.Accepted {
				s.log.Debug("Transaction sent", "from", args.from.Hex(), "nonce", n, "hash", hash.Hex())
			}
			return relayed(resp)
		}
		if attempt >= NonceRetries {
			s.log.Warn("Nonce retries exhausted", "from", args.from.Hex(), "last", reason)
			return errorReplyStatus(id, rpctypes.ErrInternal.WithReason("no free nonce after "+
				strconv.Itoa(NonceRetries)+" retries: "+reason), http.StatusBadRequest)
		}
		s.log.Debug("Nonce refused, signing again", "from", args.from.Hex(), "nonce", n, "reason", reason)
		s.metrics.nonceRetries.Inc()
	}
}

// classifySend reads the node's answer to a raw transaction: what became of
// the nonce, whether to retry with another one, and the node's message.
// For a private transaction Nonce too high means the signer's count ran
// ahead of the node's (a pending one left the node's pool unmined, or the
// node restarted): retried from the node's count.
func classifySend(resp *downstream.Response, private bool) (o nonce.Outcome, retry bool, msg string) {
	res, ok := parseResponse(resp.Body)
	if !ok {
		// Not JSON-RPC (a proxy's error page?): the node may or may not
		// have the transaction.
		return nonce.Unknown, false, ""
	}
	if res.Error == nil {
		return nonce.Accepted, false, ""
	}
	msg = res.Error.Message
	m := strings.ToLower(msg)
	switch {
	case strings.HasPrefix(m, "nonce too low"):
		return nonce.Free, true, msg
	case strings.HasPrefix(m, "known transaction"), strings.HasPrefix(m, "already known"),
		strings.HasPrefix(m, "replacement transaction underpriced"):
		return nonce.Occupied, true, msg
	case private && strings.HasPrefix(m, "nonce too high"):
		return nonce.Stale, true, msg
	}
	return nonce.Free, false, msg
}

// sendParams are the params of the raw-transaction call for a.
func sendParams(a *txArgs, raw []byte) []any {
	if a.goquorum {
		return []any{hexutil.Bytes(raw), a.rawPrivateArgs()}
	}
	return []any{hexutil.Bytes(raw)}
}

// relayed answers with the node's response as it came.
func relayed(resp *downstream.Response) *reply {
	return &reply{status: resp.Status, header: resp.Header, body: resp.Body}
}

// callHeader is the header of the signer's own requests to the node on
// behalf of r: the client's (so a JWT reaches the node), but no
// Accept-Encoding, as the signer reads the answers.
func callHeader(r *http.Request) http.Header {
	h := downstream.ForwardHeader(r)
	h.Del("Accept-Encoding")
	h.Set("Content-Type", "application/json")
	return h
}

// call sends a JSON-RPC request to the node.
func (s *Server) call(ctx context.Context, hdr http.Header, id json.RawMessage, method string, params ...any) (*downstream.Response, error) {
	if params == nil {
		params = []any{} // "params":[], not null
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	body := make([]byte, 0, 64+len(method)+len(p)+len(id))
	body = append(body, `{"jsonrpc":"2.0","method":`...)
	body = strconv.AppendQuote(body, method)
	body = append(body, `,"params":`...)
	body = append(body, p...)
	body = append(body, `,"id":`...)
	body = append(body, id...)
	body = append(body, '}')
	return s.ds.Do(ctx, &downstream.Request{Method: http.MethodPost, Path: "/", Header: hdr, Body: body})
}

// pendingNonce asks the node for the sender's next nonce. On failure it
// returns the reply for the client: the node's error as the node gave it
// (with the client's id), or a transport error.
func (s *Server) pendingNonce(ctx context.Context, hdr http.Header, id json.RawMessage, a *txArgs) (uint64, *reply) {
	from := strings.ToLower(a.from.Hex())
	var (
		method string
		params []any
	)
	switch {
	case !a.private:
		method, params = "eth_getTransactionCount", []any{from, "pending"}
	case a.privacyGroupID != nil:
		method, params = "priv_getTransactionCount", []any{from, base64.StdEncoding.EncodeToString(a.privacyGroupID)}
	default:
		to := make([]string, len(a.privateFor))
		for i, k := range a.privateFor {
			to[i] = base64.StdEncoding.EncodeToString(k)
		}
		method, params = "priv_getEeaTransactionCount", []any{from, base64.StdEncoding.EncodeToString(a.privateFrom), to}
	}
	res, rp := s.ask(ctx, hdr, id, "", method, params...)
	if rp != nil {
		return 0, rp
	}
	var q string
	if json.Unmarshal(res, &q) == nil {
		if n, ok := parseQuantity(q); ok && n.IsUint64() {
			return n.Uint64(), nil
		}
	}
	return 0, badAnswer(id, method, "not a nonce", res)
}

// sign signs the transaction with nonce n and returns its encoding and
// hash.
func (s *Server) sign(key keys.Key, a *txArgs, n uint64) ([]byte, common.Hash, error) {
	if a.goquorum {
		return signQuorum(key, a, n)
	}
	if !a.private {
		return s.signEth(key, a, n)
	}
	tx := a.privateTx(n)
	if err := tx.Sign(s.chainID, key.Sign); err != nil {
		return nil, common.Hash{}, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, common.Hash{}, err
	}
	return raw, crypto.Keccak256Hash(raw), nil
}

// signEth signs a public transaction with nonce n.
func (s *Server) signEth(key keys.Key, a *txArgs, n uint64) ([]byte, common.Hash, error) {
	tx := a.ethTx(s.chainID, n)
	sig, err := key.Sign(s.txSigner.Hash(tx).Bytes())
	if err != nil {
		return nil, common.Hash{}, err
	}
	signed, err := tx.WithSignature(s.txSigner, sig)
	if err != nil {
		return nil, common.Hash{}, err
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return nil, common.Hash{}, err
	}
	return raw, signed.Hash(), nil
}
