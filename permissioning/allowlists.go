package permissioning

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/p2p/enode"
)

// Checker is what the transaction pool, the block builder and the
// peer-to-peer service ask. Both answers are true for a list that is not
// enabled. It is safe for concurrent use and does not block on changes.
type Checker interface {
	// AccountPermitted reports whether addr may send transactions.
	AccountPermitted(addr common.Address) bool
	// NodePermitted reports whether the node with id at ip, listening on
	// port, may be a peer; port 0 means the listening port is unknown (an
	// inbound connection), and then the node ID and IP address decide.
	NodePermitted(id enode.ID, ip net.IP, port int) bool
}

// Config says which lists are enabled and where their file is.
type Config struct {
	// AccountsEnabled is --permissions-accounts-config-file-enabled.
	AccountsEnabled bool
	// AccountsFile is --permissions-accounts-config-file.
	AccountsFile string
	// NodesEnabled is --permissions-nodes-config-file-enabled.
	NodesEnabled bool
	// NodesFile is --permissions-nodes-config-file.
	NodesFile string
	// FixedNodes are the bootnodes and static nodes: with the nodes list
	// enabled each must be on it at start-up, and none can be removed.
	FixedNodes []*enode.Node
	// P2PDisabled is --p2p-enabled=false: the node methods then answer
	// ErrP2PDisabled.
	P2PDisabled bool
	// DNS is --Xdns-enabled and --Xdns-update-enabled: host names in the
	// nodes allowlist.
	DNS DNS
}

// Allowlists are the node's two allowlists. The zero value has neither
// enabled.
type Allowlists struct {
	cfg Config

	// mu serialises changes and reloads (each one reads, writes the file,
	// then swaps the list); checks read the lists without it.
	mu          sync.Mutex
	accounts    atomic.Pointer[accountList]
	nodes       atomic.Pointer[nodeList]
	accountsKey string
	nodesKey    string
	fixed       *nodeList

	listenersMu sync.Mutex
	listeners   []func()

	// write replaces a file atomically (writeAtomic; tests make it fail).
	write func(path string, data []byte) error

	// accountChecks and nodeChecks count the checks (SetMetrics); nil
	// counts nothing.
	accountChecks, nodeChecks *checkCounters
}

var _ Checker = (*Allowlists)(nil)

// Load reads the enabled lists from their files. The errors are Besu's
// start-up errors (a missing key, an invalid account or enode), naming the
// file and the line, and a bootnode or static node not on the nodes list.
func Load(cfg Config) (*Allowlists, error) {
	a := &Allowlists{cfg: cfg, write: writeAtomic, fixed: newNodeList(fixedNodes(cfg.FixedNodes), nil)}
	accts, akey, nodes, nkey, err := a.read()
	if err != nil {
		return nil, err
	}
	if nodes != nil {
		var missing []string
		for _, n := range cfg.FixedNodes {
			if !nodes.has(listedNode{Node: n}) {
				missing = append(missing, formatNode(listedNode{Node: n}))
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("specified bootnodes or static nodes not on the nodes allowlist of %s: %v (add them to %s, or remove them)",
				cfg.NodesFile, missing, nkey)
		}
	}
	a.install(accts, akey, nodes, nkey)
	return a, nil
}

// read reads every enabled list from its file.
func (a *Allowlists) read() (accts *accountList, akey string, nodes *nodeList, nkey string, err error) {
	if a.cfg.AccountsEnabled {
		d, err := readFile(a.cfg.AccountsFile)
		if err != nil {
			return nil, "", nil, "", err
		}
		if accts, akey, err = d.accounts(); err != nil {
			return nil, "", nil, "", err
		}
	}
	if a.cfg.NodesEnabled {
		d, err := readFile(a.cfg.NodesFile)
		if err != nil {
			return nil, "", nil, "", err
		}
		if nodes, nkey, err = d.nodes(&a.cfg.DNS); err != nil {
			return nil, "", nil, "", err
		}
	}
	return accts, akey, nodes, nkey, nil
}

func (a *Allowlists) install(accts *accountList, akey string, nodes *nodeList, nkey string) {
	if accts != nil {
		a.accounts.Store(accts)
		a.accountsKey = akey
	}
	if nodes != nil {
		a.nodes.Store(nodes)
		a.nodesKey = nkey
	}
}

func readFile(path string) (*document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read permissions config file: %w", err)
	}
	return decodeFile(path, data)
}

