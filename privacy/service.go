// Package privacy is the node side of private transactions (Besu's EEA
// privacy, reference/privacy.md §8–§10): the Service behind the EEA and
// PRIV JSON-RPC methods, the privacy precompile, and the Processor that
// executes the private transactions of inserted blocks on the private
// state (package privstate). The manager client is package enclave, the
// private transaction codec package privtx.
package privacy

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"errors"
	"log/slog"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/privacy/enclave"
	"github.com/basaltchain/basalt/privacy/privstate"
	"github.com/basaltchain/basalt/privacy/privtx"
	ptmenclave "github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
)

// Pool is what the service needs from the transaction pool.
type Pool interface {
	AddLocal(tx *types.Transaction) error
	PendingNonce(addr common.Address) uint64
}

// Config configures a Service.
type Config struct {
	// Address is the privacy precompile's (--privacy-precompiled-address).
	Address common.Address
	// NodeKey is the node's key at the manager (Base64); "" with
	// MultiTenancy.
	NodeKey string
	// MultiTenancy takes each request's key from its caller.
	MultiTenancy bool
	// MarkerKey signs the privacy marker transactions; nil signs each with
	// a fresh key.
	MarkerKey *ecdsa.PrivateKey
	// NonceAlwaysIncrements bumps the private nonce of failed private
	// transactions too.
	NonceAlwaysIncrements bool
}

// Service is the node's privacy service.
type Service struct {
	cfg     Config
	chain   *chain.Chain
	pool    Pool
	store   *privstate.Store
	enclave *enclave.Client
	proc    *Processor
	log     *slog.Logger

	markerMu sync.Mutex // a marker's pending nonce until it is pooled
	feed     feed
}

// New returns the privacy service of chain c, which keeps its private
// state in c's database. The caller installs Processor as c's BlockHook.
func New(cfg Config, c *chain.Chain, pool Pool, client *enclave.Client, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	store := privstate.Open(c.Database())
	return &Service{cfg: cfg, chain: c, pool: pool, store: store, enclave: client, log: log,
		proc: NewProcessor(c, store, client, cfg.Address, cfg.NonceAlwaysIncrements, log)}
}

// Processor is the chain's BlockHook that executes private transactions.
func (s *Service) Processor() *Processor { return s.proc }

// PrecompileAddress is the privacy precompile's address.
func (s *Service) PrecompileAddress() common.Address { return s.cfg.Address }

// EnclaveKey is the key a request acts for: the node's, or with
// multi-tenancy the caller's privacyPublicKey claim (tenant).
func (s *Service) EnclaveKey(tenant string) (string, error) {
	if !s.cfg.MultiTenancy {
		return s.cfg.NodeKey, nil
	}
	if tenant == "" {
		return "", ErrNoTenant
	}
	return tenant, nil
}

// SendRaw is eea_sendRawTransaction: it validates the signed private
// transaction raw, has the manager store and distribute it, and pools a
// privacy marker transaction carrying the manager's key, whose hash it
// returns (reference §8.3).
func (s *Service) SendRaw(ctx context.Context, raw []byte, enclaveKey string) (common.Hash, error) {
	tx, err := s.validate(raw, enclaveKey)
	if err != nil {
		return common.Hash{}, err
	}
	key, err := s.distribute(ctx, tx, raw, enclaveKey)
	if err != nil {
		return common.Hash{}, err
	}
	return s.submitMarker(tx, key)
}

// Distribute is priv_distributeRawTransaction: SendRaw's validation and
// distribution, without a marker; it returns the manager's key.
func (s *Service) Distribute(ctx context.Context, raw []byte, enclaveKey string) ([]byte, error) {
	tx, err := s.validate(raw, enclaveKey)
	if err != nil {
		return nil, err
	}
	return s.distribute(ctx, tx, raw, enclaveKey)
}

// validate decodes raw and checks it in Besu's order (reference §8.2).
func (s *Service) validate(raw []byte, enclaveKey string) (*privtx.Transaction, error) {
	tx, err := privtx.Decode(raw)
	if err != nil {
		return nil, ErrDecode
	}
	if tx.Value != nil && tx.Value.Sign() != 0 {
		return nil, ErrValueNotZero
	}
	if tx.Restriction != privtx.Restricted {
		return nil, ErrUnsupportedType
	}
	if id := tx.ChainID(); id != nil {
		own := s.chain.Config().ChainID
		if own == nil {
			return nil, ErrChainIDNotSupported
		}
		if id.Cmp(own) != 0 {
			return nil, ErrWrongChainID
		}
	}
	sender, err := tx.Sender()
	if err != nil {
		return nil, ErrInvalidSignature
	}
	group, err := GroupOf(tx)
	if err != nil {
		return nil, ErrDecode
	}
	nonce, err := s.nonceAt(s.chain.CurrentHash(), group, sender)
	if err != nil {
		return nil, err
	}
	switch {
	case tx.Nonce < nonce:
		return nil, ErrNonceTooLow
	case tx.Nonce > nonce:
		return nil, ErrNonceTooHigh
	}
	if base64.StdEncoding.EncodeToString(tx.PrivateFrom) != enclaveKey {
		return nil, ErrPrivateFromMismatch
	}
	return tx, nil
}

// GroupOf is the privacy group a private transaction's nonce counts in:
// its privacyGroupId, or the legacy group of privateFrom and privateFor
// (reference §6.1).
func GroupOf(tx *privtx.Transaction) (common.Hash, error) {
	if tx.PrivacyGroupID != nil {
		return common.BytesToHash(tx.PrivacyGroupID), nil
	}
	return LegacyGroup(tx.PrivateFrom, tx.PrivateFor)
}

