package api

import (
	"encoding/json"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/rpc"

	"github.com/basaltchain/basalt/rpctypes"
)

// Register adds the methods of every group to r. The node passes the groups
// of its services (Groups) followed by those of its consensus engine.
func Register(r *rpc.Registry, groups ...rpctypes.Group) error {
	return r.RegisterGroups(groups)
}

// Groups returns the method groups the backend's services serve: ETH
// (with the filter methods when b.Filters is set), NET, WEB3, MINER, ADMIN,
// TXPOOL, DEBUG (but debug_metrics, which the node adds) and PERM. Groups provided by a consensus engine (CLIQUE, IBFT, QBFT) are not
// among them.
func Groups(b *backend.Backend) []rpctypes.Group {
	e, n, w, m := &Eth{b}, &Net{b}, &Web3{b}, &Miner{b}
	var (
		// Besu's block-parameter methods read the block first, so with a
		// block parameter missing or bad that is the error reported.
		blockSecond = []int{1, 0}
		blockThird  = []int{2, 0, 1}
		// The execution-apis spec makes the block parameter of the state
		// methods and eth_call optional, meaning "latest"; Besu requires
		// it. An omitted (or null) one is "latest", and a request that
		// fails on another parameter still gets Besu's error, which names
		// the block parameter it reads first (see rpctypes.Method.ParamDefaults).
		latestSecond = []json.RawMessage{1: json.RawMessage(`"latest"`)}
		latestThird  = []json.RawMessage{2: json.RawMessage(`"latest"`)}
	)
	eth := []rpctypes.Method{
		{Name: "eth_chainId", Fn: e.ChainID},
		{Name: "eth_protocolVersion", Fn: e.ProtocolVersion},
		{Name: "eth_syncing", Fn: e.Syncing},
		{Name: "eth_blockNumber", Fn: e.BlockNumber},
		{Name: "eth_accounts", Fn: e.Accounts},
		{Name: "eth_gasPrice", Fn: e.GasPrice},
		{Name: "eth_maxPriorityFeePerGas", Fn: e.MaxPriorityFeePerGas},
		{Name: "eth_blobBaseFee", Fn: e.BlobBaseFee},
		{Name: "eth_feeHistory", Fn: e.FeeHistory, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidBlockCountParams, pBlock, rpctypes.ErrInvalidRewardPercentilesParams}},
		{Name: "eth_config", Fn: e.Config},
		{Name: "eth_getBalance", Fn: e.GetBalance, ParamErrors: []*rpctypes.Error{pAddress, pBlock}, ParamOrder: blockSecond, ParamDefaults: latestSecond},
		{Name: "eth_getTransactionCount", Fn: e.GetTransactionCount, ParamErrors: []*rpctypes.Error{pAddress, pBlock}, ParamOrder: blockSecond, ParamDefaults: latestSecond},
		{Name: "eth_getCode", Fn: e.GetCode, ParamErrors: []*rpctypes.Error{pAddress, pBlock}, ParamOrder: blockSecond, ParamDefaults: latestSecond},
		{Name: "eth_getStorageAt", Fn: e.GetStorageAt, ParamErrors: []*rpctypes.Error{pAddress, rpctypes.ErrInvalidPositionParams, pBlock}, ParamOrder: blockThird, ParamDefaults: latestThird},
		{Name: "eth_getProof", Fn: e.GetProof, ParamErrors: []*rpctypes.Error{pAddress, rpctypes.ErrInvalidStorageKeysParams, pBlock}, ParamOrder: blockThird, ParamDefaults: latestThird},
		{Name: "eth_sendRawTransaction", Fn: e.SendRawTransaction, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidTransactionParams}, ExactParamCount: true},
		{Name: "eth_sendTransaction", Fn: e.SendTransaction, AllowExtraParams: true},
		{Name: "eth_getTransactionByHash", Fn: e.GetTransactionByHash, ParamErrors: []*rpctypes.Error{pTxHash}, ExactParamCount: true},
		{Name: "eth_getTransactionReceipt", Fn: e.GetTransactionReceipt, ParamErrors: []*rpctypes.Error{pTxHash}},
		{Name: "eth_getBlockReceipts", Fn: e.GetBlockReceipts, ParamErrors: []*rpctypes.Error{pBlock}},
		{Name: "eth_getBlockByNumber", Fn: e.GetBlockByNumber, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidBlockNumberParams, pFullTxs}},
		{Name: "eth_getBlockByHash", Fn: e.GetBlockByHash, ParamErrors: []*rpctypes.Error{pBlockHash, pFullTxs}},
		{Name: "eth_getBlockTransactionCountByHash", Fn: byHash(e, e.txCount), ParamErrors: []*rpctypes.Error{pBlockHash}},
		{Name: "eth_getBlockTransactionCountByNumber", Fn: byNumber(e, e.txCount), ParamErrors: []*rpctypes.Error{pBlock}},
		{Name: "eth_getUncleCountByBlockHash", Fn: byHash(e, e.uncleCount), ParamErrors: []*rpctypes.Error{pBlockHash}},
		{Name: "eth_getUncleCountByBlockNumber", Fn: byNumber(e, e.uncleCount), ParamErrors: []*rpctypes.Error{pBlock}},
		{Name: "eth_getTransactionByBlockHashAndIndex", Fn: byHashAndIndex(e, e.txAt), ParamErrors: []*rpctypes.Error{pTxHash, rpctypes.ErrInvalidTransactionIDParams}},
		{Name: "eth_getTransactionByBlockNumberAndIndex", Fn: byNumberAndIndex(e, e.txAt), ParamErrors: []*rpctypes.Error{pBlock, rpctypes.ErrInvalidTransactionIndexParams}},
		{Name: "eth_getUncleByBlockHashAndIndex", Fn: byHashAndIndex(e, e.uncleAt), ParamErrors: []*rpctypes.Error{pBlockHash, pUncleIndex}},
		{Name: "eth_getUncleByBlockNumberAndIndex", Fn: byNumberAndIndex(e, e.uncleAt), ParamErrors: []*rpctypes.Error{pBlock, pUncleIndex}},
		{Name: "eth_call", Fn: e.Call, ParamErrors: []*rpctypes.Error{pCall, pBlock, pCall}, ParamOrder: blockSecond, ParamDefaults: latestSecond},
		{Name: "eth_estimateGas", Fn: e.EstimateGas, ParamErrors: []*rpctypes.Error{pCall, pBlock, pCall}, ParamOrder: blockSecond},
		{Name: "eth_simulateV1", Fn: e.SimulateV1, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidParams, pBlock}, ParamDefaults: latestSecond},
		{Name: "eth_baseFee", Fn: e.BaseFee},
		{Name: "eth_capabilities", Fn: e.Capabilities},
		{Name: "eth_getStorageValues", Fn: e.GetStorageValues, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidParams, pBlock}, ParamDefaults: latestSecond},
		{Name: "eth_fillTransaction", Fn: e.FillTransaction, ParamErrors: []*rpctypes.Error{pCall}},
		{Name: "eth_createAccessList", Fn: e.CreateAccessList, ParamErrors: []*rpctypes.Error{pCall, pBlock, pCall}, ParamOrder: blockSecond},
		{Name: "eth_mining", Fn: e.Mining},
		{Name: "eth_hashrate", Fn: e.Hashrate},
		{Name: "eth_coinbase", Fn: e.Coinbase},
		{Name: "eth_getWork", Fn: e.GetWork},
		{Name: "eth_submitWork", Fn: e.SubmitWork, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidNonceParams, rpctypes.ErrInvalidPowHashParams, rpctypes.ErrInvalidParams}},
		{Name: "eth_submitHashrate", Fn: e.SubmitHashrate, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidHashRateParams, rpctypes.ErrInvalidSealerIDParams}},
	}
	eth = append(eth, goQuorumMethods(e)...)
	eth = append(eth, filterMethods(b)...)
	// Every group maps the services' domain errors with jsonrpcError.
	return []rpctypes.Group{
		{Name: rpctypes.GroupEth, Errors: jsonrpcError, Methods: eth},
		{Name: rpctypes.GroupNet, Errors: jsonrpcError, Methods: []rpctypes.Method{
			{Name: "net_version", Fn: n.Version},
			{Name: "net_listening", Fn: n.Listening},
			{Name: "net_peerCount", Fn: n.PeerCount},
			{Name: "net_enode", Fn: n.Enode},
			{Name: "net_services", Fn: n.Services},
		}},
		{Name: rpctypes.GroupWeb3, Errors: jsonrpcError, Methods: []rpctypes.Method{
			{Name: "web3_clientVersion", Fn: w.ClientVersion},
			{Name: "web3_sha3", Fn: w.Sha3, ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidDataParams}, ExactParamCount: true},
		}},
		{Name: rpctypes.GroupMiner, Errors: jsonrpcError, Methods: []rpctypes.Method{
			{Name: "miner_start", Fn: m.Start},
			{Name: "miner_stop", Fn: m.Stop},
		}},
		adminGroup(b),
		txPoolGroup(b),
		debugGroup(b),
		badBlocksGroup(b),
		permGroup(b, false),
		permGroup(b, true),
	}
}
