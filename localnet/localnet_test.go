package localnet

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/consensus/qbft"
)

func TestSettingsCheck(t *testing.T) {
	ok := Settings{Validators: 4, Consensus: "qbft", BasePort: 8545}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{Validators: 0, Consensus: "qbft", BasePort: 8545}, "between 1 and 100"},
		{Settings{Validators: 101, Consensus: "qbft", BasePort: 8545}, "between 1 and 100"},
		{Settings{Validators: 4, Consensus: "ethash", BasePort: 8545}, "--consensus"},
		{Settings{Validators: 4, Consensus: "qbft", BasePort: 80}, "1024-65535"},
		{Settings{Validators: 100, Consensus: "qbft", BasePort: 64600}, "1024-65535"},
	} {
		if err := c.s.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
}

// TestPorts: each port once, signer and privacy ports only when asked.
func TestPorts(t *testing.T) {
	s := Settings{Validators: 3, Consensus: "qbft", BasePort: 20000}
	if got := len(s.Ports()); got != 15 {
		t.Fatalf("%d ports without privacy and signer", got)
	}
	s.Privacy, s.Signer = true, true
	seen := map[int]bool{}
	for _, p := range s.Ports() {
		if seen[p] || p < 20000 || p >= 20030 {
			t.Fatalf("port %d repeated or out of range", p)
		}
		seen[p] = true
	}
	if len(seen) != 22 {
		t.Fatalf("%d ports with privacy and signer", len(seen))
	}
}

// TestEphemeralOverlap: ports inside the kernel's ephemeral range are
// warned about (a node's port can be taken by another's outgoing
// connection before it binds); ports below it, or no range file, are not.
func TestEphemeralOverlap(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ip_local_port_range")
	if err := os.WriteFile(file, []byte("32768\t60999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		base, validators int
		warn             bool
	}{
		{8545, 4, false},
		{20000, 100, false},
		{32000, 100, true}, // 32000-32999 ends inside
		{33000, 4, true},
		{61000, 4, false},
	} {
		s := Settings{Validators: c.validators, Consensus: "qbft", BasePort: c.base}
		if w := ephemeralOverlap(s, file); (w != "") != c.warn || c.warn && !strings.Contains(w, "32768-60999") {
			t.Errorf("base %d, %d validators: warning %q", c.base, c.validators, w)
		}
	}
	if w := ephemeralOverlap(Settings{Validators: 4, BasePort: 33000}, filepath.Join(t.TempDir(), "absent")); w != "" {
		t.Errorf("warning without a range file: %q", w)
	}
}

// TestCreate: a new network's files, its genesis from the operator's
// generation (QBFT extraData of the generated validators), and the
// directory rules: a network's directory is read back, a foreign one is
// refused.
func TestCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "net")
	s := Settings{Validators: 2, Consensus: "qbft", Privacy: true, Signer: true, BasePort: 20000}
	m, err := create(dir, s)
	s.Milestone = DefaultMilestone // what create records
	if err != nil {
		t.Fatal(err)
	}
	back, err := dirState(dir)
	if err != nil || back == nil || back.Settings != s || len(back.Nodes) != 2 {
		t.Fatalf("dirState %+v %v", back, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, m.Genesis))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		ExtraData hexutil.Bytes
		Alloc     map[string]any
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	extra, err := qbft.DecodeExtraData(g.ExtraData)
	if err != nil || len(extra.Validators) != 2 {
		t.Fatalf("extraData %x: %v", g.ExtraData, err)
	}
	for i, nd := range m.Nodes {
		if extra.Validators[i] != common.HexToAddress(nd.Address) {
			t.Fatalf("validator %d %s, node %s", i, extra.Validators[i], nd.Address)
		}
		for _, f := range []string{nd.KeyFile, nd.PrivacyConfig, nd.PrivacyKeyFile, nd.MarkerKeyFile} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(g.Alloc) != 3+2+4 { // dev accounts, the marker keys, Prague's system contracts
		t.Fatalf("alloc %v", g.Alloc)
	}
	foreign := t.TempDir()
	os.WriteFile(filepath.Join(foreign, "x"), nil, 0o644)
	if _, err := dirState(foreign); err == nil || !strings.Contains(err.Error(), "not a basalt network's directory") {
		t.Fatalf("foreign dir: %v", err)
	}
	os.WriteFile(filepath.Join(foreign, ManifestFile), []byte(`{"kind":"other"}`), 0o644)
	if _, err := dirState(foreign); err == nil || !strings.Contains(err.Error(), "not a basalt network manifest") {
		t.Fatalf("foreign manifest: %v", err)
	}
}

