package signer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/privacy/privtx"
	"github.com/basaltchain/basalt/quorumtx"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/signer/keys"
	"github.com/basaltchain/basalt/signer/tessera"
)

// GoQuorum private transactions (eth_sendTransaction with privateFor).
//
// A GoQuorum node that held its users' keys answered eth_sendTransaction
// with privateFor itself: it stored the data with its Tessera, put the
// payload's key in the transaction's data and signed it as a private
// transaction. basalt-signer does the same for a key the node does not
// hold, in the order GoQuorum's own raw-transaction path expects
// (internal/ethapi SendRawPrivateTransaction):
//
//  1. POST /storeraw {payload: data, from: privateFrom} on the Q2T API of
//     the node's privacy manager (--tessera-url): the payload is stored
//     encrypted for its sender only, and its 64-byte key comes back.
//  2. A legacy transaction with that key as data, value 0, signed as
//     GoQuorum signs private transactions (package quorumtx: Homestead
//     hash, V 37/38, no chain ID).
//  3. eth_sendRawPrivateTransaction [raw, {privateFor, privateFrom}] on the
//     node, which reads the payload back from the same manager, has it
//     shared with privateFor (/sendsignedtx) and pools the transaction.
//
// Nonces are the sender's public nonces (a GoQuorum private transaction
// takes one, like any other): eth_getTransactionCount pending, managed and
// retried as for eth_sendTransaction; a retry signs the same stored
// payload again. Fees: legacy only; a missing gasPrice is the node's
// eth_gasPrice (what GoQuorum's own eth_sendTransaction uses); gas
// defaults to 90000, as every send here, because the node cannot estimate
// the private execution (its public state has no private contracts).
//
// Refused, with a message that says so: privacyFlag other than 0 (party
// protection, mandatory recipients, private state validation: the node
// would have to simulate the call, and basalt-privacy serves standard
// private transactions only), mandatoryFor, privacyGroupId (multiple
// private states), a non-zero value (-30200, GoQuorum's and EthSigner's
// "ether value is not supported for private transactions"), EIP-1559 and
// access-list fields, an empty data, and any privateFor at all when no
// --tessera-url is configured.

// ErrEtherValueNotSupported is EthSigner's answer to a GoQuorum private
// transaction with a value (GoQuorum's pool error, as EthSigner codes it).
var ErrEtherValueNotSupported = rpctypes.NewError(-30200, "ether value is not supported for private transactions")

// ErrNoPrivacyManager answers privateFor when the signer has no Q2T API to
// store the payload with.
var ErrNoPrivacyManager = rpctypes.NewError(-32000,
	"GoQuorum private transactions (eth_sendTransaction with privateFor) need the privacy manager's Q2T API: start basalt-signer with --tessera-url")

// Errors of a /storeraw call that got no usable answer.
var (
	ErrPrivacyManagerConnect = rpctypes.NewError(-32000, "Failed to connect to privacy manager")
	ErrPrivacyManagerTimeout = rpctypes.NewError(-32000, "Connection to privacy manager timed out")
	ErrPrivacyManagerRefused = rpctypes.NewError(-32000, "Privacy manager refused to store the private payload")
)

// privacyFlags names GoQuorum's privacy flags (engine.PrivacyFlagType).
var privacyFlags = map[uint64]string{
	1: "party protection",
	2: "mandatory recipients",
	3: "private state validation",
}

// parseGoQuorum checks the fields of an eth_sendTransaction with privateFor.
func (a *txArgs) parseGoQuorum(f *txFields) *rpctypes.Error {
	a.goquorum = true
	a.txType = types.LegacyTxType
	if a.value.Sign() != 0 {
		return ErrEtherValueNotSupported
	}
	for _, pf := range []struct {
		raw  json.RawMessage
		name string
	}{{f.MaxFeePerGas, "maxFeePerGas"}, {f.MaxPriorityFeePerGas, "maxPriorityFeePerGas"}, {f.AccessList, "accessList"}} {
		if !absent(pf.raw) {
			return invalid("%s is not supported: GoQuorum private transactions are legacy transactions", pf.name)
		}
	}
	if !absent(f.Type) {
		if t, err := quantity64(f.Type, "type"); err != nil || t != 0 {
			return invalid("GoQuorum private transactions are legacy transactions (type 0)")
		}
	}
	if len(a.data) == 0 {
		return invalid("data is required: a GoQuorum private transaction carries the key of its stored data")
	}
	if !absent(f.PrivacyFlag) {
		var flag uint64
		if json.Unmarshal(f.PrivacyFlag, &flag) != nil {
			return invalid("privacyFlag must be a number (0: standard private)")
		}
		if flag != 0 {
			name := privacyFlags[flag]
			if name == "" {
				name = "unknown"
			}
			return invalid("privacyFlag %d (%s) is not supported: basalt-signer sends standard private transactions (privacyFlag 0) only", flag, name)
		}
	}
	if !absent(f.MandatoryFor) {
		var list []json.RawMessage
		if json.Unmarshal(f.MandatoryFor, &list) != nil || len(list) > 0 {
			return invalid("mandatoryFor (mandatory recipients) is not supported: basalt-signer sends standard private transactions only")
		}
	}
	if !absent(f.PrivacyGroupID) {
		return invalid("privacyGroupId cannot be combined with privateFor: GoQuorum private transactions name their recipients in privateFor (multiple private states are not supported)")
	}
	if !absent(f.Restriction) {
		r, err := jsonString(f.Restriction, "restriction")
		if err != nil {
			return err
		}
		if r != privtx.Restricted {
			return invalid("restriction must be %q", privtx.Restricted)
		}
	}
	var err *rpctypes.Error
	if !absent(f.PrivateFrom) {
		if a.privateFrom, err = tmKey(f.PrivateFrom, "privateFrom"); err != nil {
			return err
		}
	}
	a.privateFor, err = tmKeys(f.PrivateFor)
	return err
}

