package enclave_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/privacy/enclave"
	"github.com/basaltchain/basalt/testsupport/ptmtest"
)

func TestClientAgainstManager(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "a"), Keys: []string{"a"}})
	b := ptmtest.StartInProcess(t, ptmtest.Conf{Dir: filepath.Join(dir, "b"), Keys: []string{"b"}, OtherNodes: []string{a.Conf.NodeURL()}})
	ptmtest.WaitFor(t, 15*time.Second, "discovery", func() bool {
		return len(a.Inst.Table.Entries()) == 2 && len(b.Inst.Table.Entries()) == 2
	})
	ctx := context.Background()
	ca, err := enclave.New(enclave.Config{URL: a.Inst.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	cb, _ := enclave.New(enclave.Config{URL: b.Inst.ClientURL()})
	if err := ca.Upcheck(ctx); err != nil {
		t.Fatal(err)
	}
	A, B := a.Keys[0].String(), b.Keys[0].String()
	rlp := []byte{0xc3, 0x01, 0x02, 0x03}
	key, err := ca.Send(ctx, rlp, A, []string{B})
	if err != nil {
		t.Fatal(err)
	}
	got, err := cb.Receive(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Payload, rlp) || got.SenderKey != A || got.PrivacyGroupID == "" {
		t.Fatalf("received %+v", got)
	}
	// The manager's plaintext is base64(rlp) as ASCII (double Base64).
	raw, _, err := b.Receive(base64Key(key), nil)
	if err != nil || string(raw.Payload) != "wwECAw==" {
		t.Fatalf("manager plaintext %q, %v", raw.Payload, err)
	}
	// Unknown key: a 4xx, "not ours".
	_, err = cb.Receive(ctx, bytes.Repeat([]byte{7}, 32))
	if !enclave.IsNotOurs(err) || enclave.Code(err) != "EnclavePayloadNotFound" {
		t.Fatalf("unknown key: %v", err)
	}
	g, err := ca.CreatePrivacyGroup(ctx, []string{A, B}, A, "g", "d")
	if err != nil || g.Type != "PANTHEON" {
		t.Fatalf("create: %+v %v", g, err)
	}
	found, err := ca.FindPrivacyGroup(ctx, []string{B, A})
	if err != nil || len(found) < 1 {
		t.Fatalf("find: %+v %v", found, err)
	}
	if id, err := ca.DeletePrivacyGroup(ctx, g.PrivacyGroupID, A); err != nil || id != g.PrivacyGroupID {
		t.Fatalf("delete: %q %v", id, err)
	}
	if _, err := ca.DeletePrivacyGroup(ctx, g.PrivacyGroupID, A); enclave.Code(err) != "PrivacyGroupNotDeleted" {
		t.Fatalf("second delete: %v", err)
	}
}

func base64Key(k []byte) string { return enclaveB64(k) }

func TestUpcheckDown(t *testing.T) {
	t.Parallel()
	url := "http://127.0.0.1:" + itoa(ptmtest.FreePort(t))
	c, err := enclave.New(enclave.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Upcheck(context.Background())
	if err == nil || !strings.Contains(err.Error(), url) {
		t.Fatalf("upcheck of a closed port: %v", err)
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "localhost:8888", "ftp://x:1", "http://"} {
		if _, err := enclave.New(enclave.Config{URL: u}); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
}

func TestPayloadCodec(t *testing.T) {
	rlp := []byte{0xf8, 0x01, 0xff}
	f := enclave.EncodePayload(rlp)
	back, err := enclave.DecodePayload(f)
	if err != nil || !bytes.Equal(back, rlp) {
		t.Fatalf("%q -> %x %v", f, back, err)
	}
	if _, err := enclave.DecodePayload("+A=="); err == nil {
		t.Fatal("single Base64 accepted")
	}
}
