// Package payload holds the CBOR formats basalt-privacy stores and pushes to
// its peers, exactly as Orion writes them with Jackson-CBOR, so that stores
// and peers can be shared with Orion:
//
//   - EncryptedPayload: an encrypted private payload with its per-recipient
//     keys, stored under its digest (Digest) and pushed on /push;
//   - PrivacyGroup: a privacy group, stored under its id and pushed on
//     /pushPrivacyGroup;
//   - GroupIndex: the list of groups with exactly a given member set (the
//     membership index behind /findPrivacyGroup).
//
// Maps are written with definite lengths in Orion's field order; decoders
// accept any order, definite or indefinite lengths, and ignore unknown
// fields. Every decoder validates what it returns, so code that holds a
// decoded value need not check its shape again.
package payload

import (
	"errors"
	"fmt"

	"github.com/fxamacker/cbor/v2"

	"github.com/basaltchain/basalt/ptm/cborlimit"
)

// maxNesting bounds how deep decoded CBOR may nest (the element bound is
// cborlimit's): these formats nest a few levels at most.
const maxNesting = 8

var (
	encMode cbor.EncMode
	decMode = cborlimit.DecMode(maxNesting)
)

func init() {
	var err error
	encMode, err = cbor.EncOptions{}.EncMode()
	if err != nil {
		panic(err)
	}
}

// ErrMalformed wraps every decoding and validation failure.
var ErrMalformed = errors.New("malformed CBOR payload")

func malformed(what string, err error) error {
	if err == nil {
		return fmt.Errorf("%w: %s", ErrMalformed, what)
	}
	return fmt.Errorf("%w: %s: %v", ErrMalformed, what, err)
}

// Unmarshal decodes CBOR data into v with the package's limits. It is exported
// for the other CBOR messages of the node API (the party-info table).
func Unmarshal(data []byte, v any) error {
	if err := decMode.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}

// Marshal encodes v as CBOR.
func Marshal(v any) ([]byte, error) { return encMode.Marshal(v) }
