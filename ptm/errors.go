// Package ptm holds what the parts of basalt-privacy — Basalt's
// Orion-compatible private transaction manager — share: the Orion error codes
// that cross its APIs. The parts themselves live in sub-packages:
//
//	keys       Curve25519 key pairs and Orion's .pub/.key files
//	payload    the CBOR wire and storage formats (encrypted payloads, privacy groups)
//	enclave    NaCl encryption of payloads and privacy group ids
//	storage    key-value stores: memory, Pebble, PostgreSQL
//	discovery  the node table and /partyinfo polling
//	manager    send, receive and privacy groups over the parts above
//	nodeapi    the node-to-node HTTP API and its client
//	clientapi  the client HTTP API used by the Ethereum node
//	q2tapi     Tessera's Q2T HTTP API, for GoQuorum nodes
//	config     the Orion-style TOML configuration
//	instance   a running basalt-privacy assembled from a Config
package ptm

import (
	"errors"
	"fmt"
)

// Code is an Orion error code, the string a failed API call returns in
// {"error":"<code>"}. The values are Orion's OrionErrorCode strings, which
// Besu matches literally.
type Code string

// Orion's error codes (OrionErrorCode), plus Basalt's own, for checks Orion
// does not make: PayloadTooLarge (a body over the configured limit),
// DeletePrivacyGroupShouldIncludeSelf (a /deletePrivacyGroup whose from is
// not a member), PrivacyGroupNotFromMember (a pushed group not
// authenticated by a member), Unauthorized and Forbidden (client API
// authentication).
const (
	Unmapped                            Code = "0x000000F"
	NodeMissingPeerURL                  Code = "NodeMissingPeerUrl"
	NodePushingToPeer                   Code = "NodePushingToPeer"
	NodePropagatingToAllPeers           Code = "NodePropagatingToAllPeers"
	NoSenderKey                         Code = "NoSenderKey"
	InvalidPayload                      Code = "InvalidPayload"
	ObjectJSONDeserialization           Code = "ObjectJsonDeserialization"
	ObjectJSONSerialization             Code = "ObjectJsonSerialization"
	ObjectUnsupportedType               Code = "ObjectUnsupportedType"
	EnclaveCreateKeyPair                Code = "EnclaveCreateKeyPair"
	EnclaveDecodePublicKey              Code = "EnclaveDecodePublicKey"
	EnclaveDecryptWrongPrivateKey       Code = "EnclaveDecryptWrongPrivateKey"
	EnclaveEncryptCombineKeys           Code = "EnclaveEncryptCombineKeys"
	EnclaveMissingPrivateKeyPasswords   Code = "EnclaveMissingPrivateKeyPasswords"
	EnclaveNoMatchingPrivateKey         Code = "EnclaveNoMatchingPrivateKey"
	EnclaveNotPayloadOwner              Code = "EnclaveNotPayloadOwner"
	EnclaveUnsupportedPrivateKeyType    Code = "EnclaveUnsupportedPrivateKeyType"
	EnclaveStorageDecrypt               Code = "EnclaveStorageDecrypt"
	EnclavePrivacyGroupIDCreation       Code = "EnclavePrivacyGroupIdCreation"
	EnclavePayloadNotFound              Code = "EnclavePayloadNotFound"
	EnclaveKeysCannotDecryptPayload     Code = "EnclaveKeysCannotDecryptPayload"
	PrivacyGroupNotStored               Code = "PrivacyGroupNotStored"
	PrivacyGroupNotDeleted              Code = "PrivacyGroupNotDeleted"
	PrivacyGroupNotPushed               Code = "PrivacyGroupNotPushed"
	PrivacyGroupNotFound                Code = "PrivacyGroupNotFound"
	PrivacyGroupQueryError              Code = "PrivacyGroupQueryError"
	MethodUnimplemented                 Code = "MethodUnimplemented"
	CreatePrivacyGroupShouldIncludeSelf Code = "CreatePrivacyGroupShouldIncludeSelf"
	CreateGroupInvalidParams            Code = "CreateGroupInvalidParams"
	PayloadTooLarge                     Code = "PayloadTooLarge"
	DeletePrivacyGroupShouldIncludeSelf Code = "DeletePrivacyGroupShouldIncludeSelf"
	PrivacyGroupNotFromMember           Code = "PrivacyGroupNotFromMember"
	Unauthorized                        Code = "Unauthorized"
	Forbidden                           Code = "Forbidden"
)

// Error is a failure with an Orion code. Err, when set, says what went wrong
// for the logs; only the code reaches API callers.
type Error struct {
	Code Code
	Err  error
}

// Error returns the code and, when set, the cause.
func (e *Error) Error() string {
	if e.Err == nil {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with code and a message formatted like fmt.Errorf
// (so %w wraps).
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// Wrap returns an *Error with code around err.
func Wrap(code Code, err error) *Error { return &Error{Code: code, Err: err} }

// CodeOf returns the code of the first *Error in err's chain, or Unmapped.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Unmapped
}