// TestCreateUndo: a create that fails half-way (here the generation
// refuses a non-empty config folder, after the nodes' folders were
// written) removes what it wrote.
func TestCreateUndo(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "config", "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := Settings{Validators: 2, Consensus: "clique", Privacy: true, BasePort: 20000}
	if _, err := create(dir, s); err == nil || !strings.Contains(err.Error(), "Output directory must be empty") {
		t.Fatalf("create: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a failed create left %v", entries)
	}
}

// TestMilestones: each --milestone's genesis activates that milestone and
// every earlier one from the first block, no later one, and holds the
// system contracts its forks call; a network records its milestone, old
// manifests (none recorded) read as London, which they ran.
func TestMilestones(t *testing.T) {
	for i, ms := range Milestones {
		dir := filepath.Join(t.TempDir(), "net")
		m, err := create(dir, Settings{Validators: 1, Consensus: "qbft", BasePort: 20000, Milestone: ms})
		if err != nil {
			t.Fatal(err)
		}
		if back, err := ReadManifest(dir); err != nil || back.Milestone != ms {
			t.Fatalf("%s: manifest milestone %+v %v", ms, back, err)
		}
		g, err := config.LoadGenesisFile(filepath.Join(dir, m.Genesis))
		if err != nil {
			t.Fatalf("%s: %v", ms, err)
		}
		c, one := g.ChainConfig(), big.NewInt(1)
		active := map[string]bool{
			"berlin":   c.IsBerlin(one),
			"london":   c.IsLondon(one),
			"shanghai": c.IsShanghai(one, 1),
			"cancun":   c.IsCancun(one, 1),
			"prague":   c.IsPrague(one, 1),
			"osaka":    c.IsOsaka(one, 1),
		}
		for j, other := range Milestones {
			if active[other] != (j <= i) {
				t.Errorf("--milestone %s: %s active %v", ms, other, active[other])
			}
		}
		if c.IsAmsterdam(one, 1) {
			t.Errorf("--milestone %s: Amsterdam active", ms)
		}
		if (g.Core.BaseFee != nil) != active["london"] || (active["london"] && g.Core.BaseFee.Sign() != 0) {
			t.Errorf("--milestone %s: genesis base fee %v", ms, g.Core.BaseFee)
		}
		for addr, fork := range map[common.Address]string{
			params.BeaconRootsAddress:        "cancun",
			params.HistoryStorageAddress:     "prague",
			params.WithdrawalQueueAddress:    "prague",
			params.ConsolidationQueueAddress: "prague",
		} {
			if has := len(g.Core.Alloc[addr].Code) > 0; has != active[fork] {
				t.Errorf("--milestone %s: system contract %s in alloc %v", ms, addr, has)
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "net")
	if _, err := create(dir, Settings{Validators: 1, Consensus: "clique", BasePort: 20000}); err != nil {
		t.Fatal(err)
	}
	if m, _ := ReadManifest(dir); m.Milestone != DefaultMilestone {
		t.Fatalf("default milestone %q", m.Milestone)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(strings.Replace(string(data), `"milestone": "osaka"`, `"x": 1`, 1)), 0o644)
	if m, _ := ReadManifest(dir); m.Milestone != "london" {
		t.Fatalf("an old manifest's milestone %q", m.Milestone)
	}
	err := sameSettings(dir, Settings{Milestone: "london"}, Settings{Milestone: "osaka"}, func(opt string) bool { return opt == "milestone" })
	if err == nil || !strings.Contains(err.Error(), "--milestone london, not osaka") {
		t.Fatalf("resuming with another milestone: %v", err)
	}
	if err := (Settings{Validators: 4, Consensus: "qbft", BasePort: 8545, Milestone: "paris"}).Check(); err == nil || !strings.Contains(err.Error(), "--milestone must be one of berlin, london") {
		t.Fatalf("unknown milestone: %v", err)
	}
}
