package api

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/basaltchain/basalt/backend"
)

// addRevertReasons sets revertReason on the receipts of the block of
// header that reverted, replaying the block once for all of them; without
// --revert-reason-enabled, or when no receipt reverted, it does nothing. A
// failed replay leaves the receipts without it: the receipt itself is
// still right.
func addRevertReasons(b *backend.Backend, header *types.Header, hash common.Hash, receipts ...*ReceiptJSON) {
	if !b.Config.RevertReasons {
		return
	}
	failed := false
	for _, r := range receipts {
		failed = failed || (r.Status != nil && *r.Status == 0)
	}
	if !failed {
		return
	}
	reasons, err := b.RevertReasons(context.Background(), header, hash)
	if err != nil {
		return
	}
	for _, r := range receipts {
		if reason, ok := reasons[int(r.TransactionIndex)]; ok && r.Status != nil && *r.Status == 0 {
			rr := hexutil.Bytes(reason)
			r.RevertReason = &rr
		}
	}
}
