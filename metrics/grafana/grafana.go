// Package grafana holds Basalt's Grafana dashboard (basalt.json): chain
// height, block time, transactions and gas per second, peers, pool size,
// JSON-RPC rate and latency by method, block import time, p2p messages and
// CPU/memory for the node, a collapsed row per consensus engine (QBFT,
// IBFT 2.0, Clique), and a row each for the privacy manager and the
// signer. Import it in Grafana (Dashboards > New > Import) and pick the
// Prometheus data source that scrapes the programs' /metrics endpoints; its
// test checks that every query names a metric one of the programs exports,
// each consensus row's a metric a node of that engine exports.
package grafana

import _ "embed"

// Dashboard is the dashboard JSON, as Grafana imports it.
//
//go:embed basalt.json
var Dashboard []byte
