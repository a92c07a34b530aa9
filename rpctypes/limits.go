package rpctypes

import "time"

// Defaults of the JSON-RPC server's limits. They live in this leaf package,
// not in rpc, so the option table (config) can print and apply them without
// making everything that reads the configuration depend on the server.
const (
	DefaultMaxBatchSize      = 1024             // --rpc-http-max-batch-size
	DefaultTimeout           = 30 * time.Second // Besu's --Xhttp-timeout-seconds
	DefaultMaxRequestBytes   = 5 << 20          // request body cap (see rpc.DefaultMaxRequestBytes)
	DefaultWSMaxMessageBytes = 1 << 20          // --rpc-ws-max-frame-size (Besu: 1 MiB)
	DefaultWSMaxConnections  = 80               // --rpc-ws-max-active-connections (Besu: 80)
	DefaultWSSendQueueBytes  = 16 << 20         // --rpc-ws-max-queued-bytes
)
