package api

import (
	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/permissioning"
	"github.com/basaltchain/basalt/rpctypes"
)

// Perm is the PERM method group: the local accounts and nodes allowlists.
type Perm struct{ b *backend.Backend }

// permGroup is the PERM group under one naming: the 1.3.x names the API
// documents give (perm_*Whitelist, answering 1.3.x's "whitelist" messages)
// or current Besu's (perm_*Allowlist, answering its "allowlist" messages).
// perm_reloadPermissionsFromFile has one name; it comes with the 1.3.x set.
func permGroup(b *backend.Backend, current bool) rpctypes.Group {
	p := &Perm{b}
	list := []*rpctypes.Error{rpctypes.ErrInvalidParams}
	word, errs := "Whitelist", permErrors(whitelistErrors)
	if current {
		word, errs = "Allowlist", permErrors(allowlistErrors)
	}
	methods := []rpctypes.Method{
		{Name: "perm_addAccountsTo" + word, Fn: p.AddAccounts, ParamErrors: list},
		{Name: "perm_removeAccountsFrom" + word, Fn: p.RemoveAccounts, ParamErrors: list},
		{Name: "perm_getAccounts" + word, Fn: p.Accounts},
		{Name: "perm_addNodesTo" + word, Fn: p.AddNodes, ParamErrors: list},
		{Name: "perm_removeNodesFrom" + word, Fn: p.RemoveNodes, ParamErrors: list},
		{Name: "perm_getNodes" + word, Fn: p.Nodes},
	}
	if !current {
		methods = append(methods, rpctypes.Method{Name: "perm_reloadPermissionsFromFile", Fn: p.Reload})
	}
	return rpctypes.Group{Name: rpctypes.GroupPerm, Errors: errs, Methods: methods}
}

// lists are the backend's allowlists; none enabled when it has none.
func (p *Perm) lists() *permissioning.Allowlists {
	if l := p.b.Permissions; l != nil {
		return l
	}
	return &permissioning.Allowlists{}
}

// AddAccounts is perm_addAccountsToWhitelist. A null list is an empty one
// (Besu's ACCOUNT_WHITELIST_EMPTY_ENTRY).
func (p *Perm) AddAccounts(accounts []string) error { return p.lists().AddAccounts(accounts) }

// RemoveAccounts is perm_removeAccountsFromWhitelist.
func (p *Perm) RemoveAccounts(accounts []string) error { return p.lists().RemoveAccounts(accounts) }

// Accounts is perm_getAccountsWhitelist.
func (p *Perm) Accounts() ([]string, error) { return p.lists().Accounts() }

// AddNodes is perm_addNodesToWhitelist.
func (p *Perm) AddNodes(urls []string) error { return p.lists().AddNodes(urls) }

// RemoveNodes is perm_removeNodesFromWhitelist.
func (p *Perm) RemoveNodes(urls []string) error { return p.lists().RemoveNodes(urls) }

// Nodes is perm_getNodesWhitelist.
func (p *Perm) Nodes() ([]string, error) { return p.lists().Nodes() }

// Reload is perm_reloadPermissionsFromFile.
func (p *Perm) Reload() error { return p.lists().Reload() }

// permErrors maps the allowlists' errors with table, after the backend's
// common mapping for anything else.
func permErrors(table errorTable) func(error) *rpctypes.Error {
	return func(err error) *rpctypes.Error {
		if e := table.lookup(err); e != nil {
			return e
		}
		return jsonrpcError(err)
	}
}

