package api

import (
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpctypes"
)

// Web3 is the WEB3 method group.
type Web3 struct{ b *backend.Backend }

// ClientVersion is web3_clientVersion: basalt/<version>.
func (w *Web3) ClientVersion() string { return w.b.Config.ClientVersion }

// Sha3 is Keccak-256, not the standardised SHA3-256, of 0x-prefixed hex
// data (the empty string hashes no data, as in Besu).
func (w *Web3) Sha3(data string) (hexutil.Bytes, error) {
	if data != "" && !strings.HasPrefix(data, "0x") {
		return nil, rpctypes.ErrInvalidDataParams
	}
	b, err := evenHex(data)
	if err != nil {
		return nil, rpctypes.ErrInvalidDataParams
	}
	return crypto.Keccak256(b), nil
}