// AccountsEnabled reports whether the accounts list is enabled.
func (a *Allowlists) AccountsEnabled() bool { return a != nil && a.accounts.Load() != nil }

// NodesEnabled reports whether the nodes list is enabled.
func (a *Allowlists) NodesEnabled() bool { return a != nil && a.nodes.Load() != nil }

// AccountPermitted implements Checker.
func (a *Allowlists) AccountPermitted(addr common.Address) bool {
	if a == nil {
		return true
	}
	l := a.accounts.Load()
	if l == nil {
		return true
	}
	return a.accountChecks.record(l.has(addr))
}

// NodePermitted implements Checker.
func (a *Allowlists) NodePermitted(id enode.ID, ip net.IP, port int) bool {
	if a == nil {
		return true
	}
	l := a.nodes.Load()
	if l == nil {
		return true
	}
	return a.nodeChecks.record(l.permits(id, ip, port))
}

// OnNodesChanged registers f to run after every change of the nodes list
// (a removal, a reload), outside the lock; the peer-to-peer service drops
// the peers no longer listed.
func (a *Allowlists) OnNodesChanged(f func()) {
	a.listenersMu.Lock()
	a.listeners = append(a.listeners, f)
	a.listenersMu.Unlock()
}

func (a *Allowlists) nodesChanged() {
	a.listenersMu.Lock()
	fs := slices.Clone(a.listeners)
	a.listenersMu.Unlock()
	for _, f := range fs {
		f()
	}
}

// Accounts lists the accounts allowlist (perm_getAccountsWhitelist).
func (a *Allowlists) Accounts() ([]string, error) {
	l := a.accounts.Load()
	if l == nil {
		return nil, ErrAccountsNotEnabled
	}
	return slices.Clone(l.entries), nil
}

// AddAccounts adds accounts to the list and the file
// (perm_addAccountsToWhitelist). The checks run in Besu's order: empty,
// invalid, duplicates, already listed; then the file.
func (a *Allowlists) AddAccounts(accounts []string) error {
	return a.changeAccounts(accounts, true)
}

// RemoveAccounts removes accounts from the list and the file
// (perm_removeAccountsFromWhitelist).
func (a *Allowlists) RemoveAccounts(accounts []string) error {
	return a.changeAccounts(accounts, false)
}

func (a *Allowlists) changeAccounts(accounts []string, add bool) error {
	if !a.AccountsEnabled() {
		return ErrAccountsNotEnabled
	}
	norm, err := checkAccounts(accounts)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	old := a.accounts.Load()
	var entries []string
	if add {
		for _, s := range norm {
			if a, _, _ := parseAccount(s); old.has(a) {
				return ErrAccountExisting
			}
		}
		entries = append(slices.Clone(old.entries), norm...)
	} else {
		drop := make(map[string]bool, len(norm))
		for _, s := range norm {
			if a, _, _ := parseAccount(s); !old.has(a) {
				return ErrAccountAbsent
			}
			drop[s] = true
		}
		for _, s := range old.entries {
			if !drop[s] {
				entries = append(entries, s)
			}
		}
	}
	next := newAccountList(entries)
	err = a.persist(a.cfg.AccountsFile, a.accountsKey, entries, func(d *document) bool {
		onDisk, _, err := d.accounts()
		return err == nil && sameAccounts(onDisk, old)
	}, func() { a.accounts.Store(next) })
	return err
}

func sameAccounts(x, y *accountList) bool {
	if len(x.set) != len(y.set) {
		return false
	}
	for k := range x.set {
		if _, ok := y.set[k]; !ok {
			return false
		}
	}
	return true
}

// sameNodes compares two lists entry by entry (has): an entry listed by a
// host name matches by name, wherever the name points now.
func sameNodes(x, y *nodeList) bool {
	if len(x.set) != len(y.set) {
		return false
	}
	for _, n := range x.nodes {
		if !y.has(n) {
			return false
		}
	}
	for _, n := range y.nodes {
		if !x.has(n) {
			return false
		}
	}
	return true
}

