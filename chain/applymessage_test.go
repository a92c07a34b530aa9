package chain

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/holiman/uint256"
)

// loopAddr holds JUMPDEST PUSH1 0 JUMP: a loop that only gas ends.
var loopAddr = common.HexToAddress("0x000000000000000000000000000000000000100f")

// A call stops when its context ends (the RPC timeout), with the context's
// error, and a finished call's EVM is not cancelled afterwards.
func TestApplyMessageStopsWithContext(t *testing.T) {
	c, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{})
	if err != nil {
		t.Fatal(err)
	}
	header := childHeader(c, c.Genesis())
	st, err := c.StateAt(c.Genesis().Root)
	if err != nil {
		t.Fatal(err)
	}
	st.SetCode(loopAddr, []byte{0x5b, 0x60, 0x00, 0x56}, 0)
	msg := &core.Message{
		From: testAddr, To: &loopAddr, GasLimit: 1 << 40, // minutes of looping
		Value: new(uint256.Int), GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Executor().ApplyMessage(ctx, header, st, msg, msg.GasLimit, CallOptions{NoBaseFee: true}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("looping call: %v, want the context's deadline", err)
	}

	// A short call under a context cancelled right after it returns.
	msg.To, msg.GasLimit, msg.Nonce = &echoAddr, 100_000, st.GetNonce(testAddr)
	ctx, cancel = context.WithCancel(context.Background())
	res, err := c.Executor().ApplyMessage(ctx, header, st, msg, msg.GasLimit, CallOptions{NoBaseFee: true})
	cancel()
	if err != nil || res.Err != nil {
		t.Fatalf("short call: %v %v", err, res)
	}
}

// BenchmarkApplyMessage is the per-call cost of eth_call below the RPC
// layer: a state on the shared reader of the head (ReadState), an EVM and
// a message run under a request's cancellable context.
func BenchmarkApplyMessage(b *testing.B) {
	c, err := Open(NewMemoryDatabase(), testGenesis(), testEngine{}, WithPrecompile(echoAddr, echoPrecompile{}))
	if err != nil {
		b.Fatal(err)
	}
	header := childHeader(c, c.Genesis())
	root := c.Genesis().Root
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			st, err := c.ReadState(root)
			if err != nil {
				b.Fatal(err)
			}
			msg := &core.Message{
				From: testAddr, To: &echoAddr, Data: []byte{1, 2, 3}, GasLimit: 100_000,
				Value: new(uint256.Int), GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int),
			}
			ctx, cancel := context.WithCancel(context.Background())
			res, err := c.Executor().ApplyMessage(ctx, header, st, msg, header.GasLimit, CallOptions{NoBaseFee: true})
			cancel()
			if err != nil || res.Err != nil {
				b.Fatal(err, res)
			}
		}
	})
}
