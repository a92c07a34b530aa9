package api

import (
	"encoding/json"
	"math/big"
	"strings"
)

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// parseBig parses a hex (0x-prefixed) or decimal integer.
func parseBig(s string) (*big.Int, bool) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		if len(s) == 2 {
			return nil, false
		}
		return new(big.Int).SetString(s[2:], 16)
	}
	return new(big.Int).SetString(s, 10)
}
