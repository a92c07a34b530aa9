package rpctypes

import (
	"encoding/json"
	"testing"
)

// Java's Long.decode, which Besu's block parameters use.
func TestDecodeLong(t *testing.T) {
	ok := []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"25", 25}, {"0x19", 25}, {"0X19", 25}, {"#19", 25}, {"031", 25},
		{"-0x10", -16}, {"+7", 7}, {"-5", -5}, {"0x7fffffffffffffff", 1<<63 - 1},
		{"-9223372036854775808", -1 << 63},
	}
	for _, c := range ok {
		got, err := DecodeLong(c.in)
		if err != nil || got != c.want {
			t.Errorf("DecodeLong(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "0x", "-", "0x-1", "--1", "08", "0x8000000000000000", "1e3", "0xg", " 1", "latest"} {
		if got, err := DecodeLong(in); err == nil {
			t.Errorf("DecodeLong(%q) = %d, want an error", in, got)
		}
	}
}

func TestBlockNumber(t *testing.T) {
	for in, want := range map[string]BlockNumber{
		`"latest"`: {Tag: TagLatest}, `"0x1"`: {Number: 1}, `"-0x10"`: {Number: -16},
		`"0x20202020202020"`: {Number: 0x20202020202020}, `7`: {Number: 7},
	} {
		var got BlockNumber
		if err := json.Unmarshal([]byte(in), &got); err != nil || got != want {
			t.Errorf("%s: got %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{`"0x02020202020202020202020202"`, `"invalidtag"`, `{}`, `"0x"`} {
		var got BlockNumber
		if err := json.Unmarshal([]byte(in), &got); err == nil {
			t.Errorf("%s: got %+v, want an error", in, got)
		}
	}
}
