package permissioning

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/p2p/enode"

	"github.com/basaltchain/basalt/enodeurl"
	"github.com/basaltchain/basalt/metrics"
)

const (
	acct1 = "0x0000000000000000000000000000000000000009"
	acct2 = "0xfe3b557e8fb62b89f4916b721be55ceb828dbd73"
)

func testEnode(t testing.TB, ip string, port int) string {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return enodeurl.Format(enode.NewV4(&k.PublicKey, net.ParseIP(ip), port, port), ip, port, port)
}

func writeFile(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), DefaultFile)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadErrors(t *testing.T) {
	e := testEnode(t, "127.0.0.1", 30303)
	for _, tc := range []struct {
		name, file string
		cfg        Config
		want       string
	}{
		{"accounts key missing", `nodes-allowlist=[]`, Config{AccountsEnabled: true},
			"accounts-allowlist config option missing in TOML config file"},
		{"nodes key missing", `accounts-allowlist=[]`, Config{NodesEnabled: true},
			"nodes-allowlist config option missing in TOML config file"},
		{"invalid account", "accounts-whitelist=[\n \"" + acct1 + "\",\n \"0x12\"]", Config{AccountsEnabled: true},
			"line 3: Invalid account 0x12"},
		{"invalid enode", "nodes-whitelist=[\"enode://1234@127.0.0.1:1\"]", Config{NodesEnabled: true},
			"line 1: Invalid enode URL syntax"},
		{"host name", `nodes-allowlist=["` + strings.Replace(e, "127.0.0.1", "example.com", 1) + `"]`, Config{NodesEnabled: true},
			"Invalid enode URL syntax"},
		{"syntax", "accounts-allowlist=[\n\"x\"", Config{AccountsEnabled: true}, "line 2"},
		{"both keys", "accounts-allowlist=[]\naccounts-whitelist=[]", Config{AccountsEnabled: true}, "both accounts-allowlist and accounts-whitelist"},
		{"not strings", "accounts-allowlist=[1]", Config{AccountsEnabled: true}, "must be an array of strings"},
		{"fixed node not listed", `nodes-allowlist=[]`, Config{NodesEnabled: true, FixedNodes: []*enode.Node{enode.MustParse(e)}},
			"not on the nodes allowlist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.file)
			tc.cfg.AccountsFile, tc.cfg.NodesFile = p, p
			_, err := Load(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), p) && tc.name != "fixed node not listed" {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

func TestAccountsOps(t *testing.T) {
	p := writeFile(t, "# members\naccounts-whitelist=[\""+acct1+"\"]\nnodes-allowlist=[]\nother = 5\n")
	a, err := Load(Config{AccountsEnabled: true, AccountsFile: p})
	if err != nil {
		t.Fatal(err)
	}
	if !a.AccountPermitted(common.HexToAddress(acct1)) || a.AccountPermitted(common.HexToAddress(acct2)) {
		t.Fatal("initial list")
	}
	upper := "0x" + strings.ToUpper(acct2[2:])
	for _, tc := range []struct {
		add  bool
		in   []string
		want error
	}{
		{true, nil, ErrAccountsEmpty},
		{true, []string{"0x12"}, ErrAccountInvalid},
		{true, []string{acct2[2:]}, ErrAccountInvalid},
		{true, []string{acct2, upper}, ErrAccountsDuplicated},
		{true, []string{acct1}, ErrAccountExisting},
		{false, []string{acct2}, ErrAccountAbsent},
		{true, []string{upper}, nil},
		{false, []string{acct1}, nil},
	} {
		var err error
		if tc.add {
			err = a.AddAccounts(tc.in)
		} else {
			err = a.RemoveAccounts(tc.in)
		}
		if !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
			t.Fatalf("%v %v: %v, want %v", tc.add, tc.in, err, tc.want)
		}
	}
	got, _ := a.Accounts()
	if !slices.Equal(got, []string{acct2}) {
		t.Fatalf("list %v", got)
	}
	data, _ := os.ReadFile(p)
	if want := "accounts-whitelist=[\"" + acct2 + "\"]\nnodes-allowlist=[]\nother = 5\n"; string(data) != want {
		t.Fatalf("file:\n%s\nwant:\n%s", data, want)
	}
}

func TestPersistFailureReverts(t *testing.T) {
	p := writeFile(t, "accounts-allowlist=[\""+acct1+"\"]\n")
	a, err := Load(Config{AccountsEnabled: true, AccountsFile: p})
	if err != nil {
		t.Fatal(err)
	}
	a.write = func(string, []byte) error { return errors.New("disk full") }
	if err := a.AddAccounts([]string{acct2}); !errors.Is(err, ErrPersistFailure) {
		t.Fatalf("err %v", err)
	}
	if a.AccountPermitted(common.HexToAddress(acct2)) {
		t.Fatal("failed write changed the list")
	}
	// Out of sync: the file was edited behind the node's back.
	a.write = writeAtomic
	os.WriteFile(p, []byte("accounts-allowlist=[]\n"), 0o600)
	if err := a.AddAccounts([]string{acct2}); !errors.Is(err, ErrFileSync) {
		t.Fatalf("err %v", err)
	}
	if !a.AccountPermitted(common.HexToAddress(acct2)) {
		t.Fatal("file sync: change not applied")
	}
}

func TestReload(t *testing.T) {
	e1, e2 := testEnode(t, "127.0.0.1", 1), testEnode(t, "10.0.0.1", 2)
	p := writeFile(t, "accounts-allowlist=[\""+acct1+"\"]\nnodes-whitelist=[\""+e1+"\"]\n")
	a, err := Load(Config{AccountsEnabled: true, AccountsFile: p, NodesEnabled: true, NodesFile: p})
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	a.OnNodesChanged(func() { changed++ })
	os.WriteFile(p, []byte("accounts-allowlist=[\"0x1\"]\nnodes-whitelist=[\""+e2+"\"]\n"), 0o600)
	if err := a.Reload(); !errors.Is(err, ErrReload) {
		t.Fatalf("err %v", err)
	}
	if l, _ := a.Nodes(); !slices.Equal(l, []string{e1}) {
		t.Fatalf("invalid file changed the nodes list: %v", l)
	}
	os.WriteFile(p, []byte("accounts-allowlist=[\""+acct2+"\"]\nnodes-allowlist=[\""+e2+"\"]\n"), 0o600)
	if err := a.Reload(); err != nil {
		t.Fatal(err)
	}
	if l, _ := a.Nodes(); !slices.Equal(l, []string{e2}) || changed != 1 {
		t.Fatalf("nodes %v, listeners run %d times", l, changed)
	}
	if !a.AccountPermitted(common.HexToAddress(acct2)) || a.AccountPermitted(common.HexToAddress(acct1)) {
		t.Fatal("accounts not reloaded")
	}
	// The key read at reload is the key written.
	if err := a.AddNodes([]string{e1}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); !strings.Contains(string(data), "nodes-allowlist=[") || strings.Contains(string(data), "whitelist") {
		t.Fatalf("file:\n%s", data)
	}
}

func TestNodesOps(t *testing.T) {
	fixedURL, e1, e2 := testEnode(t, "127.0.0.1", 30303), testEnode(t, "127.0.0.1", 30304), testEnode(t, "::1", 30305)
	p := writeFile(t, "nodes-allowlist=[\""+fixedURL+"\",\""+e1+"\"]\n")
	a, err := Load(Config{NodesEnabled: true, NodesFile: p, FixedNodes: []*enode.Node{enode.MustParse(fixedURL)}})
	if err != nil {
		t.Fatal(err)
	}
	withDisc := e2 + "?discport=0"
	for _, tc := range []struct {
		add  bool
		in   []string
		want error
	}{
		{true, []string{}, ErrNodesEmpty},
		{true, []string{e2, e2}, ErrNodesDuplicated},
		{true, []string{e2, withDisc}, ErrNodesDuplicated},
		{true, []string{"enode://00@1.2.3.4:5"}, ErrNodeInvalid},
		{true, []string{e1}, ErrNodeExisting},
		{false, []string{fixedURL}, ErrFixedNode},
		{false, []string{e2}, ErrNodeAbsent},
		{true, []string{withDisc}, nil},
		{false, []string{e1}, nil},
	} {
		var err error
		if tc.add {
			err = a.AddNodes(tc.in)
		} else {
			err = a.RemoveNodes(tc.in)
		}
		if !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
			t.Fatalf("%v %v: %v, want %v", tc.add, tc.in, err, tc.want)
		}
	}
	n2 := enode.MustParse(e2)
	if !a.NodePermitted(n2.ID(), n2.IP(), 30305) || !a.NodePermitted(n2.ID(), n2.IP(), 0) {
		t.Fatal("added node not permitted")
	}
	if a.NodePermitted(n2.ID(), n2.IP(), 30306) || a.NodePermitted(n2.ID(), net.ParseIP("::2"), 0) {
		t.Fatal("other endpoint permitted")
	}
	n1 := enode.MustParse(e1)
	if a.NodePermitted(n1.ID(), n1.IP(), n1.TCP()) {
		t.Fatal("removed node permitted")
	}
	b, err := Load(Config{NodesEnabled: true, NodesFile: p, P2PDisabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Nodes(); !errors.Is(err, ErrP2PDisabled) {
		t.Fatalf("p2p disabled: %v", err)
	}
	var none Allowlists
	if _, err := none.Accounts(); !errors.Is(err, ErrAccountsNotEnabled) {
		t.Fatal(err)
	}
	if err := none.AddNodes([]string{e1}); !errors.Is(err, ErrNodesNotEnabled) {
		t.Fatal(err)
	}
	if err := none.Reload(); !errors.Is(err, ErrNotEnabled) {
		t.Fatal(err)
	}
	if !none.AccountPermitted(common.Address{}) || !none.NodePermitted(n1.ID(), n1.IP(), 1) {
		t.Fatal("disabled lists refuse")
	}
}

// TestCheckMetrics: each list counts its checks under Besu's names.
func TestCheckMetrics(t *testing.T) {
	e := testEnode(t, "127.0.0.1", 30303)
	p := writeFile(t, "accounts-allowlist=[\""+acct1+"\"]\nnodes-allowlist=[\""+e+"\"]\n")
	a, err := Load(Config{AccountsEnabled: true, AccountsFile: p, NodesEnabled: true, NodesFile: p})
	if err != nil {
		t.Fatal(err)
	}
	r := metrics.New(metrics.Config{Categories: []metrics.Category{metrics.Permissioning}})
	a.SetMetrics(r)
	a.AccountPermitted(common.HexToAddress(acct1))
	a.AccountPermitted(common.HexToAddress(acct2))
	n := enode.MustParse(e)
	a.NodePermitted(n.ID(), n.IP(), 0)
	var out strings.Builder
	fams, err := r.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if strings.Contains(f.GetName(), "permissioning") {
			fmt.Fprintf(&out, "%s %v\n", f.GetName(), f.GetMetric()[0].GetCounter().GetValue())
		}
	}
	for _, want := range []string{"permissioning_account_local_check_count 2", "permissioning_account_local_check_count_permitted 1",
		"permissioning_account_local_check_count_unpermitted 1", "permissioning_node_local_check_count 1",
		"permissioning_node_local_check_count_permitted 1", "permissioning_node_local_check_count_unpermitted 0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("want %q in\n%s", want, out.String())
		}
	}
}
