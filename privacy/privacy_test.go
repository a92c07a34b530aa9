package privacy

import (
	"encoding/base64"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/privacy/privstate"
)

// TestLegacyGroup checks the legacy privacy group ID against Orion's
// vectors (reference/privacy.md §6.1): the group a private transaction's
// nonce counts in must be the one the manager reports.
func TestLegacyGroup(t *testing.T) {
	for _, tc := range []struct {
		members []string
		want    string
	}{
		{[]string{"negmDcN2P4ODpqn/6WkJ02zT/0w0bjhGpkZ8UP6vARk=", "g59BmTeJIn7HIcnq8VQWgyh/pDbvbt2eyP0Ii60aDDw=", "6fg8q5rWMBoAT2oIiU3tYJbk4b7oAr7dxaaVY7TeM3U="},
			"/xzRjCLioUBkm5LYuzll61GXyrD5x7bvXzQk/ovJA/4="},
		{[]string{"7VInrT2gzFmqvtHthvpH5iLpvho038yf+dbiRHc1J1c=", "a7QHylXGWx5jP35GbuyYXIvUVIjivbthxwBtxXZdpSg="},
			"/6jgG/B4Jxq2zsRxbL+TKSI08Hs7WrL5rMegufnNzPo="},
	} {
		var ks [][]byte
		for _, m := range tc.members {
			k, _ := base64.StdEncoding.DecodeString(m)
			ks = append(ks, k)
		}
		g, err := LegacyGroup(ks[0], ks[1:])
		if err != nil || GroupIDString(g) != tc.want {
			t.Errorf("%v: %s %v, want %s", tc.members, GroupIDString(g), err, tc.want)
		}
		// The sender's key may come first or not: the ID is the set's.
		if g2, _ := LegacyGroup(ks[len(ks)-1], ks[:len(ks)-1]); g2 != g {
			t.Errorf("%v: the ID depends on the order", tc.members)
		}
	}
	if _, err := LegacyGroup(make([]byte, 31), nil); err == nil {
		t.Error("a 31-byte key was accepted")
	}
}

// TestContractAddress: Besu's rule, keccak256(RLP[sender, nonce, group])[12:].
func TestContractAddress(t *testing.T) {
	sender := common.HexToAddress("0xfe3b557e8fb62b89f4916b721be55ceb828dbd73")
	group := common.HexToHash("0x0102")
	b, _ := rlp.EncodeToBytes([]any{sender.Bytes(), uint64(5), group.Bytes()})
	want := common.BytesToAddress(crypto.Keccak256(b)[12:])
	if got := ContractAddress(sender, 5, group); got != want {
		t.Fatalf("%s, want %s", got.Hex(), want.Hex())
	}
	if ContractAddress(sender, 5, group) == crypto.CreateAddress(sender, 5) {
		t.Fatal("the private address is the public CREATE address")
	}
	if ContractAddress(sender, 5, common.HexToHash("0x0103")) == want {
		t.Fatal("the address does not depend on the group")
	}
}

func TestMatches(t *testing.T) {
	a, b := common.HexToAddress("0xa"), common.HexToAddress("0xb")
	t1, t2 := common.HexToHash("0x1"), common.HexToHash("0x2")
	l := &types.Log{Address: a, Topics: []common.Hash{t1, t2}}
	for _, tc := range []struct {
		q    LogQuery
		want bool
	}{
		{LogQuery{}, true},
		{LogQuery{Addresses: []common.Address{b}}, false},
		{LogQuery{Addresses: []common.Address{b, a}}, true},
		{LogQuery{Topics: [][]common.Hash{{t1}}}, true},
		{LogQuery{Topics: [][]common.Hash{{t2}}}, false},
		{LogQuery{Topics: [][]common.Hash{nil, {t1, t2}}}, true},
		{LogQuery{Topics: [][]common.Hash{nil, nil, nil}}, false},
	} {
		if got := matches(l, tc.q); got != tc.want {
			t.Errorf("%+v: %v", tc.q, got)
		}
	}
}

func TestSetRootKeepsGroupsSorted(t *testing.T) {
	r := &privstate.Record{}
	g1, g2 := common.HexToHash("0x02"), common.HexToHash("0x01")
	setRoot(r, g1, common.HexToHash("0xaa"))
	setRoot(r, g2, common.HexToHash("0xbb"))
	setRoot(r, g1, common.HexToHash("0xcc"))
	if len(r.Roots) != 2 || r.Roots[0].Group != g2 || r.Root(g1) != common.HexToHash("0xcc") || r.Root(common.Hash{}) != types.EmptyRootHash {
		t.Fatalf("%+v", r.Roots)
	}
}
