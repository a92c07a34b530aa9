package groupid

import (
	"encoding/base64"
	"testing"
)

// TestIDVectors: legacy group ids of reference/privacy.md §6.1 and Orion's
// keySets.json, whatever the members' order and duplicates (for these
// keys); a seed changes the id.
func TestIDVectors(t *testing.T) {
	vectors := []struct {
		members []string
		id      string
	}{
		{[]string{"negmDcN2P4ODpqn/6WkJ02zT/0w0bjhGpkZ8UP6vARk=", "g59BmTeJIn7HIcnq8VQWgyh/pDbvbt2eyP0Ii60aDDw=", "6fg8q5rWMBoAT2oIiU3tYJbk4b7oAr7dxaaVY7TeM3U="}, "/xzRjCLioUBkm5LYuzll61GXyrD5x7bvXzQk/ovJA/4="},
		{[]string{"7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg="}, "/6jgG/B4Jxq2zsRxbL+TKSI08Hs7WrL5rMegufnNzPo="},
		{[]string{"a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg=", "7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c="}, "/6jgG/B4Jxq2zsRxbL+TKSI08Hs7WrL5rMegufnNzPo="},
		{[]string{"7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "d9DBF78YVIYPHfZDSmS5IJ7KHZHqwXXP+HPGKaFN+yQ="}, "xQdJRZp0ejzJRqU6N3+EsFo+qTIcdWX50V6YTyvBepw="},
	}
	for _, v := range vectors {
		members := make([][32]byte, len(v.members))
		for i, m := range v.members {
			b, err := base64.StdEncoding.DecodeString(m)
			if err != nil || len(b) != 32 {
				t.Fatalf("bad vector key %q", m)
			}
			members[i] = [32]byte(b)
		}
		id := ID(members, nil)
		if got := base64.StdEncoding.EncodeToString(id[:]); got != v.id {
			t.Errorf("%v: %s, want %s", v.members, got, v.id)
		}
		if ID(members, []byte{1, 2, 3}) == id {
			t.Errorf("%v: a seed leaves the id unchanged", v.members)
		}
	}
}

func TestJavaHashCode(t *testing.T) {
	// Arrays.hashCode of 32 zero bytes is 31^32 mod 2^32.
	want := int32(1)
	for range 32 {
		want *= 31
	}
	if got := JavaHashCode(make([]byte, 32)); got != want {
		t.Errorf("zero key: %d, want %d", got, want)
	}
	ff := make([]byte, 32)
	for i := range ff {
		ff[i] = 0xff // -1 as a Java byte
	}
	h := int32(1)
	for range 32 {
		h = 31*h - 1
	}
	if got := JavaHashCode(ff); got != h {
		t.Errorf("0xff key: %d, want %d", got, h)
	}
}
