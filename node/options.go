package node

import "github.com/basaltchain/basalt/chain"

// Option adjusts what New assembles beyond what config.Config says: the
// hooks of programs and tests that embed a node.
type Option func(*options)

// options are New's Options, applied.
type options struct {
	exec []chain.ExecOption
}

// WithExecOptions passes parameters to the chain's block executor (extra
// precompiles, a tracer, a policy for the blocks the node builds), so they
// hold for every block the node imports, receives, mines or re-executes and
// for every eth_call, eth_estimateGas and eth_createAccessList it answers.
func WithExecOptions(opts ...chain.ExecOption) Option {
	return func(o *options) { o.exec = append(o.exec, opts...) }
}
