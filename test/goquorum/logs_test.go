package goquorum

import "testing"

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
