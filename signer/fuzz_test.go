package signer

import (
	"bytes"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// FuzzParseTx feeds arbitrary params to the transaction decoder: it must
// not panic, and what it accepts must sign.
func FuzzParseTx(f *testing.F) {
	for _, s := range []string{
		`[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","to":"0x627306090abab3a6e1400e9345bc60c78a8bef57","gas":"0x5208","gasPrice":"0x3e8","value":"0x1","data":"0xab","nonce":"0x1"}]`,
		`{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","maxFeePerGas":"0x2","maxPriorityFeePerGas":"0x1","accessList":[{"address":"0x627306090abab3a6e1400e9345bc60c78a8bef57","storageKeys":[]}]}`,
		`[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","privateFrom":"A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=","privateFor":["Ko2bVqD+nNlNYL5EE7y3IdOnviftjiizpjRt+HTuFBs="],"restriction":"restricted"}]`,
		`[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","privateFrom":"A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=","privacyGroupId":"DyAOiF/ynpc+JXa2YAGB0bCitSlOMNm+ShmB/7M6C4w=","restriction":"restricted","type":"0x0"}]`,
		// GoQuorum's shape (eth_sendTransaction with privateFor).
		`[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","data":"0x6000","privateFor":["Ko2bVqD+nNlNYL5EE7y3IdOnviftjiizpjRt+HTuFBs="],"privacyFlag":0,"mandatoryFor":[]}]`,
		`[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","to":"0x627306090abab3a6e1400e9345bc60c78a8bef57","data":"0x01","privateFrom":"A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=","privateFor":[],"value":"0x1"}]`,
		`[{"from":"x","gas":"99999999999999999999999"}]`, `[]`, `null`, `[1]`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	s, err := New(Config{ChainID: big.NewInt(1337), Keys: twoKeys{}, Downstream: newFakeNode(f).client(time.Second)})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, params []byte, private bool) {
		a, e := parseTx(params, s.chainID, private)
		if e == nil {
			e = a.defaultFees("fuzz")
		}
		if e != nil {
			if e.Code != -32602 && e != ErrEtherValueNotSupported {
				t.Fatalf("error code %d", e.Code)
			}
			return
		}
		if _, _, err := s.sign(devKey1, a, 3); err != nil {
			t.Fatalf("accepted %s but cannot sign: %v", params, err)
		}
	})
}

// FuzzRequest sends arbitrary bodies through the whole handler (with a
// fake node behind it): no panic, and every answer the signer writes
// itself is JSON.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}`,
		`{"jsonrpc":"2.0","id":"x","method":"eth_sign","params":["0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","0xdead"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","nonce":"0x1"}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_signTransaction","params":[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","nonce":"0x1"}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eea_sendTransaction","params":[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","privateFrom":"A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=","privateFor":[],"restriction":"restricted","nonce":"0x0"}]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_accounts"},{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"},3]`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","maxPriorityFeePerGas":"0x1"}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x68656c6c6f","0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","pw"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_signTypedData_v4","params":["0xfe3b557e8fb62b89f4916b721be55ceb828dbd73",` + mustJSON(mailTypedData) + `]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"0xfe3b557e8fb62b89f4916b721be55ceb828dbd73","data":"0x01","privateFor":[]}]}`,
		`{"jsonrpc":"2.0","id":{},"method":"eth_sign"}`, `[`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	node := newFakeNode(f)
	node.instant = true // no request log: it would grow with every input
	s, err := New(Config{ChainID: big.NewInt(1337), Keys: twoKeys{}, Downstream: node.client(time.Second)})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Header().Get("X-Node") == "" && w.Code < 500 && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("signer answered %d with invalid JSON %q", w.Code, w.Body.Bytes())
		}
	})
}
