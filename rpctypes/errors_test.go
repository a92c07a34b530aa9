package rpctypes

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestErrors(t *testing.T) {
	e := InvalidParams("bad hex")
	if e.Message != "Invalid params (bad hex)" || e.Code != -32602 {
		t.Errorf("InvalidParams: %+v", e)
	}
	if !errors.Is(e, ErrInvalidParams) || errors.Is(e, ErrInvalidParamCount) {
		t.Error("Is with reason")
	}
	if !errors.Is(fmt.Errorf("x: %w", ErrTimeout), ErrTimeout) || errors.Is(ErrTimeout, ErrInternal) {
		t.Error("Is")
	}
	if ErrInvalidParams.Message != "Invalid params" {
		t.Error("WithReason modified the shared error")
	}
	for _, tc := range []struct {
		data, msg string
	}{
		{"0x", "Execution reverted"},
		{"0x1234", "Execution reverted"},
		{"0x08c379a0", "Execution reverted (ABI decode error)"},
		{"0x08c379a0" + strings.Repeat("00", 31) + "20" + strings.Repeat("00", 31) + "ff", "Execution reverted (ABI decode error)"},
	} {
		raw, _ := hexDecode(tc.data)
		if got := Revert(raw); got.Message != tc.msg || got.Data != tc.data {
			t.Errorf("Revert(%s) = %q %v, want %q", tc.data, got.Message, got.Data, tc.msg)
		}
	}
}

func hexDecode(s string) ([]byte, error) {
	return hex.DecodeString(strings.TrimPrefix(s, "0x"))
}