// LegacyGroup is the legacy privacy group ID of from and for.
func LegacyGroup(from []byte, to [][]byte) (common.Hash, error) {
	members := make([]keys.PublicKey, 0, len(to)+1)
	for _, k := range append([][]byte{from}, to...) {
		if len(k) != len(keys.PublicKey{}) {
			return common.Hash{}, ErrInvalidParams
		}
		members = append(members, keys.PublicKey(k))
	}
	return common.Hash(ptmenclave.GroupID(members, nil, payload.Legacy)), nil
}

// distribute sends raw to the manager: to privateFor (legacy), or to the
// group's members after checking the group exists and is not flexible.
func (s *Service) distribute(ctx context.Context, tx *privtx.Transaction, raw []byte, enclaveKey string) ([]byte, error) {
	var (
		key []byte
		err error
	)
	if tx.PrivacyGroupID != nil {
		id := base64.StdEncoding.EncodeToString(tx.PrivacyGroupID)
		g, gerr := s.enclave.RetrievePrivacyGroup(ctx, id)
		switch {
		case enclave.IsNotOurs(gerr):
			return nil, ErrGroupNotFound
		case gerr != nil:
			return nil, enclaveErr(gerr)
		case g.Type != "PANTHEON":
			return nil, ErrGroupNotFound
		}
		key, err = s.enclave.SendToGroup(ctx, raw, base64.StdEncoding.EncodeToString(tx.PrivateFrom), id)
	} else {
		to := make([]string, len(tx.PrivateFor))
		for i, k := range tx.PrivateFor {
			to[i] = base64.StdEncoding.EncodeToString(k)
		}
		key, err = s.enclave.Send(ctx, raw, base64.StdEncoding.EncodeToString(tx.PrivateFrom), to)
	}
	if err != nil {
		return nil, enclaveErr(err)
	}
	return key, nil
}

// enclaveErr maps a manager failure: its refusal keeps its code, anything
// else is "Error communicating with enclave".
func enclaveErr(err error) error {
	if code := enclave.Code(err); code != "" {
		return &EnclaveError{Code: code}
	}
	return errors.Join(ErrEnclave, err)
}

// submitMarker signs the privacy marker transaction for tx (a legacy
// transaction without chain ID to the precompile, data = key, gas price
// and limit copied) and pools it.
func (s *Service) submitMarker(tx *privtx.Transaction, key []byte) (common.Hash, error) {
	signer := types.HomesteadSigner{}
	build := func(nonce uint64, k *ecdsa.PrivateKey) (*types.Transaction, error) {
		price := tx.GasPrice
		if price == nil {
			price = new(big.Int)
		}
		to := s.cfg.Address
		return types.SignTx(types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: tx.Gas, To: &to,
			Value: new(big.Int), Data: key}), signer, k)
	}
	if s.cfg.MarkerKey == nil {
		k, err := crypto.GenerateKey()
		if err != nil {
			return common.Hash{}, err
		}
		pmt, err := build(0, k)
		if err != nil {
			return common.Hash{}, err
		}
		return pmt.Hash(), s.pool.AddLocal(pmt)
	}
	s.markerMu.Lock()
	defer s.markerMu.Unlock()
	pmt, err := build(s.pool.PendingNonce(crypto.PubkeyToAddress(s.cfg.MarkerKey.PublicKey)), s.cfg.MarkerKey)
	if err != nil {
		return common.Hash{}, err
	}
	return pmt.Hash(), s.pool.AddLocal(pmt)
}

// nonceAt is sender's private nonce in group after the block with the
// given hash.
func (s *Service) nonceAt(block common.Hash, group common.Hash, sender common.Address) (uint64, error) {
	st, err := s.groupState(block, group)
	if err != nil {
		return 0, ErrNonce
	}
	return st.GetNonce(sender), nil
}

// groupState opens group's private state after the block with the given
// hash.
func (s *Service) groupState(block, group common.Hash) (*state.StateDB, error) {
	rec, err := s.store.Roots(block)
	if err != nil {
		return nil, err
	}
	return s.store.StateAt(rec.Root(group))
}

// DecodeGroupID decodes a Base64 privacy group ID.
func DecodeGroupID(id string) (common.Hash, error) { return groupHash(id) }

// TransactionCount is priv_getTransactionCount: addr's private nonce in
// the group at the head.
func (s *Service) TransactionCount(addr common.Address, groupID string) (uint64, error) {
	group, err := groupHash(groupID)
	if err != nil {
		return 0, ErrNonce
	}
	return s.nonceAt(s.chain.CurrentHash(), group, addr)
}

// EeaTransactionCount is priv_getEeaTransactionCount: addr's private nonce
// in the legacy group of privateFrom and privateFor, which must be sent by
// this node's key (later Besu).
func (s *Service) EeaTransactionCount(addr common.Address, privateFrom string, privateFor []string, enclaveKey string) (uint64, error) {
	if privateFrom != enclaveKey {
		return 0, ErrPrivateFromMismatch
	}
	from, err := base64.StdEncoding.DecodeString(privateFrom)
	if err != nil {
		return 0, ErrNonce
	}
	var to [][]byte
	for _, k := range privateFor {
		b, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			return 0, ErrNonce
		}
		to = append(to, b)
	}
	group, err := LegacyGroup(from, to)
	if err != nil {
		return 0, ErrNonce
	}
	return s.nonceAt(s.chain.CurrentHash(), group, addr)
}