// whitelistErrors are Besu 1.3.x's answers (JsonRpcError), which the
// perm_*Whitelist names give.
var whitelistErrors = errorTable{
	{permissioning.ErrAccountsNotEnabled, rpctypes.NewError(-32000, "Account whitelisting has not been enabled")},
	{permissioning.ErrAccountsEmpty, rpctypes.ErrAccountAllowlistEmptyEntry},
	{permissioning.ErrAccountInvalid, rpctypes.ErrAccountAllowlistInvalidEntry},
	{permissioning.ErrAccountsDuplicated, rpctypes.ErrAccountAllowlistDuplicatedEntry},
	{permissioning.ErrAccountExisting, rpctypes.NewError(-32000, "Cannot add an existing account to whitelist")},
	{permissioning.ErrAccountAbsent, rpctypes.NewError(-32000, "Cannot remove an absent account from whitelist")},
	{permissioning.ErrNodesNotEnabled, rpctypes.NewError(-32000, "Node whitelisting has not been enabled")},
	{permissioning.ErrNodesEmpty, rpctypes.ErrNodeAllowlistEmptyEntry},
	{permissioning.ErrNodeInvalid, rpctypes.ErrNodeAllowlistInvalidEntry},
	{permissioning.ErrNodesDuplicated, rpctypes.ErrNodeAllowlistDuplicatedEntry},
	{permissioning.ErrNodeExisting, rpctypes.NewError(-32000, "Cannot add an existing node to whitelist")},
	{permissioning.ErrNodeAbsent, rpctypes.NewError(-32000, "Cannot remove an absent node from whitelist")},
	{permissioning.ErrFixedNode, rpctypes.NewError(-32000, "Cannot remove a fixed node (bootnode or static node) from whitelist")},
	{permissioning.ErrPersistFailure, rpctypes.NewError(-32000, "Unable to persist changes to whitelist configuration file. Changes reverted")},
	{permissioning.ErrFileSync, rpctypes.NewError(-32000, "The permissioning whitelist configuration file is out of sync.  The changes have been applied, but not persisted to disk")},
	{permissioning.ErrReload, rpctypes.NewError(-32000, "Error reloading permissions file. Please use perm_getAccountsWhitelist and perm_getNodesWhitelist to review the current state of the whitelists")},
	{permissioning.ErrNotEnabled, rpctypes.NewError(-32000, "Node/Account whitelisting has not been enabled")},
	{permissioning.ErrP2PDisabled, rpctypes.ErrP2PDisabled},
}

// allowlistErrors are current Besu's answers (RpcErrorType), which the
// perm_*Allowlist names give.
var allowlistErrors = errorTable{
	{permissioning.ErrAccountsNotEnabled, rpctypes.ErrAccountAllowlistNotEnabled},
	{permissioning.ErrAccountsEmpty, rpctypes.ErrAccountAllowlistEmptyEntry},
	{permissioning.ErrAccountInvalid, rpctypes.ErrAccountAllowlistInvalidEntry},
	{permissioning.ErrAccountsDuplicated, rpctypes.ErrAccountAllowlistDuplicatedEntry},
	{permissioning.ErrAccountExisting, rpctypes.ErrAccountAllowlistExistingEntry},
	{permissioning.ErrAccountAbsent, rpctypes.ErrAccountAllowlistAbsentEntry},
	{permissioning.ErrNodesNotEnabled, rpctypes.ErrNodeAllowlistNotEnabled},
	{permissioning.ErrNodesEmpty, rpctypes.ErrNodeAllowlistEmptyEntry},
	{permissioning.ErrNodeInvalid, rpctypes.ErrNodeAllowlistInvalidEntry},
	{permissioning.ErrNodesDuplicated, rpctypes.ErrNodeAllowlistDuplicatedEntry},
	{permissioning.ErrNodeExisting, rpctypes.ErrNodeAllowlistExistingEntry},
	{permissioning.ErrNodeAbsent, rpctypes.ErrNodeAllowlistMissingEntry},
	{permissioning.ErrFixedNode, rpctypes.ErrNodeAllowlistFixedNodeCannotBeRemoved},
	{permissioning.ErrPersistFailure, rpctypes.ErrAllowlistPersistFailure},
	{permissioning.ErrFileSync, rpctypes.ErrAllowlistFileSync},
	{permissioning.ErrReload, rpctypes.ErrAllowlistReloadError},
	{permissioning.ErrNotEnabled, rpctypes.ErrPermissioningNotEnabled},
	{permissioning.ErrP2PDisabled, rpctypes.ErrP2PDisabled},
}
