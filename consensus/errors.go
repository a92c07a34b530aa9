package consensus

import "errors"

// Errors of header verification that more than one engine returns, as
// go-ethereum's consensus/errors.go keeps them: an engine returns one of
// these (wrapped with its name or the values at fault) rather than its own
// copy, so that the chain and the tests tell the rule broken with errors.Is
// whichever engine runs.
var (
	ErrUnknownAncestor = errors.New("unknown ancestor")
	ErrInvalidNumber   = errors.New("invalid block number")
	ErrFutureBlock     = errors.New("block in the future")
	ErrInvalidSeal     = errors.New("invalid seal")
	ErrTooManyUncles   = errors.New("too many uncles")
	// ErrUnexpectedUncles is an ommer, or a non-empty ommers hash, where the
	// engine has none (Clique, BFT, proof of stake).
	ErrUnexpectedUncles  = errors.New("ommers not allowed")
	ErrInvalidMixDigest  = errors.New("invalid mix digest")
	ErrInvalidNonce      = errors.New("invalid nonce")
	ErrInvalidDifficulty = errors.New("invalid difficulty")
	// ErrInvalidTimestamp is a timestamp too close to the parent's (not
	// after it, or under the engine's block period).
	ErrInvalidTimestamp = errors.New("invalid timestamp")
)
