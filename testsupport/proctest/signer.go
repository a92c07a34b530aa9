package proctest

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// WaitSignerUp waits until a basalt-signer started with --data-path=data
// has written its ports file (ethsigner.ports, EthSigner's) and answers
// /upcheck with 200, and returns its JSON-RPC URL.
func (p *Process) WaitSignerUp(t testing.TB, data string, timeout time.Duration) string {
	t.Helper()
	var url string
	p.WaitUp(t, timeout, 20*time.Millisecond, "signer to start", func() bool {
		b, err := os.ReadFile(filepath.Join(data, "ethsigner.ports"))
		if err != nil {
			return false
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "http-jsonrpc="); ok {
				url = "http://127.0.0.1:" + strings.TrimSpace(v)
			}
		}
		if url == "" {
			return false
		}
		resp, err := http.Get(url + "/upcheck")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return url
}
