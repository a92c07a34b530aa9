package api

import "github.com/basaltchain/basalt/rpctypes"

// The parameter errors the method tables declare (rpctypes.Method.ParamErrors,
// Besu's INVALID_*_PARAMS, one a parameter), under short names so that a
// method's row stays one line. One set serves every group's table.
var (
	pAddress    = rpctypes.ErrInvalidAddressParams
	pBlock      = rpctypes.ErrInvalidBlockParams
	pBlockHash  = rpctypes.ErrInvalidBlockHashParams
	pTxHash     = rpctypes.ErrInvalidTransactionHashParams
	pFullTxs    = rpctypes.ErrInvalidReturnCompleteTxParams
	pCall       = rpctypes.ErrInvalidCallParams
	pUncleIndex = rpctypes.ErrInvalidBlockIndexParams
	pTrace      = rpctypes.ErrInvalidTransactionTraceParams
)
