package txpool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/permissioning"
)

// TestAccountAllowlist: with the node's accounts allowlist as the sender
// filter, transactions gossiped by peers from unlisted senders are dropped
// (the rest of the batch is kept) and local ones are refused; a sender
// added to the list is admitted from then on.
func TestAccountAllowlist(t *testing.T) {
	env := defaultEnv(t)
	listed, stranger := newAccount(t), newAccount(t)
	path := filepath.Join(t.TempDir(), permissioning.DefaultFile)
	if err := os.WriteFile(path, []byte(`accounts-allowlist=["`+strings.ToLower(listed.addr.Hex())+`"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := permissioning.Load(permissioning.Config{AccountsEnabled: true, AccountsFile: path})
	if err != nil {
		t.Fatal(err)
	}
	env.pool.SetSenderFilter(list.AccountPermitted)

	errs := env.pool.AddRemotes([]*types.Transaction{legacy(t, stranger, 0, 1000), legacy(t, listed, 0, 1000)})
	wantReason(t, errs[0], TxSenderNotAuthorized)
	if errs[1] != nil || env.pool.Len() != 1 {
		t.Fatalf("listed sender: %v, pool holds %d", errs[1], env.pool.Len())
	}
	wantReason(t, env.pool.AddLocal(legacy(t, stranger, 0, 1000)), TxSenderNotAuthorized)

	if err := list.AddAccounts([]string{stranger.addr.Hex()}); err != nil {
		t.Fatal(err)
	}
	if err := env.pool.AddLocal(legacy(t, stranger, 0, 1000)); err != nil {
		t.Fatalf("added sender: %v", err)
	}
}