// storePrivate stores a GoQuorum private transaction's data with the
// privacy manager and replaces it with the payload's key. On failure it
// returns the reply to the client.
func (s *Server) storePrivate(ctx context.Context, id json.RawMessage, a *txArgs) *reply {
	from := ""
	if a.privateFrom != nil {
		from = base64.StdEncoding.EncodeToString(a.privateFrom)
	}
	key, err := s.tessera.StoreRaw(ctx, a.data, from)
	if err != nil {
		s.log.Warn("Storing a private payload failed", "from", a.from.Hex(), "manager", s.tessera.URL(), "err", err)
		var te *tessera.Error
		if !errors.As(err, &te) {
			return errorReplyStatus(id, rpctypes.ErrInternal.WithReason("storeraw: "+err.Error()), http.StatusInternalServerError)
		}
		switch te.Kind {
		case tessera.Unreachable:
			return errorReplyStatus(id, ErrPrivacyManagerConnect.WithReason(s.tessera.URL()), http.StatusGatewayTimeout)
		case tessera.TimedOut:
			return errorReplyStatus(id, ErrPrivacyManagerTimeout.WithReason(s.tessera.URL()), http.StatusGatewayTimeout)
		case tessera.Refused:
			return errorReply(id, ErrPrivacyManagerRefused.WithReason(te.Error()))
		default:
			return errorReplyStatus(id, rpctypes.ErrInternal.WithReason("the privacy manager's answer to /storeraw is "+te.Error()), http.StatusBadGateway)
		}
	}
	s.log.Debug("Private payload stored", "from", a.from.Hex(), "key", base64.StdEncoding.EncodeToString(key))
	a.data = key
	return nil
}

// signQuorum signs a GoQuorum private transaction with nonce n: legacy,
// Homestead signing hash, V = recovery id + 37.
func signQuorum(key keys.Key, a *txArgs, n uint64) ([]byte, common.Hash, error) {
	unsigned := types.NewTx(&types.LegacyTx{Nonce: n, GasPrice: a.gasPrice, Gas: a.gas, To: a.to, Value: new(big.Int), Data: a.data})
	h := quorumtx.SigningHash(unsigned)
	sig, err := key.Sign(h[:])
	if err != nil {
		return nil, common.Hash{}, err
	}
	if len(sig) != 65 || sig[64] > 1 {
		return nil, common.Hash{}, errors.New("the key returned a malformed signature")
	}
	tx := types.NewTx(&types.LegacyTx{
		Nonce: n, GasPrice: a.gasPrice, Gas: a.gas, To: a.to, Value: new(big.Int), Data: a.data,
		V: big.NewInt(int64(sig[64]) + quorumtx.VBase),
		R: new(big.Int).SetBytes(sig[:32]),
		S: new(big.Int).SetBytes(sig[32:64]),
	})
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, common.Hash{}, err
	}
	return raw, tx.Hash(), nil
}

// rawPrivateArgs is eth_sendRawPrivateTransaction's second parameter, as
// GoQuorum reads it (SendRawTxArgs) and EthSigner sent it.
type rawPrivateArgs struct {
	PrivateFrom string   `json:"privateFrom,omitempty"`
	PrivateFor  []string `json:"privateFor"`
}

func (a *txArgs) rawPrivateArgs() rawPrivateArgs {
	out := rawPrivateArgs{PrivateFor: make([]string, len(a.privateFor))}
	for i, k := range a.privateFor {
		out.PrivateFor[i] = base64.StdEncoding.EncodeToString(k)
	}
	if a.privateFrom != nil {
		out.PrivateFrom = base64.StdEncoding.EncodeToString(a.privateFrom)
	}
	return out
}
