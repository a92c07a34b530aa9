package k8stest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// The image builds with deploy/build.sh, holds the three programs (each
// answers --version as the build stamped it), runs as the non-root user
// with /data its working volume, fits the 40 MB (compressed) budget, and a
// dev node in it answers JSON-RPC.
func TestImage(t *testing.T) {
	buildImage(t)
	version := strings.TrimSpace(runOnce(t, imageTag, "--version"))
	if !strings.HasPrefix(version, "basalt/v") || !strings.Contains(version, "/linux-amd64/go") {
		t.Fatalf("basalt --version: %q", version)
	}
	v := strings.Split(version, "/")[1]
	for _, prog := range []string{"basalt-privacy", "basalt-signer"} {
		out := strings.TrimSpace(runOnce(t, "--entrypoint", "/usr/local/bin/"+prog, imageTag, "--version"))
		if !strings.HasPrefix(out, prog+"/"+v+"/") {
			t.Errorf("%s --version: %q, want version %s", prog, out, v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg, err := podman(ctx, "image", "inspect", "--format", "{{.Config.User}} {{.Config.WorkingDir}} {{range $k, $v := .Config.Volumes}}{{$k}}{{end}} {{len .Config.ExposedPorts}}", imageTag)
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(cfg); len(f) != 4 || f[0] != "10001:10001" || f[1] != "/data" || f[2] != "/data" || f[3] != "8" {
		t.Errorf("image config %q", cfg)
	}
	comp, raw := compressedSize(t)
	t.Logf("image %s: %.1f MB compressed, %.1f MB uncompressed", imageTag, float64(comp)/1e6, float64(raw)/1e6)
	if comp > 40<<20 {
		t.Errorf("image is %d bytes compressed, over 40 MB", comp)
	}
	if os.Getenv("BASALT_IMAGE_SIZE_FILE") != "" {
		os.WriteFile(os.Getenv("BASALT_IMAGE_SIZE_FILE"), []byte(fmt.Sprintf("%d %d\n", comp, raw)), 0o644)
	}

	// A dev node, its data in the image's /data volume (an anonymous
	// volume owned by the image's user), JSON-RPC on a free port.
	port := freePort(t)
	name := fmt.Sprintf("k8stest-dev-%d", port)
	if _, err := podman(ctx, append(append([]string{"run", "-d", "--name", name, "--network", "host", "--read-only", "--tmpfs", "/tmp"}, runFlags...),
		imageTag, "--network=dev", "--miner-enabled", "--miner-coinbase=0xfe3b557e8fb62b89f4916b721be55ceb828dbd73",
		"--rpc-http-enabled", "--rpc-http-host=127.0.0.1", fmt.Sprintf("--rpc-http-port=%d", port), "--p2p-enabled=false")...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if t.Failed() {
			logs, _ := podman(ctx, "logs", name)
			t.Logf("%s logs:\n%s", name, logs)
		}
		podman(ctx, "rm", "-f", "-v", name)
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	var chainID string
	eventually(t, "eth_chainId", time.Minute, func() error { return rpc(ctx, url, "eth_chainId", &chainID) })
	if chainID != "0x539" {
		t.Errorf("eth_chainId %s, want 0x539 (the dev network's 1337)", chainID)
	}
	var client string
	if err := rpc(ctx, url, "web3_clientVersion", &client); err != nil || client != version {
		t.Errorf("web3_clientVersion %q %v, want %q", client, err, version)
	}
	resp, err := http.Get(url + "/liveness")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/liveness: %v %v", resp, err)
	}
	resp.Body.Close()
}
