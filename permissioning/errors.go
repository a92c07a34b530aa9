package permissioning

import "errors"

// Errors of the list operations, one per Besu AllowlistOperationResult. The
// JSON-RPC layer maps them to Besu's codes and messages.
var (
	ErrAccountsNotEnabled = errors.New("account allowlist not enabled")
	ErrNodesNotEnabled    = errors.New("node allowlist not enabled")
	ErrNotEnabled         = errors.New("neither allowlist enabled")
	ErrAccountsEmpty      = errors.New("empty list of accounts")
	ErrAccountInvalid     = errors.New("invalid account")
	ErrAccountsDuplicated = errors.New("duplicate accounts")
	ErrAccountExisting    = errors.New("account already on the allowlist")
	ErrAccountAbsent      = errors.New("account not on the allowlist")
	ErrNodesEmpty         = errors.New("empty list of nodes")
	ErrNodeInvalid        = errors.New("invalid node")
	ErrNodesDuplicated    = errors.New("duplicate nodes")
	ErrNodeExisting       = errors.New("node already on the allowlist")
	ErrNodeAbsent         = errors.New("node not on the allowlist")
	ErrFixedNode          = errors.New("a bootnode or static node cannot be removed from the allowlist")
	ErrPersistFailure     = errors.New("allowlist change not persisted; reverted")
	ErrFileSync           = errors.New("permissions file out of sync with the allowlist; change applied, not persisted")
	ErrReload             = errors.New("permissions file invalid; allowlists unchanged")
	ErrP2PDisabled        = errors.New("peer-to-peer networking disabled")
)
