package config

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/basaltchain/basalt/metrics"
)

func TestMetricsOptions(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"BASALT_METRICS_PUSH_INTERVAL": "30"},
		"--metrics-enabled", "--metrics-host=0.0.0.0", "--metrics-port=9999",
		"--metrics-category=rpc,ETHEREUM", "--metrics-categories=jvm",
		"--metrics-push-host=gw", "--metrics-push-port=9091", "--metrics-push-prometheus-job=node1",
		"--Xmetrics-timers-enabled=false")
	want := MetricsConfig{
		Enabled: true, Host: "0.0.0.0", Port: 9999,
		Categories: []metrics.Category{metrics.RPC, metrics.Ethereum, metrics.Runtime},
		PushHost:   "gw", PushPort: 9091, PushInterval: 30 * time.Second, PushJob: "node1",
		TimersDisabled: true,
	}
	if !reflect.DeepEqual(cfg.Metrics, want) {
		t.Fatalf("got %+v\nwant %+v", cfg.Metrics, want)
	}
}

func TestMetricsOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics-category=NOPE"}, "--metrics-category"},
		{[]string{"--metrics-port=70000"}, "--metrics-port"},
		{[]string{"--metrics-push-interval=0"}, "--metrics-push-interval"},
		{[]string{"--metrics-enabled", "--metrics-push-enabled"}, "can't be used at the same time"},
		{[]string{"--metrics-enabled", "--rpc-http-enabled", "--rpc-http-port=9545"}, "port 9545"},
	} {
		_, err := loadArgs(t, nil, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one mentioning %q", tc.args, err, tc.want)
		}
	}
}
