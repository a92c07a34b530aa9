package privacy

// Precompile is the privacy precompile as the EVM runs it: it costs no
// gas and returns nothing. Besu's does its work inside the call; here the
// work — fetching the private transaction and executing it on private
// state — is the Processor's, which the chain runs as it stores each block
// (chain.BlockHook), so block building and simulations stay free of it (as
// Besu's precompile does nothing while mining or simulating). Calling it
// is then exactly calling an empty account, so nodes without privacy and
// members of other groups agree on the public state and gas of every
// marker transaction. Like every extra precompile it is not pre-warmed
// (chain.WithPrecompile): a contract that calls it pays the cold-account
// cost, as it would calling an empty account on a node without privacy.
type Precompile struct{}

// RequiredGas implements vm.PrecompiledContract.
func (Precompile) RequiredGas([]byte) uint64 { return 0 }

// Run implements vm.PrecompiledContract.
func (Precompile) Run([]byte) ([]byte, error) { return nil, nil }

// Name implements vm.PrecompiledContract.
func (Precompile) Name() string { return "PRIVACY" }
