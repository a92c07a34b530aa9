package k8stest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// imageTag is the image the tests build (deploy/build.sh --image).
const imageTag = "localhost/basalt:k8stest"

// runFlags are podman's run options on this kind of machine: crun fails
// on its hybrid cgroups, and the default ulimits exceed its hard limits.
var runFlags = []string{"--runtime", "runc", "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768"}

// needPodman skips the test where podman (and root, which the runner needs
// to give volumes to the image's user) is missing.
func needPodman(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed (apt-get install podman buildah runc): the image and the chart's network are not tested")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: the tests run podman as root (rootful containers, volumes owned by the image's user)")
	}
	if testing.Short() {
		t.Skip("-short: the image is not built")
	}
}

var (
	buildOnce sync.Once
	buildErr  error
	buildLog  []byte
)

// buildImage builds the image once per test run with the repository's
// documented command.
func buildImage(t *testing.T) {
	t.Helper()
	needPodman(t)
	buildOnce.Do(func() {
		cmd := exec.Command("bash", "deploy/build.sh", "--image", strings.TrimPrefix(imageTag, "localhost/basalt:"))
		cmd.Dir = "../.."
		buildLog, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("deploy/build.sh --image: %v\n%s", buildErr, buildLog)
	}
}

// podman runs podman and returns its standard output.
func podman(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "podman", args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("podman %s: %v: %s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), nil
}

// run runs a container to completion and returns its output.
func runOnce(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := podman(ctx, append(append([]string{"run", "--rm"}, runFlags...), args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// compressedSize is the image's size as a registry stores it: its layers
// gzipped (podman save writes them uncompressed).
func compressedSize(t *testing.T) (compressed, uncompressed int64) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := podman(ctx, "save", "--format", "oci-dir", "-o", filepath.Join(dir, "oci"), imageTag); err != nil {
		t.Fatal(err)
	}
	blobs, err := filepath.Glob(filepath.Join(dir, "oci", "blobs", "sha256", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blobs {
		data, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b { // a gzipped layer
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, zr)
			if err != nil {
				t.Fatal(err)
			}
			compressed += int64(len(data))
			uncompressed += n
			continue
		}
		var cw countWriter
		zw, _ := gzip.NewWriterLevel(&cw, gzip.DefaultCompression)
		zw.Write(data)
		zw.Close()
		compressed += cw.n
		uncompressed += int64(len(data))
	}
	return compressed, uncompressed
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// freePort is a TCP port free on every address now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// rpc calls a JSON-RPC method and decodes its result into out.
func rpc(ctx context.Context, url, method string, out any, params ...any) error {
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("%s: HTTP %d: %v", method, resp.StatusCode, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: %d %s", method, r.Error.Code, r.Error.Message)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result, out)
}

// eventually polls f until it returns nil or the deadline passes.
func eventually(t *testing.T, what string, timeout time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
