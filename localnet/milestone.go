package localnet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
)

// Milestones are the rule sets a network can run, oldest first, named as
// Besu names its protocol milestones. A network runs the chosen one and
// every earlier one from block 0.
var Milestones = []string{"berlin", "london", "shanghai", "cancun", "prague", "osaka"}

// DefaultMilestone is the newest milestone Basalt executes, as on the dev
// network: contracts compiled by today's solc with its defaults (PUSH0,
// MCOPY, ...) run unchanged.
const DefaultMilestone = "osaka"

// legacyMilestone is what networks created before --milestone run (their
// manifest names none).
const legacyMilestone = "london"

// milestoneIndex is m's position in Milestones, or -1.
func milestoneIndex(m string) int { return slices.Index(Milestones, m) }

func checkMilestone(m string) error {
	if milestoneIndex(m) < 0 {
		return fmt.Errorf("--milestone must be one of %s, got %q", strings.Join(Milestones, ", "), m)
	}
	return nil
}

// forkKeys sets in the genesis config c the Besu milestone keys of
// milestone, every one at genesis (block 0 or timestamp 0; config's
// completion fills in the earlier block forks), and adds to alloc the
// system contracts the timestamp forks call. It reports whether London
// (EIP-1559, so Besu's zeroBaseFee) is active.
//
// Blob parameters are left to the defaults Besu and go-ethereum share;
// the nodes refuse blob transactions anyway (no consensus layer carries
// sidecars), so blocks hold none. Shanghai+ headers carry an empty
// withdrawals list and, from Cancun, zero blob gas and a zero parent
// beacon block root (there is no beacon chain).
func forkKeys(milestone string, c, alloc map[string]any) (london bool) {
	i := milestoneIndex(milestone)
	if i < 0 {
		i = milestoneIndex(DefaultMilestone)
	}
	c["berlinBlock"] = 0
	if i >= milestoneIndex("london") {
		c["londonBlock"] = 0
	}
	for j := milestoneIndex("shanghai"); j <= i; j++ {
		c[Milestones[j]+"Time"] = 0
	}
	system := map[string][]common.Address{
		// EIP-4788's contract, which every Cancun block calls.
		"cancun": {params.BeaconRootsAddress},
		// EIP-2935's history, EIP-7002's and EIP-7251's queues, which
		// every Prague block calls (a block fails without their code).
		"prague": {params.HistoryStorageAddress, params.WithdrawalQueueAddress, params.ConsolidationQueueAddress},
	}
	code := map[common.Address][]byte{
		params.BeaconRootsAddress:        params.BeaconRootsCode,
		params.HistoryStorageAddress:     params.HistoryStorageCode,
		params.WithdrawalQueueAddress:    params.WithdrawalQueueCode,
		params.ConsolidationQueueAddress: params.ConsolidationQueueCode,
	}
	for _, m := range Milestones[:i+1] {
		for _, a := range system[m] {
			alloc[strings.ToLower(a.Hex()[2:])] = map[string]any{"balance": "0x0", "nonce": "0x1", "code": hexutil.Encode(code[a])}
		}
	}
	return i >= milestoneIndex("london")
}
