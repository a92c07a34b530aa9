// Package privtx encodes, decodes and signs Besu private transactions, the
// payload of eea_sendRawTransaction (reference/privacy.md §8.1):
//
//	[nonce, gasPrice, gasLimit, to, value, data, v, r, s,
//	 privateFrom, privateFor | privacyGroupId, restriction]
//
// to is empty for a contract creation. privateFor is an RLP list of
// 32-byte transaction-manager keys, privacyGroupId a 32-byte string; the
// kind of item 10 tells them apart. restriction is "restricted" or
// "unrestricted". With a chain ID the signature is EIP-155 style: the
// signing hash is keccak256 of
//
//	[nonce, gasPrice, gasLimit, to, value, data, chainId, 0, 0,
//	 privateFrom, privateFor | privacyGroupId, restriction]
//
// (the private fields after the chain-ID triple) and v = recid + 35 +
// 2·chainId; without one it is the same list without the triple and v =
// 27 + recid. Integers, r and s included, are minimal big-endian.
package privtx

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
)

// Restrictions.
const (
	Restricted   = "restricted"
	Unrestricted = "unrestricted"
)

// KeySize is the size of a transaction-manager key and of a privacy group
// ID.
const KeySize = 32

// Transaction is a private transaction.
type Transaction struct {
	Nonce    uint64
	GasPrice *big.Int
	Gas      uint64
	To       *common.Address // nil: contract creation
	Value    *big.Int
	Data     []byte

	V, R, S *big.Int // nil until signed

	PrivateFrom []byte
	// PrivateFor lists the recipients' keys; it is used when
	// PrivacyGroupID is nil.
	PrivateFor     [][]byte
	PrivacyGroupID []byte
	Restriction    string
}

// ChainID returns the chain ID in v, or nil for a signature without one (v
// 27 or 28) or an unsigned transaction.
func (tx *Transaction) ChainID() *big.Int {
	if tx.V == nil || tx.V.Cmp(big.NewInt(35)) < 0 {
		return nil
	}
	id := new(big.Int).Sub(tx.V, big.NewInt(35))
	return id.Rsh(id, 1)
}

// item10 is privateFor (a list) or privacyGroupId (a string).
func (tx *Transaction) item10() any {
	if tx.PrivacyGroupID != nil {
		return tx.PrivacyGroupID
	}
	if tx.PrivateFor == nil {
		return [][]byte{}
	}
	return tx.PrivateFor
}

func (tx *Transaction) to() []byte {
	if tx.To == nil {
		return []byte{}
	}
	return tx.To.Bytes()
}

func orZero(x *big.Int) *big.Int {
	if x == nil {
		return new(big.Int)
	}
	return x
}

// SigningHash is the hash signed for chainID (nil: no chain ID).
func (tx *Transaction) SigningHash(chainID *big.Int) (common.Hash, error) {
	items := []any{tx.Nonce, orZero(tx.GasPrice), tx.Gas, tx.to(), orZero(tx.Value), tx.Data}
	if chainID != nil {
		items = append(items, chainID, uint(0), uint(0))
	}
	items = append(items, tx.PrivateFrom, tx.item10(), []byte(tx.Restriction))
	b, err := rlp.EncodeToBytes(items)
	if err != nil {
		return common.Hash{}, err
	}
	return crypto.Keccak256Hash(b), nil
}

// Sign signs tx for chainID with sign, which returns a 65-byte r ‖ s ‖ recid
// signature of a hash (crypto.Sign's layout), and sets V, R and S.
func (tx *Transaction) Sign(chainID *big.Int, sign func(hash []byte) ([]byte, error)) error {
	if chainID == nil || chainID.Sign() <= 0 {
		return errors.New("privtx: a positive chain ID is required")
	}
	h, err := tx.SigningHash(chainID)
	if err != nil {
		return err
	}
	sig, err := sign(h[:])
	if err != nil {
		return err
	}
	if len(sig) != crypto.SignatureLength || sig[64] > 1 {
		return fmt.Errorf("privtx: bad signature length %d or recovery id", len(sig))
	}
	v := new(big.Int).Lsh(chainID, 1)
	v.Add(v, big.NewInt(35+int64(sig[64])))
	tx.V, tx.R, tx.S = v, new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
	return nil
}

// MarshalBinary returns the RLP encoding of the signed transaction.
func (tx *Transaction) MarshalBinary() ([]byte, error) {
	if tx.V == nil || tx.R == nil || tx.S == nil {
		return nil, errors.New("privtx: transaction is not signed")
	}
	return rlp.EncodeToBytes([]any{
		tx.Nonce, orZero(tx.GasPrice), tx.Gas, tx.to(), orZero(tx.Value), tx.Data,
		tx.V, tx.R, tx.S,
		tx.PrivateFrom, tx.item10(), []byte(tx.Restriction),
	})
}

