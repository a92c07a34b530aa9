// Package rpc is Basalt's JSON-RPC 2.0 server core: a method registry with
// one table per API group, a transport-agnostic dispatcher with Besu's error
// codes, groups, batch rules and limits, and the HTTP and WebSocket
// transports.
//
// # Registering methods
//
// Methods are plain Go functions with typed parameters, registered by API
// group (see Method for the accepted signatures):
//
//	reg := rpc.NewRegistry()
//	err := reg.RegisterGroup(rpctypes.GroupEth, []rpctypes.Method{
//		{Name: "eth_blockNumber", Fn: eth.BlockNumber},
//		{Name: "eth_getBalance", Fn: eth.GetBalance, // func(ctx, common.Address, BlockParam) (*hexutil.Big, error)
//			ParamErrors: []*rpctypes.Error{rpctypes.ErrInvalidAddressParams, rpctypes.ErrInvalidBlockNumberParams},
//			ParamOrder:  []int{1, 0}}, // Besu reads the block first
//	})
//
// ParamErrors names the error for each parameter that is missing or cannot
// be decoded, ParamOrder the order in which they are checked (so the first
// error reported is Besu's), ParamDefaults the value of a trailing
// parameter that is left out (a block parameter the spec makes optional:
// "latest"), and ExactParamCount makes a wrong number of params answer
// "Invalid number of params" before anything is decoded.
//
// A handler answers a specific JSON-RPC error by returning an *Error (see
// rpctypes/errors.go for Besu's catalogue, e.g. rpctypes.ErrFilterNotFound, or
// rpctypes.InvalidParams("reason")); any other error, and a panic, answers
// -32603 "Internal error" and is logged.
//
// # Serving
//
// A Server is one endpoint's view of the registry: its enabled groups
// (--rpc-http-api), batch limit, timeout and Authorizer. NewHTTPHandler puts
// it behind HTTP, NewWSHandler behind WebSocket (each message dispatched
// with HandleMessage, in a context that carries the upgrade request's
// values, so the caller an authentication middleware found reaches the
// Authorizer for every message, and a Notifier through which methods such
// as eth_subscribe push notifications; see AfterResponse for their order):
//
//	srv, err := rpc.NewServer(reg, rpc.Config{APIs: []string{"ETH", "NET", "WEB3"}})
//	h := rpc.NewHTTPHandler(srv, rpc.HTTPConfig{CORSOrigins: []string{"*"}})
//	http.ListenAndServe("127.0.0.1:8545", h)
//
// # Dispatch rules (current Besu)
//
//   - Envelope: the id must be a string, a number or null, else -32600 with
//     id null; a missing or non-string method, or params that are neither an
//     array nor null, is -32600; "jsonrpc" is not checked. The id is echoed
//     exactly as sent. Responses are compact, members ordered jsonrpc, id,
//     result/error.
//   - A request object without an "id" member is a notification: like Besu,
//     it is neither executed nor answered.
//   - Unknown method: -32601 "Method not found". A method that is registered
//     in a disabled group, or that Besu knows but Basalt does not register:
//     -32604 "Method not enabled".
//   - The Authorizer is asked after the method is resolved, for each request
//     of a batch separately: -40100 "Unauthorized".
//   - Params: too few or too many -32602 "Invalid number of params"; one that
//     does not decode -32602 "Invalid params" (or the method's own error).
//   - Batches: an empty array is -32600 (HTTP 400); more than MaxBatchSize
//     requests is a single -32005 "Number of requests exceeds max batch size"
//     (HTTP 200); a non-object element is -32600 with id null; notifications
//     are left out (a batch of only notifications answers []). Elements may
//     run concurrently; responses keep the request order.
//   - Malformed JSON anywhere in the message, an empty body, or a scalar
//     instead of an object or array: -32700 "Parse error", id null.
//   - Each message runs under a deadline (Config.Timeout, default 30 s)
//     carried by the handler's ctx; when it expires the answer is -32603
//     "Timeout expired" with id null (HTTP 408), for a batch in place of the
//     whole array.
package rpc
