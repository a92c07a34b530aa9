package localnet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ManifestFile is the file whose presence makes a directory a network's:
// `up` resumes the network it describes and refuses any other non-empty
// directory.
const ManifestFile = "network.json"

// manifestKind marks a manifest as ours.
const manifestKind = "basalt-network"

// Manifest describes a network: its settings and every endpoint. Paths
// are relative to the network's directory.
type Manifest struct {
	Kind     string `json:"kind"`
	Settings `json:"settings"`
	ChainID  uint64 `json:"chainId"`
	Genesis  string `json:"genesis"`
	Nodes    []Node `json:"nodes"`
	// SignerURL is basalt-signer's JSON-RPC endpoint ("" without --signer).
	SignerURL string `json:"signerUrl,omitempty"`
	// DevAddress and DevKey are the funded account the signer holds (and
	// tools such as bench send from).
	DevAddress string `json:"devAddress"`
	DevKey     string `json:"devKey"`
}

// Node is one validator and its privacy manager.
type Node struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Enode   string `json:"enode"`
	KeyFile string `json:"keyFile"`
	DataDir string `json:"dataDir"`
	HTTP    string `json:"http"`
	WS      string `json:"ws"`
	GraphQL string `json:"graphql"`
	Metrics string `json:"metrics"`
	P2PPort int    `json:"p2pPort"`

	// The privacy manager (empty without --privacy).
	PrivacyConfig    string `json:"privacyConfig,omitempty"`
	PrivacyPublicKey string `json:"privacyPublicKey,omitempty"` // base64, the node's privateFrom
	PrivacyKeyFile   string `json:"privacyKeyFile,omitempty"`
	PrivacyURL       string `json:"privacyUrl,omitempty"`     // client API, the node's --privacy-url
	PrivacyNodeURL   string `json:"privacyNodeUrl,omitempty"` // node API, for the other managers
	MarkerKeyFile    string `json:"markerKeyFile,omitempty"`  // signs the node's privacy marker transactions
}

// ReadManifest reads dir's manifest. It returns fs.ErrNotExist (wrapped)
// when there is none.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Kind != manifestKind {
		return nil, fmt.Errorf("%s is not a basalt network manifest", filepath.Join(dir, ManifestFile))
	}
	if m.Milestone == "" {
		m.Milestone = legacyMilestone
	}
	return &m, nil
}

// write writes the manifest atomically: a directory holds either a whole
// manifest or none.
func (m *Manifest) write(dir string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ManifestFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ManifestFile))
}

// dirState says what dir holds: nothing (missing or empty), a network
// (its manifest), or something else (an error saying so).
func dirState(dir string) (*Manifest, error) {
	m, err := ReadManifest(dir)
	if err == nil {
		return m, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	entries, rerr := os.ReadDir(dir)
	if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return nil, rerr
	}
	if len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty and holds no %s: it is not a basalt network's directory; choose another --dir", dir, ManifestFile)
	}
	return nil, nil
}
