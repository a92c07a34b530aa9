package goquorum

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestLateMessage: the log filter of checkGethLogs lets through only
// rejections of messages for heights GoQuorum had already finished.
func TestLateMessage(t *testing.T) {
	const prefix = `ERROR[11-25|06:34:18.007] QBFT: invalid message signature address=0x17530b6e554F73A8C1BF0E027b3B24720A7937b7 current.round=0 current.sequence=18 state="Accept request" msg.code=20 msg.source=0x0000000000000000000000000000000000000000 msg.round=0 `
	for line, want := range map[string]bool{
		prefix + `msg.sequence=17 err="unauthorized address"`:                  true,
		prefix + `msg.sequence=18 err="unauthorized address"`:                  false,
		prefix + `msg.sequence=19 err="unauthorized address"`:                  false,
		`ERROR[11-25|06:34:18.007] QBFT: invalid message err="rlp: too short"`: false,
	} {
		if got := lateMessage(line); got != want {
			t.Errorf("lateMessage(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestProposalRaces: the excuse of ownProposalRaces passes over the
// PREPARE digest rejections at a view for which GoQuorum node A broadcast
// two PRE-PREPAREs of different blocks (the log lines of a run in which
// the Basalt nodes took A's first block and the GoQuorum nodes its
// second), and no others: not at another view, not when A proposed one
// block, not another kind of rejection.
func TestProposalRaces(t *testing.T) {
	addrs := []common.Address{
		common.HexToAddress("0x17530b6e554F73A8C1BF0E027b3B24720A7937b7"),
		common.HexToAddress("0x492D3684Df6229aD8188c49c22afBeF3Aa3617F4"),
	}
	const (
		first   = `INFO [11-29|04:59:49.627] QBFT: broadcast PRE-PREPARE message      address=0x17530b6e554F73A8C1BF0E027b3B24720A7937b7 current.round=0 current.sequence=22 state="Accept request" msg.code=18 msg.source=0x17530b6e554F73A8C1BF0E027b3B24720A7937b7 msg.round=0 msg.sequence=22 block.number=22 block.hash=0xd24c829888dceca8dbc07f4d9c278e32cc432fb2ea91eb61333c24491919ae36`
		second  = `INFO [11-29|04:59:49.627] QBFT: broadcast PRE-PREPARE message      address=0x17530b6e554F73A8C1BF0E027b3B24720A7937b7 current.round=0 current.sequence=22 state="Accept request" msg.code=18 msg.source=0x17530b6e554F73A8C1BF0E027b3B24720A7937b7 msg.round=0 msg.sequence=22 block.number=22 block.hash=0x74278267185fedfea4d30bc65cbf258f0ca9bc36d1d23c946b54e774b909285a`
		onA     = `ERROR[11-29|04:59:49.630] QBFT: invalid PREPARE message digest     address=0x17530b6e554F73A8C1BF0E027b3B24720A7937b7 current.round=0 current.sequence=22 state=Preprepared      msg.code=19 msg.source=0x95d0B5838525C403a282E8D0C260a1a412ceD470 msg.round=0 msg.sequence=22`
		onB     = `ERROR[11-29|04:59:49.631] QBFT: invalid PREPARE message digest     address=0x492D3684Df6229aD8188c49c22afBeF3Aa3617F4 current.round=0 current.sequence=22 state=Preprepared      msg.code=19 msg.source=0x37D4A6946f65a0A6963a80c70bA27dAE6257F855 msg.round=0 msg.sequence=22`
		laterB  = `ERROR[11-29|04:59:52.631] QBFT: invalid PREPARE message digest     address=0x492D3684Df6229aD8188c49c22afBeF3Aa3617F4 current.round=1 current.sequence=22 state=Preprepared      msg.code=19 msg.source=0x37D4A6946f65a0A6963a80c70bA27dAE6257F855 msg.round=1 msg.sequence=22`
		justify = `WARN [11-29|04:59:52.631] QBFT: invalid PRE-PREPARE message justification address=0x492D3684Df6229aD8188c49c22afBeF3Aa3617F4 current.round=0 current.sequence=22 msg.round=0 msg.sequence=22`
	)
	both := proposalRaces([]string{first + "\n" + second + "\n" + onA, onB + "\n" + laterB}, addrs, 4)
	for _, tc := range []struct {
		node int
		line string
		want bool
	}{{0, onA, true}, {1, onB, true}, {1, laterB, false}, {1, justify, false}} {
		if got := both(tc.node, tc.line); got != tc.want {
			t.Errorf("after two PRE-PREPAREs, excuse(%d, %.80s…) = %v, want %v", tc.node, tc.line[60:], got, tc.want)
		}
	}
	one := proposalRaces([]string{first + "\n" + onA, onB}, addrs, 4)
	if one(0, onA) || one(1, onB) {
		t.Error("after one PRE-PREPARE, PREPARE digest rejections by two nodes are excused")
	}
}
