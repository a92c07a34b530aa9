package node

import (
	"errors"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/enodeurl"
	"github.com/basaltchain/basalt/p2p"
	"github.com/basaltchain/basalt/permissioning"
)

// errSenderNotPermitted is why a block the node builds leaves out a
// transaction whose sender is not on the accounts allowlist.
var errSenderNotPermitted = errors.New("sender not on the accounts allowlist")

// loadPermissions reads the allowlists the --permissions-* options enable;
// nil when neither is. With the nodes list on, the bootnodes and static
// nodes are its fixed nodes: each must be listed, and none can be removed.
func loadPermissions(cfg *config.Config) (*permissioning.Allowlists, error) {
	pc := cfg.Permissions
	if !pc.AccountsEnabled && !pc.NodesEnabled {
		return nil, nil
	}
	pcfg := permissioning.Config{
		AccountsEnabled: pc.AccountsEnabled,
		AccountsFile:    orDefault(pc.AccountsFile, filepath.Join(cfg.DataPath, config.PermissionsFile)),
		NodesEnabled:    pc.NodesEnabled,
		NodesFile:       orDefault(pc.NodesFile, filepath.Join(cfg.DataPath, config.PermissionsFile)),
		P2PDisabled:     !cfg.P2P.Enabled,
		DNS:             permissioning.DNS{Enabled: pc.DNSEnabled, UpdateEnabled: pc.DNSUpdateEnabled},
	}
	if pc.NodesEnabled && cfg.P2P.Enabled {
		for _, u := range cfg.P2P.Bootnodes {
			n, err := enodeurl.Parse(u)
			if err != nil {
				return nil, err
			}
			pcfg.FixedNodes = append(pcfg.FixedNodes, n)
		}
		static, err := p2p.LoadStaticNodes(orDefault(cfg.P2P.StaticNodesFile, filepath.Join(cfg.DataPath, p2p.StaticNodesFile)))
		if err != nil {
			return nil, err
		}
		pcfg.FixedNodes = append(pcfg.FixedNodes, static...)
	}
	return permissioning.Load(pcfg)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// accountPolicy is the block builder's accounts allowlist check: the miner
// or validator never includes a transaction from an unlisted sender, even
// one that entered the pool before its sender was removed. Blocks the node
// imports are not checked (the list is local policy, not consensus).
func accountPolicy(perms *permissioning.Allowlists) chain.ExecOption {
	return chain.WithTxPolicy(func(_ *types.Header, _ *types.Transaction, from common.Address) error {
		if !perms.AccountPermitted(from) {
			return errSenderNotPermitted
		}
		return nil
	})
}

// nodeChecker is the nodes allowlist for the p2p service: nil (no check)
// unless the list is enabled.
func nodeChecker(perms *permissioning.Allowlists) p2p.NodeChecker {
	if !perms.NodesEnabled() {
		return nil
	}
	return perms
}
