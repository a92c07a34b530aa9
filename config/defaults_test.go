package config_test

import (
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/backend"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/p2p"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpc/auth"
	"github.com/basaltchain/basalt/rpctypes"
	"github.com/basaltchain/basalt/txpool"
)

// TestDefaultsOnePlace fails when an option's default and the default a
// constructor fills into a zero field differ: config.Defaults() (the option
// table, which --help and docs/reference/configuration.md print) against the constants the
// constructors apply (rpc.NewServer, rpc.NewWSHandler, metrics' pusher, the
// API backend, the pool, the peer-to-peer service). The rpc, metrics and
// httpmw ones are written from those constants in the table; the others are
// held together by this test, since config does not import the packages
// that build the node.
func TestDefaultsOnePlace(t *testing.T) {
	d := config.Defaults()
	pool := txpool.DefaultConfig()
	oracle := backend.DefaultGasPriceOracle()
	for _, c := range []struct {
		option    string
		got, want any
	}{
		{"--rpc-ws-max-frame-size vs rpc.NewWSHandler", d.RPC.WSMaxFrameSize, rpc.DefaultWSMaxMessageBytes},
		{"--rpc-ws-max-active-connections vs rpc.NewWSHandler", d.RPC.WSMaxActiveConnections, rpc.DefaultWSMaxConnections},
		{"--rpc-ws-max-queued-bytes vs rpc.NewWSHandler", d.RPC.WSMaxQueuedBytes, int64(rpc.DefaultWSSendQueueBytes)},
		{"--rpc-http-max-request-content-length vs rpc's HTTP handler", d.RPC.HTTPMaxRequestContentLength, int64(rpc.DefaultMaxRequestBytes)},
		{"--rpc-http-max-batch-size vs rpc.NewServer", d.RPC.HTTPMaxBatchSize, rpc.DefaultMaxBatchSize},
		{"--Xhttp-timeout-seconds vs rpc.NewServer", d.RPC.HTTPTimeout, rpc.DefaultTimeout},
		{"--Xws-timeout-seconds vs rpc.NewServer", d.RPC.WSTimeout, rpc.DefaultTimeout},
		{"--rpc-http-api vs rpc.NewServer", d.RPC.HTTPAPIs, rpctypes.DefaultAPIs},
		{"--rpc-ws-api vs rpc.NewServer", d.RPC.WSAPIs, rpctypes.DefaultAPIs},
		{"--host-allowlist vs httpmw", d.HostAllowlist, httpmw.DefaultHosts},
		{"--rpc-http-authentication-jwt-algorithm vs auth", d.RPC.HTTPAuth.JWTAlgorithm, auth.DefaultAlgorithm},
		{"--rpc-ws-authentication-jwt-algorithm vs auth", d.RPC.WSAuth.JWTAlgorithm, auth.DefaultAlgorithm},
		{"--metrics-push-port", d.Metrics.PushPort, metrics.DefaultPushPort},
		{"--metrics-push-interval vs StartPush", d.Metrics.PushInterval, metrics.DefaultPushInterval},
		{"--metrics-push-prometheus-job vs StartPush", d.Metrics.PushJob, metrics.DefaultPushJob},
		{"--api-gas-price-blocks vs backend.DefaultGasPriceOracle", d.API.GasPriceBlocks, oracle.Blocks},
		{"--api-gas-price-percentile vs backend.DefaultGasPriceOracle", d.API.GasPricePercentile, oracle.Percentile},
		{"--api-gas-price-max vs backend.DefaultGasPriceOracle", d.API.GasPriceMax.String(), oracle.Max.String()},
		{"--rpc-simulate-max-blocks vs backend", d.API.SimulateMaxBlocks, uint64(backend.DefaultSimulateMaxBlocks)},
		{"--rpc-simulate-gas-cap vs backend", d.API.SimulateGasCap, uint64(backend.DefaultSimulateGasCap)},
		{"--tx-pool-max-size vs txpool.DefaultConfig", d.TxPool.MaxSize, pool.MaxSize},
		{"--min-gas-price vs txpool.DefaultConfig", d.MinGasPrice.String(), pool.MinGasPrice.String()},
		{"--tx-pool-max-future-by-sender vs txpool.DefaultConfig", d.TxPool.MaxFutureBySender, pool.MaxFutureNonceGap},
		{"--tx-pool-price-bump vs txpool.DefaultConfig", d.TxPool.PriceBump, pool.PriceBump},
		{"--tx-pool-retention-hours vs txpool.DefaultConfig", time.Duration(d.TxPool.RetentionHours) * time.Hour, pool.Retention},
		{"--rpc-tx-feecap vs txpool.DefaultConfig", d.TxPool.TxFeeCap.String(), pool.TxFeeCap.String()},
		{"--Xp2p-static-reconnect-seconds vs p2p.NewService", d.P2P.StaticReconnectInterval, p2p.DefaultReconnectInterval},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: config.Defaults() %v (%T), constructor %v (%T)", c.option, c.got, c.got, c.want, c.want)
		}
	}
	if d.MinGasPrice.Cmp(big.NewInt(0)) <= 0 || !strings.EqualFold(d.Logging, "INFO") {
		t.Errorf("defaults %+v", d)
	}
}
