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
	"github.com/basaltchain/basalt/ptm/groupid"
)

// Pool is what the service needs from the transaction pool.
type Pool interface {
	// AddLocalDeferred pools tx as a local transaction and returns the
	// wait that makes it durable (on a node with a transaction journal,
	// until the journal holds it; the transaction leaves the pool again if
	// that fails). A marker is acknowledged only after the wait, and the
	// wait runs outside the service's locks.
	AddLocalDeferred(tx *types.Transaction) (durable func() error, err error)
	// PendingNonce is addr's next nonce counting its pooled transactions.
	PendingNonce(addr common.Address) uint64
	// Has reports whether the transaction with hash h is pooled.
	Has(h common.Hash) bool
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
	lanes    *lanes     // private transactions pooled, per sender and group (pending.go)
	feed     feed
}

// New returns the privacy service of chain c, whose block hook is proc
// (given to chain.Open): the service reads the private state proc keeps
// and asks proc's manager.
func New(cfg Config, c *chain.Chain, pool Pool, proc *Processor, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	s := &Service{cfg: cfg, chain: c, pool: pool, store: proc.store, enclave: proc.enclave, log: log, proc: proc}
	s.lanes = newLanes(func(h common.Hash) bool { return s.pool.Has(h) })
	return s
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
// returns (reference §8.3). The nonce must be the sender's pending private
// nonce in the group (pending.go); from that check until the marker is
// pooled the sender's other submissions to the group wait, so that markers
// are pooled in nonce order. The answer waits until the marker is as
// durable as a transaction from eth_sendRawTransaction.
func (s *Service) SendRaw(ctx context.Context, raw []byte, enclaveKey string) (common.Hash, error) {
	tx, k, err := s.decode(raw)
	if err != nil {
		return common.Hash{}, err
	}
	hash, durable, err := s.sendInLane(ctx, tx, raw, k, enclaveKey)
	if err != nil {
		return common.Hash{}, err
	}
	if err := durable(); err != nil {
		return common.Hash{}, err
	}
	return hash, nil
}

// sendInLane is SendRaw's part under k's lane: the nonce and privateFrom
// checks, the distribution and the pooled marker.
func (s *Service) sendInLane(ctx context.Context, tx *privtx.Transaction, raw []byte, k laneKey, enclaveKey string) (common.Hash, func() error, error) {
	l := s.lanes.acquire(k)
	defer s.lanes.release(k, l)
	if err := s.check(tx, k, enclaveKey); err != nil {
		return common.Hash{}, nil, err
	}
	key, err := s.distribute(ctx, tx, raw, enclaveKey)
	if err != nil {
		return common.Hash{}, nil, err
	}
	hash, durable, err := s.submitMarker(l, tx, key)
	if err != nil {
		return common.Hash{}, nil, err
	}
	s.lanes.record(k, l, tx.Nonce, hash)
	return hash, durable, nil
}

// Distribute is priv_distributeRawTransaction: SendRaw's validation and
// distribution, without a marker; it returns the manager's key.
func (s *Service) Distribute(ctx context.Context, raw []byte, enclaveKey string) ([]byte, error) {
	tx, k, err := s.decode(raw)
	if err != nil {
		return nil, err
	}
	if err := s.check(tx, k, enclaveKey); err != nil {
		return nil, err
	}
	return s.distribute(ctx, tx, raw, enclaveKey)
}

// decode decodes raw and runs the checks of Besu's order (reference §8.2)
// that come before the nonce; it returns the transaction and its lane.
func (s *Service) decode(raw []byte) (*privtx.Transaction, laneKey, error) {
	tx, err := privtx.Decode(raw)
	if err != nil {
		return nil, laneKey{}, ErrDecode
	}
	if tx.Value != nil && tx.Value.Sign() != 0 {
		return nil, laneKey{}, ErrValueNotZero
	}
	if tx.Restriction != privtx.Restricted {
		return nil, laneKey{}, ErrUnsupportedType
	}
	if id := tx.ChainID(); id != nil {
		own := s.chain.Config().ChainID
		if own == nil {
			return nil, laneKey{}, ErrChainIDNotSupported
		}
		if id.Cmp(own) != 0 {
			return nil, laneKey{}, ErrWrongChainID
		}
	}
	sender, err := tx.Sender()
	if err != nil {
		return nil, laneKey{}, ErrInvalidSignature
	}
	group, err := GroupOf(tx)
	if err != nil {
		return nil, laneKey{}, ErrDecode
	}
	return tx, laneKey{group: group, sender: sender}, nil
}

// check runs the rest of Besu's checks: the nonce against the pending
// private nonce of k, then privateFrom.
func (s *Service) check(tx *privtx.Transaction, k laneKey, enclaveKey string) error {
	nonce, err := s.pendingNonce(k)
	if err != nil {
		return err
	}
	switch {
	case tx.Nonce < nonce:
		return ErrNonceTooLow
	case tx.Nonce > nonce:
		return ErrNonceTooHigh
	}
	if base64.StdEncoding.EncodeToString(tx.PrivateFrom) != enclaveKey {
		return ErrPrivateFromMismatch
	}
	return nil
}

// pendingNonce is k's pending private nonce: its nonce at the chain head
// plus the private transactions pooled after it (pending.go).
func (s *Service) pendingNonce(k laneKey) (uint64, error) {
	head, err := s.nonceAt(s.chain.CurrentHash(), k.group, k.sender)
	if err != nil {
		return 0, err
	}
	return s.lanes.next(k, head), nil
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
	members := make([][32]byte, 0, len(to)+1)
	for _, k := range append([][]byte{from}, to...) {
		if len(k) != 32 {
			return common.Hash{}, ErrInvalidParams
		}
		members = append(members, [32]byte(k))
	}
	return common.Hash(groupid.ID(members, nil)), nil
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
// and limit copied) and pools it, returning its hash and the wait that
// makes it durable. The signer is the configured marker key, else the key
// of tx's lane l: a fresh one unless the lane has markers pooled, so that
// consecutive markers of a lane keep their order (pending.go). Either
// signs at its pending nonce from the pool.
func (s *Service) submitMarker(l *lane, tx *privtx.Transaction, key []byte) (common.Hash, func() error, error) {
	k := s.cfg.MarkerKey
	if k != nil {
		// One key for every lane: its nonce is taken and used under one lock.
		s.markerMu.Lock()
		defer s.markerMu.Unlock()
	} else {
		var err error
		if k, err = s.lanes.markerKey(l, crypto.GenerateKey); err != nil {
			return common.Hash{}, nil, err
		}
	}
	price := tx.GasPrice
	if price == nil {
		price = new(big.Int)
	}
	to := s.cfg.Address
	pmt, err := types.SignTx(types.NewTx(&types.LegacyTx{Nonce: s.pool.PendingNonce(crypto.PubkeyToAddress(k.PublicKey)),
		GasPrice: price, Gas: tx.Gas, To: &to, Value: new(big.Int), Data: key}), types.HomesteadSigner{}, k)
	if err != nil {
		return common.Hash{}, nil, err
	}
	durable, err := s.pool.AddLocalDeferred(pmt)
	if err != nil {
		return common.Hash{}, nil, err
	}
	return pmt.Hash(), durable, nil
}

// Recover takes back the lanes of the markers txs holds (the pool's local
// transactions after a restart replayed the journal), asking the manager
// for each one's private transaction, so that the pending private nonces
// count them. Their keys are not known any more: the next marker of such a
// lane is signed by a fresh key (or the configured one).
func (s *Service) Recover(ctx context.Context, txs []*types.Transaction) {
	found := 0
	for _, tx := range txs {
		if !s.proc.IsMarker(tx) {
			continue
		}
		got, err := s.enclave.Receive(ctx, tx.Data())
		if err != nil {
			s.log.Warn("Pooled privacy marker's payload unavailable: its private nonce is not counted", "pmt", tx.Hash().Hex(), "err", err)
			continue
		}
		ptx, err := privtx.Decode(got.Payload)
		if err != nil {
			continue
		}
		sender, err := ptx.Sender()
		if err != nil {
			continue
		}
		group, err := groupHash(got.PrivacyGroupID)
		if err != nil {
			if group, err = GroupOf(ptx); err != nil {
				continue
			}
		}
		s.lanes.record(laneKey{group: group, sender: sender}, nil, ptx.Nonce, tx.Hash())
		found++
	}
	if found > 0 {
		s.log.Info("Pending private transactions recovered", "markers", found)
	}
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

// TransactionCount is priv_getTransactionCount: addr's pending private
// nonce in the group, the one its next eea_sendRawTransaction must carry
// (Besu answers the head's; see pending.go).
func (s *Service) TransactionCount(addr common.Address, groupID string) (uint64, error) {
	group, err := groupHash(groupID)
	if err != nil {
		return 0, ErrNonce
	}
	return s.pendingNonce(laneKey{group: group, sender: addr})
}

// EeaTransactionCount is priv_getEeaTransactionCount: addr's pending
// private nonce in the legacy group of privateFrom and privateFor, which must be sent by
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
	return s.pendingNonce(laneKey{group: group, sender: addr})
}
