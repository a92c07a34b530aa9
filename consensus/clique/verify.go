package clique

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/basaltchain/basalt/consensus"

	"github.com/basaltchain/basalt/consensus/feemarket"
)

// allowedFutureDrift is how far ahead of the local clock a header's
// timestamp may be (Besu's TimestampBoundedByFutureParameter(10)).
const allowedFutureDrift = 10 // seconds

// verifyFields checks the rules of header that need no signer state: its
// number, timestamp (at least a period after the parent's, at most 10 s
// ahead of now), extraData layout (a signer list only on checkpoints), the
// constant fields (mix digest zero, no ommers), the vote (nonce add or
// drop; none on a checkpoint), the difficulty's range, gas, the fields of
// the timestamp forks active at the header and, with createemptyblocks
// false, that it has transactions. It returns the decoded extraData.
func verifyFields(config *params.ChainConfig, cfg Config, header, parent *types.Header, now time.Time) (Extra, error) {
	if header.Number == nil || header.Difficulty == nil || parent.Number == nil {
		return Extra{}, errors.New("clique: header without number or difficulty")
	}
	if new(big.Int).Sub(header.Number, parent.Number).Cmp(common.Big1) != 0 {
		return Extra{}, consensus.ErrInvalidNumber
	}
	number := header.Number.Uint64()
	if nowSec := now.Unix(); nowSec >= 0 && header.Time > uint64(nowSec)+allowedFutureDrift {
		return Extra{}, consensus.ErrFutureBlock
	}
	if header.Time < parent.Time+cfg.Period {
		return Extra{}, fmt.Errorf("clique: %w: %d after %d, period %d", consensus.ErrInvalidTimestamp, header.Time, parent.Time, cfg.Period)
	}
	ex, err := ParseExtra(header.Extra)
	if err != nil {
		return Extra{}, err
	}
	checkpoint := number%cfg.Epoch == 0
	if !checkpoint && len(ex.Signers) > 0 {
		return Extra{}, errSignersOffEpoch
	}
	if header.MixDigest != (common.Hash{}) {
		return Extra{}, fmt.Errorf("clique: %w: must be zero", consensus.ErrInvalidMixDigest)
	}
	if header.UncleHash != types.EmptyUncleHash {
		return Extra{}, fmt.Errorf("clique: %w", consensus.ErrUnexpectedUncles)
	}
	if _, _, voted, err := voteOf(header); err != nil {
		return Extra{}, err
	} else if checkpoint && voted {
		return Extra{}, errCheckpointVote
	}
	if header.Difficulty.Cmp(DiffInTurn) != 0 && header.Difficulty.Cmp(DiffNoTurn) != 0 {
		return Extra{}, fmt.Errorf("clique: %w: %v is neither 1 nor 2", consensus.ErrInvalidDifficulty, header.Difficulty)
	}
	if err := feemarket.VerifyGas(config, header, parent); err != nil {
		return Extra{}, err
	}
	if err := verifyForkFields(config, header, parent); err != nil {
		return Extra{}, err
	}
	if !cfg.CreateEmptyBlocks && header.TxHash == types.EmptyTxsHash {
		return Extra{}, errEmptyBlock
	}
	return ex, nil
}

// verifyForkFields checks the fields of Shanghai, Cancun and Prague, which a
// Clique header carries when those timestamp forks are configured (Besu
// runs them on Clique): each must be present exactly when its fork is
// active, and the withdrawals root must be the empty one (no consensus
// layer, no withdrawals). Amsterdam is not supported.
func verifyForkFields(config *params.ChainConfig, header, parent *types.Header) error {
	if err := consensus.VerifyForkFields(config, header, parent); err != nil {
		return fmt.Errorf("clique: %w", err)
	}
	if h := header.WithdrawalsHash; h != nil && *h != types.EmptyWithdrawalsHash {
		return fmt.Errorf("clique: invalid withdrawalsRoot %x: Clique blocks carry no withdrawals", *h)
	}
	if config.IsAmsterdam(header.Number, header.Time) {
		return errors.New("clique: the Amsterdam fork is not supported")
	}
	if header.BlockAccessListHash != nil || header.SlotNumber != nil {
		return errors.New("clique: Amsterdam header fields before Amsterdam")
	}
	return nil
}
