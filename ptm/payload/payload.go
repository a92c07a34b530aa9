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
	"reflect"

	"github.com/fxamacker/cbor/v2"
)

// Limits on decoded CBOR, so a small hostile message cannot make the decoder
// allocate much: every array and map of these formats is a list of keys or
// nodes, far below these counts in practice.
const (
	maxElements = 1 << 16
	maxNesting  = 8
)

var (
	encMode cbor.EncMode
	decMode cbor.DecMode
)

func init() {
	var err error
	encMode, err = cbor.EncOptions{}.EncMode()
	if err != nil {
		panic(err)
	}
	decMode, err = cbor.DecOptions{
		MaxNestedLevels:  maxNesting,
		MaxArrayElements: maxElements,
		MaxMapPairs:      maxElements,
		IndefLength:      cbor.IndefLengthAllowed,
		DefaultMapType:   reflect.TypeOf(map[string]any{}),
	}.DecMode()
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