// persist writes values under key into path and then applies the change
// (apply), as Besu's controllers do: the file is first checked against the
// list as it was (inSync); a file out of sync gets the change in memory
// only (ErrFileSync). A failed write applies nothing (ErrPersistFailure).
func (a *Allowlists) persist(path, key string, values []string, inSync func(*document) bool, apply func()) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPersistFailure, err)
	}
	d, err := decodeFile(path, data)
	if err != nil || !inSync(d) {
		apply()
		return ErrFileSync
	}
	out, err := d.encode(key, values)
	if err == nil {
		err = a.write(path, out)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPersistFailure, err)
	}
	apply()
	return nil
}

// Nodes lists the nodes allowlist (perm_getNodesWhitelist).
func (a *Allowlists) Nodes() ([]string, error) {
	l, err := a.nodesForCall()
	if err != nil {
		return nil, err
	}
	return l.urls(), nil
}

func (a *Allowlists) nodesForCall() (*nodeList, error) {
	l := a.nodes.Load()
	switch {
	case l == nil:
		return nil, ErrNodesNotEnabled
	case a.cfg.P2PDisabled:
		return nil, ErrP2PDisabled
	}
	return l, nil
}

// AddNodes adds enode URLs to the list and the file
// (perm_addNodesToWhitelist). The checks run in Besu's order: empty,
// duplicates, invalid, already listed; then the file.
func (a *Allowlists) AddNodes(urls []string) error {
	return a.changeNodes(urls, true)
}

// RemoveNodes removes enode URLs from the list and the file
// (perm_removeNodesFromWhitelist): empty, duplicates, invalid, a fixed
// node (bootnode or static node), not listed; then the file. Peers no
// longer listed are then disconnected (OnNodesChanged).
func (a *Allowlists) RemoveNodes(urls []string) error {
	return a.changeNodes(urls, false)
}

func (a *Allowlists) changeNodes(urls []string, add bool) error {
	if _, err := a.nodesForCall(); err != nil {
		return err
	}
	req, err := checkNodes(urls, &a.cfg.DNS)
	if err != nil {
		return err
	}
	a.mu.Lock()
	old := a.nodes.Load()
	var nodes []listedNode
	if add {
		for _, n := range req {
			if old.has(n) {
				a.mu.Unlock()
				return ErrNodeExisting
			}
		}
		nodes = append(slices.Clone(old.nodes), req...)
	} else {
		for _, n := range req {
			if a.fixed.has(n) {
				a.mu.Unlock()
				return ErrFixedNode
			}
		}
		for _, n := range req {
			if !old.has(n) {
				a.mu.Unlock()
				return ErrNodeAbsent
			}
		}
		dropped := newNodeList(req, nil)
		for _, n := range old.nodes {
			if !dropped.has(n) {
				nodes = append(nodes, n)
			}
		}
	}
	next := newNodeList(nodes, &a.cfg.DNS)
	err = a.persist(a.cfg.NodesFile, a.nodesKey, next.urls(), func(d *document) bool {
		onDisk, _, err := d.nodes(&a.cfg.DNS)
		return err == nil && sameNodes(onDisk, old)
	}, func() { a.nodes.Store(next) })
	a.mu.Unlock()
	if !add && (err == nil || errors.Is(err, ErrFileSync)) {
		a.nodesChanged()
	}
	return err
}

// Reload re-reads the enabled lists from their files
// (perm_reloadPermissionsFromFile). If either file is invalid both lists
// stay as they were and the error wraps ErrReload.
func (a *Allowlists) Reload() error {
	if !a.AccountsEnabled() && !a.NodesEnabled() {
		return ErrNotEnabled
	}
	a.mu.Lock()
	accts, akey, nodes, nkey, err := a.read()
	if err != nil {
		a.mu.Unlock()
		return fmt.Errorf("%w: %v", ErrReload, err)
	}
	a.install(accts, akey, nodes, nkey)
	a.mu.Unlock()
	if nodes != nil {
		a.nodesChanged()
	}
	return nil
}