// Sender recovers the address that signed tx.
func (tx *Transaction) Sender() (common.Address, error) {
	if tx.V == nil || tx.R == nil || tx.S == nil {
		return common.Address{}, errors.New("privtx: transaction is not signed")
	}
	var recid *big.Int
	chainID := tx.ChainID()
	switch {
	case chainID != nil:
		recid = new(big.Int).Sub(tx.V, big.NewInt(35))
		recid.Sub(recid, new(big.Int).Lsh(chainID, 1))
	case tx.V.Cmp(big.NewInt(27)) == 0 || tx.V.Cmp(big.NewInt(28)) == 0:
		recid = new(big.Int).Sub(tx.V, big.NewInt(27))
	default:
		return common.Address{}, fmt.Errorf("privtx: invalid v %v", tx.V)
	}
	if !recid.IsUint64() || recid.Uint64() > 1 ||
		!crypto.ValidateSignatureValues(byte(recid.Uint64()), tx.R, tx.S, true) {
		return common.Address{}, errors.New("privtx: invalid signature values")
	}
	h, err := tx.SigningHash(chainID)
	if err != nil {
		return common.Address{}, err
	}
	sig := make([]byte, crypto.SignatureLength)
	tx.R.FillBytes(sig[:32])
	tx.S.FillBytes(sig[32:64])
	sig[64] = byte(recid.Uint64())
	pub, err := crypto.SigToPub(h[:], sig)
	if err != nil {
		return common.Address{}, fmt.Errorf("privtx: %v", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// Decode parses the RLP of a signed private transaction. It accepts exactly
// the layout above: twelve items, canonical integers, a 0- or 20-byte to,
// 32-byte keys and group ID, a known restriction, and no trailing bytes.
func Decode(b []byte) (*Transaction, error) {
	if _, _, rest, err := rlp.Split(b); err != nil {
		return nil, fmt.Errorf("privtx: %w", err)
	} else if len(rest) > 0 {
		return nil, errors.New("privtx: trailing bytes after the transaction")
	}
	tx, err := decode(rlp.NewStream(bytes.NewReader(b), uint64(len(b))))
	if err != nil {
		return nil, fmt.Errorf("privtx: %w", err)
	}
	return tx, nil
}

func decode(s *rlp.Stream) (*Transaction, error) {
	if _, err := s.List(); err != nil {
		return nil, err
	}
	tx := new(Transaction)
	var err error
	if tx.Nonce, err = s.Uint64(); err != nil {
		return nil, fmt.Errorf("nonce: %w", err)
	}
	if tx.GasPrice, err = s.BigInt(); err != nil {
		return nil, fmt.Errorf("gasPrice: %w", err)
	}
	if tx.Gas, err = s.Uint64(); err != nil {
		return nil, fmt.Errorf("gasLimit: %w", err)
	}
	to, err := s.Bytes()
	switch {
	case err != nil:
		return nil, fmt.Errorf("to: %w", err)
	case len(to) == common.AddressLength:
		a := common.BytesToAddress(to)
		tx.To = &a
	case len(to) != 0:
		return nil, fmt.Errorf("to: %d bytes, want 0 or 20", len(to))
	}
	if tx.Value, err = s.BigInt(); err != nil {
		return nil, fmt.Errorf("value: %w", err)
	}
	if tx.Data, err = s.Bytes(); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	for _, f := range []struct {
		name string
		dst  **big.Int
	}{{"v", &tx.V}, {"r", &tx.R}, {"s", &tx.S}} {
		if *f.dst, err = s.BigInt(); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if tx.PrivateFrom, err = key(s, "privateFrom"); err != nil {
		return nil, err
	}
	kind, _, err := s.Kind()
	if err != nil {
		return nil, fmt.Errorf("privateFor/privacyGroupId: %w", err)
	}
	if kind == rlp.List {
		if _, err := s.List(); err != nil {
			return nil, err
		}
		tx.PrivateFor = [][]byte{}
		for {
			k, err := key(s, "privateFor")
			if err == rlp.EOL {
				break
			}
			if err != nil {
				return nil, err
			}
			tx.PrivateFor = append(tx.PrivateFor, k)
		}
		if err := s.ListEnd(); err != nil {
			return nil, err
		}
	} else if tx.PrivacyGroupID, err = key(s, "privacyGroupId"); err != nil {
		return nil, err
	}
	r, err := s.Bytes()
	if err != nil {
		return nil, fmt.Errorf("restriction: %w", err)
	}
	tx.Restriction = string(r)
	if tx.Restriction != Restricted && tx.Restriction != Unrestricted {
		return nil, fmt.Errorf("restriction %q, want %q or %q", r, Restricted, Unrestricted)
	}
	if err := s.ListEnd(); err != nil {
		return nil, fmt.Errorf("more than 12 items: %w", err)
	}
	return tx, nil
}

// key reads a 32-byte string; at the end of a list it returns rlp.EOL.
func key(s *rlp.Stream, name string) ([]byte, error) {
	b, err := s.Bytes()
	if err == rlp.EOL {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) != KeySize {
		return nil, fmt.Errorf("%s: %d bytes, want %d", name, len(b), KeySize)
	}
	return b, nil
}
