package api

import (
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// Web3 is the WEB3 method group.
type Web3 struct{ b *Backend }

func (w *Web3) ClientVersion() string { return w.b.ClientVersion }

// Sha3 is Keccak-256, not the standardised SHA3-256.
func (w *Web3) Sha3(data hexutil.Bytes) hexutil.Bytes { return crypto.Keccak256(data) }
