// Package cborlimit builds the bounded CBOR decode mode that the privacy
// manager's payload formats (Orion's in ptm/payload, Tessera's in
// ptm/tesserapayload) read peer and store input with. The bounds are one
// decision, so they live in one place; each format only says how deep its
// own maps nest. It imports no Basalt package, so either format can use it
// without importing the other.
package cborlimit

import (
	"reflect"

	"github.com/fxamacker/cbor/v2"
)

// MaxElements bounds every decoded array and map, so a small hostile
// message cannot make the decoder allocate much: the lists of these formats
// are keys, recipients or nodes, far below this count in practice.
const MaxElements = 1 << 16

// DecMode returns a decode mode that accepts at most maxNesting levels of
// arrays and maps and MaxElements entries in each, allows indefinite
// lengths (Jackson-CBOR writes them) and decodes untyped maps as
// map[string]any. It panics when the options are invalid, which only a
// programming error (a nesting bound out of the library's range) can cause;
// callers build their mode once at start-up.
func DecMode(maxNesting int) cbor.DecMode {
	m, err := cbor.DecOptions{
		MaxNestedLevels:  maxNesting,
		MaxArrayElements: MaxElements,
		MaxMapPairs:      MaxElements,
		IndefLength:      cbor.IndefLengthAllowed,
		DefaultMapType:   reflect.TypeOf(map[string]any{}),
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}
