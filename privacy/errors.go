package privacy

import (
	"errors"
	"fmt"
)

// The privacy service's domain errors. The texts are Besu's messages
// (reference/privacy.md §10.1); the JSON-RPC front end maps them to their
// codes (api/priv.go).
var (
	// ErrDisabled is a privacy method called on a node without
	// --privacy-enabled.
	ErrDisabled = errors.New("Privacy is not enabled")
	// ErrDecode is a raw private transaction that does not decode.
	ErrDecode = errors.New("Unable to decode the private signed raw transaction")
	// ErrValueNotZero is a private transaction with a value.
	ErrValueNotZero = errors.New("We cannot transfer ether in private transaction yet.")
	// ErrUnsupportedType is a restriction other than "restricted".
	ErrUnsupportedType = errors.New("Unsupported private transaction type")
	// ErrWrongChainID is a signature for another chain.
	ErrWrongChainID = errors.New("Wrong chainId")
	// ErrChainIDNotSupported is a chain ID on a chain without one.
	ErrChainIDNotSupported = errors.New("ChainId not supported")
	// ErrInvalidSignature is a signature that recovers no sender.
	ErrInvalidSignature = errors.New("Invalid signature")
	// ErrNonceTooLow is a nonce below the sender's private nonce.
	ErrNonceTooLow = errors.New("Nonce too low")
	// ErrNonceTooHigh is a nonce above the sender's private nonce.
	ErrNonceTooHigh = errors.New("Nonce too high")
	// ErrPrivateFromMismatch is a privateFrom other than the node's (or the
	// tenant's) key.
	ErrPrivateFromMismatch = errors.New("Private from does not match enclave public key")
	// ErrEnclave is a manager that cannot be reached or answers nonsense.
	ErrEnclave = errors.New("Error communicating with enclave")
	// ErrCreateGroup, ErrDeleteGroup and ErrFindGroup are failed group
	// operations.
	ErrCreateGroup = errors.New("Error creating privacy group")
	ErrDeleteGroup = errors.New("Error deleting privacy group")
	ErrFindGroup   = errors.New("Error finding privacy group")
	// ErrNonce is a private nonce that cannot be read.
	ErrNonce = errors.New("Unable to determine nonce for account in group.")
	// ErrGroupNotFound is a privacyGroupId the manager does not know.
	ErrGroupNotFound = errors.New("Privacy group does not exist.")
	// ErrNoTenant is a multi-tenant request without a privacyPublicKey
	// claim.
	ErrNoTenant = errors.New("Unauthorized")
	// ErrInvalidParams is a parameter the service refuses.
	ErrInvalidParams = errors.New("Invalid params")
)

// EnclaveError is the manager's refusal of a request, with its Orion code
// (answered as -50200 with the code as the message).
type EnclaveError struct {
	Code string
}

func (e *EnclaveError) Error() string { return fmt.Sprintf("privacy manager: %s", e.Code) }
