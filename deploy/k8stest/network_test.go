package k8stest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chartutil"
)

// devKey is the funded dev account's key (Besu's first dev account), the
// signer's in the test network.
const devKey = "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"

// The chart's privacy-signer values set, rendered for a fresh network
// (genesis and keys from generate-blockchain-config run in the image,
// turned into values and a Secret by deploy/chartconfig), starts as
// containers: the four validators agree on the blocks they produce, the
// RPC node follows them, every probe answers, a rolling update keeps them
// producing agreed blocks, and a private transaction sent through
// basalt-signer reaches the members of its group only. The
// privacy managers store in Pebble, in each validator's volume.
func TestChartNetwork(t *testing.T) {
	runNetwork(t, nil, nil, nil)
}

// The same with the privacy managers on PostgreSQL (privacy.storage:
// postgres), a database per manager on the tests' server
// (BASALT_TEST_POSTGRES_URL, started by .ci/run), reached as the host
// "postgres".
func TestChartNetworkPostgres(t *testing.T) {
	base := os.Getenv("BASALT_TEST_POSTGRES_URL")
	if base == "" {
		t.Skip("BASALT_TEST_POSTGRES_URL is not set (eval \"$(sh ptm/storage/testdata/start-postgres.sh)\" starts a server)")
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql is not installed (Debian's postgresql-client): the databases cannot be made")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	buildImage(t)
	prefix := fmt.Sprintf("k8stest_%d", time.Now().UnixNano()%1e9)
	var dbs []string
	for i := range 4 {
		dbs = append(dbs, fmt.Sprintf("%s_payloads%d", prefix, i), fmt.Sprintf("%s_known%d", prefix, i))
	}
	for _, db := range dbs {
		if out, err := exec.Command("psql", base, "-c", "CREATE DATABASE "+db).CombinedOutput(); err != nil {
			t.Fatalf("create database %s: %v %s", db, err, out)
		}
	}
	t.Cleanup(func() {
		for _, db := range dbs {
			exec.Command("psql", base, "-c", "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)").Run()
		}
	})
	user := u.User.Username()
	pg := func(kind string) string {
		return fmt.Sprintf("postgresql://%s:$(POSTGRES_PASSWORD)@postgres:%s/%s_%s$(POD_INDEX)?sslmode=disable", user, u.Port(), prefix, kind)
	}
	runNetwork(t, map[string]any{"privacy": map[string]any{"storage": "postgres", "postgres": map[string]any{
		"url": pg("payloads"), "knownNodesUrl": pg("known"), "passwordSecret": map[string]any{"name": "basalt-postgres", "key": "password"}}}},
		map[string]map[string]string{"basalt-postgres": {"password": "unused-with-trust-auth"}},
		[]string{"postgres:" + u.Hostname()})
	// The members' managers stored the payloads in their own databases.
	for _, db := range []string{prefix + "_payloads0", prefix + "_payloads1"} {
		dbURL := *u
		dbURL.Path = "/" + db
		out, err := exec.Command("psql", dbURL.String(), "-tAc", "SELECT count(*) FROM store").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) == "0" {
			t.Errorf("%s holds nothing: %v %s", db, err, out)
		}
	}
}

// runNetwork runs the privacy-signer values set (with extra values,
// Secrets and host names) and checks blocks, probes and a private
// transaction.
func runNetwork(t *testing.T, extra map[string]any, extraSecrets map[string]map[string]string, extraHosts []string) {
	buildImage(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o777)
	cfg, err := os.ReadFile("testdata/blockchain-config.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	runOnce(t, "-v", dir+":/work", imageTag, "operator", "generate-blockchain-config", "--config-file=/work/config.json", "--to=/work/net")
	if err := os.WriteFile(filepath.Join(dir, "dev.key"), []byte(devKey), 0o600); err != nil {
		t.Fatal(err)
	}
	gen := exec.Command("go", "run", "./deploy/chartconfig", "--from", filepath.Join(dir, "net"), "--to", filepath.Join(dir, "chart"),
		"--privacy", "--signer-key", filepath.Join(dir, "dev.key"))
	gen.Dir = "../.."
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("chartconfig: %v\n%s", err, out)
	}
	var secret struct {
		Metadata   struct{ Name string }
		StringData map[string]string
	}
	data, err := os.ReadFile(filepath.Join(dir, "chart", "network-keys.json"))
	if err != nil || json.Unmarshal(data, &secret) != nil {
		t.Fatalf("network-keys.json: %v", err)
	}

	// The ports are values: free ones, so that the network shares the
	// machine with whatever listens on 8545 and friends.
	vals := loadValues(t, filepath.Join(dir, "chart", "network-values.json"), filepath.Join(chartDir, "ci", "privacy-signer-values.yaml"))
	ports := map[string]any{}
	for _, p := range []string{"http", "ws", "graphql", "metrics", "p2p", "privacyNode", "privacyClient", "signer"} {
		ports[p] = freePort(t)
	}
	vals["ports"] = ports
	vals["image"] = map[string]any{"repository": "localhost/basalt", "tag": "k8stest", "pullPolicy": "Never"}
	vals = chartutil.CoalesceTables(extra, vals)
	m := render(t, "ci", "chain", vals)
	secrets := map[string]map[string]string{secret.Metadata.Name: secret.StringData}
	for k, v := range extraSecrets {
		secrets[k] = v
	}
	r := newRunner(t, "chain", secrets)
	r.hosts = append(r.hosts, extraHosts...)
	r.add(m)
	r.start()

	nodeURL := func(name string) string { return fmt.Sprintf("http://%s:%d", r.pod(name).ip, ports["http"]) }
	validators := []string{"ci-basalt-network-validator-0", "ci-basalt-network-validator-1", "ci-basalt-network-validator-2", "ci-basalt-network-validator-3"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// Blocks, agreed: every validator and the RPC node has block 3, the
	// same one.
	eventually(t, "block 3 on every node", 3*time.Minute, func() error {
		var hash string
		for _, n := range append(validators, "ci-basalt-network-rpc-0") {
			var b struct{ Hash string }
			if err := rpc(ctx, nodeURL(n), "eth_getBlockByNumber", &b, "0x3", false); err != nil {
				return fmt.Errorf("%s: %v", n, err)
			}
			if b.Hash == "" {
				return fmt.Errorf("%s has no block 3 yet", n)
			}
			if hash != "" && b.Hash != hash {
				t.Fatalf("%s's block 3 is %s, another node's %s", n, b.Hash, hash)
			}
			hash = b.Hash
		}
		t.Logf("block 3 is %s on the 4 validators and the RPC node", hash)
		return nil
	})
	// Every probe (nodes, privacy managers, signer) answers.
	eventually(t, "every probe", 2*time.Minute, r.allProbes)

	// A rolling update: the validators replaced one at a time from the
	// highest ordinal, each once the previous is ready again, keep their
	// chain and peers and the network keeps producing agreed blocks.
	head := func(n string) uint64 {
		var h string
		if err := rpc(ctx, nodeURL(n), "eth_blockNumber", &h); err != nil {
			return 0
		}
		v, _ := strconv.ParseUint(strings.TrimPrefix(h, "0x"), 16, 64)
		return v
	}
	for i := len(validators) - 1; i >= 0; i-- {
		before := head(validators[0])
		r.restartPod(r.pod(validators[i]))
		eventually(t, validators[i]+" ready after its restart", 2*time.Minute, func() error { return r.podReady(r.pod(validators[i])) })
		eventually(t, "blocks after restarting "+validators[i], time.Minute, func() error {
			if h := head(validators[(i+1)%4]); h <= before+2 {
				return fmt.Errorf("head %d, was %d", h, before)
			}
			return nil
		})
	}
	var agreed string
	eventually(t, "agreement after the rolling update", time.Minute, func() error {
		n := head(validators[0]) - 1
		agreed = ""
		for _, v := range validators {
			var b struct{ Hash string }
			if err := rpc(ctx, nodeURL(v), "eth_getBlockByNumber", &b, fmt.Sprintf("0x%x", n), false); err != nil || b.Hash == "" {
				return fmt.Errorf("%s: block %d: %v", v, n, err)
			}
			if agreed != "" && b.Hash != agreed {
				return fmt.Errorf("%s's block %d is %s, another's %s", v, n, b.Hash, agreed)
			}
			agreed = b.Hash
		}
		t.Logf("after the rolling update block %d is %s on the 4 validators", n, agreed)
		return nil
	})

	// A private contract for validators 0 and 1, deployed and set to 42
	// through the signer (in front of validator 0), read on each.
	var vv struct {
		Network struct {
			Validators []struct{ PrivacyPublicKey string }
		}
	}
	data, _ = os.ReadFile(filepath.Join(dir, "chart", "network-values.json"))
	if err := json.Unmarshal(data, &vv); err != nil || len(vv.Network.Validators) != 4 {
		t.Fatalf("network values: %v", err)
	}
	signerURL := fmt.Sprintf("http://%s:%d", r.pod("ci-basalt-network-signer-0").ip, ports["signer"])
	const store = "0x602280600b6000396000f336600f5760005460005260206000f35b60003580600055600052602a60206000a100"
	send := func(fields map[string]any) string {
		tx := map[string]any{"from": "0xfe3b557e8fb62b89f4916b721be55ceb828dbd73", "gas": "0x100000", "restriction": "restricted",
			"privateFrom": vv.Network.Validators[0].PrivacyPublicKey, "privateFor": []string{vv.Network.Validators[1].PrivacyPublicKey}}
		for k, v := range fields {
			tx[k] = v
		}
		var hash string
		eventually(t, "eea_sendTransaction through the signer", time.Minute, func() error {
			return rpc(ctx, signerURL, "eea_sendTransaction", &hash, tx)
		})
		return hash
	}
	type receipt struct {
		ContractAddress string
		PrivacyGroupID  string `json:"privacyGroupId"`
		Status          string
	}
	wait := func(node, pmt string) receipt {
		var rc *receipt
		eventually(t, "the private receipt on "+node, 2*time.Minute, func() error {
			if err := rpc(ctx, nodeURL(node), "priv_getTransactionReceipt", &rc, pmt); err != nil {
				return err
			}
			if rc == nil {
				return fmt.Errorf("no receipt yet")
			}
			return nil
		})
		return *rc
	}
	deployed := wait(validators[1], send(map[string]any{"data": store}))
	if deployed.Status != "0x1" || deployed.ContractAddress == "" {
		t.Fatalf("deploy receipt %+v", deployed)
	}
	if set := wait(validators[1], send(map[string]any{"to": deployed.ContractAddress, "data": "0x" + strings.Repeat("0", 62) + "2a"})); set.Status != "0x1" {
		t.Fatalf("set receipt %+v", set)
	}
	want := "0x" + strings.Repeat("0", 62) + "2a"
	for i, n := range validators[:3] {
		var got string
		if err := rpc(ctx, nodeURL(n), "priv_call", &got, deployed.PrivacyGroupID, map[string]any{"to": deployed.ContractAddress}, "latest"); err != nil {
			t.Fatalf("priv_call on %s: %v", n, err)
		}
		if (i < 2 && got != want) || (i == 2 && got != "0x") {
			t.Errorf("priv_call on %s: %s", n, got)
		}
		t.Logf("priv_call on %s: %s", n, got)
	}
}
