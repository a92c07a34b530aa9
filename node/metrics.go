package node

import (
	"github.com/basaltchain/basalt/chain"
	"github.com/basaltchain/basalt/config"
	"github.com/basaltchain/basalt/metrics"
	"github.com/basaltchain/basalt/rpc"
	"github.com/basaltchain/basalt/rpctypes"
)

// newRegistry returns the node's metrics registry: nil (every metric a
// no-op, nothing served or pushed) unless --metrics-enabled or
// --metrics-push-enabled.
func newRegistry(cfg config.MetricsConfig) *metrics.Registry {
	if !cfg.Enabled && !cfg.PushEnabled {
		return nil
	}
	cats := cfg.Categories
	if cats == nil {
		cats = metrics.NodeDefaults
	}
	return metrics.New(metrics.Config{Categories: cats, TimersDisabled: cfg.TimersDisabled})
}

// registerChainMetrics exports Besu's blockchain metrics (read from the
// head at scrape time) and the block import timers, fed by the chain's
// insert observer.
func (n *Node) registerChainMetrics() {
	r, c := n.metrics, n.chain
	if r == nil {
		return // no observer: imports do not even read the clock
	}
	head := func() float64 { return float64(c.CurrentHeader().Number.Uint64()) }
	r.GaugeFunc(metrics.Ethereum, "blockchain_height", "The current height of the canonical chain", head)
	r.GaugeFunc(metrics.Blockchain, "difficulty_total", "Total difficulty of the chainhead", func() float64 {
		f, _ := c.CurrentTD().Float64()
		return f
	})
	r.GaugeFunc(metrics.Blockchain, "chain_head_timestamp", "Timestamp from the current chain head", func() float64 { return float64(c.CurrentHeader().Time) })
	r.GaugeFunc(metrics.Blockchain, "chain_head_gas_used", "Gas used by the current chain head block", func() float64 { return float64(c.CurrentHeader().GasUsed) })
	r.GaugeFunc(metrics.Blockchain, "chain_head_gas_limit", "Block gas limit of the current chain head block", func() float64 { return float64(c.CurrentHeader().GasLimit) })
	body := func() (txs, ommers float64) {
		h := c.CurrentHeader()
		if b := c.GetBody(c.Hash(h), h.Number.Uint64()); b != nil {
			return float64(len(b.Transactions)), float64(len(b.Uncles))
		}
		return 0, 0
	}
	r.GaugeFunc(metrics.Blockchain, "chain_head_transaction_count", "Number of transactions in the current chain head block", func() float64 { t, _ := body(); return t })
	r.GaugeFunc(metrics.Blockchain, "chain_head_ommer_count", "Number of ommers in the current chain head block", func() float64 { _, o := body(); return o })

	importTime := r.Timer(metrics.Blockchain, "block_import_time", "Time to import a block (verification, execution and storage), in seconds")
	execTime := r.Timer(metrics.Blockchain, "block_processing_time", "Time to execute the transactions of an imported block, in seconds")
	gas := r.Counter(metrics.Blockchain, "imported_gas_total", "Gas used by the imported blocks (rate() of it is the chain's gas per second)")
	txs := r.Counter(metrics.Blockchain, "imported_transactions_total", "Transactions in the imported blocks (rate() of it is transactions per second)")
	gasPerSecond := r.Gauge(metrics.Blockchain, "block_processing_gas_per_second", "Gas per second of execution of the last block the node executed")
	c.SetInsertObserver(func(st chain.InsertStats) {
		importTime.Observe(st.Total.Seconds())
		gas.Add(float64(st.GasUsed))
		txs.Add(float64(st.Txs))
		if st.Executed {
			execTime.Observe(st.Execution.Seconds())
			if s := st.Execution.Seconds(); s > 0 {
				gasPerSecond.Set(float64(st.GasUsed) / s)
			}
		}
	})
}

// rpcTimer is rpc.Config.Timer for both JSON-RPC endpoints: Besu's
// besu_rpc_request_time, labelled methodName; nil with metrics (or timers)
// off, so the dispatcher does not read the clock.
func (n *Node) rpcTimer() func(string) rpc.Observer {
	tv := n.metrics.TimerVec(metrics.RPC, "request_time", "Time taken to process a JSON-RPC request", "methodName")
	if tv == nil {
		return nil
	}
	return func(method string) rpc.Observer { return tv.With(method) }
}

// debugMetricsGroup is the DEBUG group's debug_metrics: the registry in
// Besu's nested shape ({} with metrics off, as in Besu).
func debugMetricsGroup(r *metrics.Registry) rpctypes.Group {
	return rpctypes.Group{Name: rpctypes.GroupDebug, Methods: []rpctypes.Method{{Name: "debug_metrics", Fn: r.DebugMetrics}}}
}

// startMetrics starts the metrics service (--metrics-enabled) or the pushes
// to a gateway (--metrics-push-enabled).
func (n *Node) startMetrics() error {
	cfg := n.cfg.Metrics
	if cfg.Enabled {
		s, err := n.metrics.Serve(metrics.ServerConfig{Host: cfg.Host, Port: cfg.Port, HostAllowlist: n.cfg.HostAllowlist, Logger: n.log})
		if err != nil {
			return err
		}
		n.metricsServer = s
		n.log.Info("Metrics service started", "address", s.Addr())
	}
	if cfg.PushEnabled {
		n.pusher = n.metrics.StartPush(metrics.PushConfig{Host: cfg.PushHost, Port: cfg.PushPort,
			Interval: cfg.PushInterval, Job: cfg.PushJob, Logger: n.log})
	}
	return nil
}

func (n *Node) stopMetrics() {
	n.metricsServer.Close()
	n.metricsServer = nil
	n.pusher.Stop()
}

// MetricsAddr returns the metrics service address ("" when not serving).
func (n *Node) MetricsAddr() string { return n.metricsServer.Addr() }

// Metrics returns the node's registry (nil with metrics off).
func (n *Node) Metrics() *metrics.Registry { return n.metrics }
