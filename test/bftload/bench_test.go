package bftload

import (
	"flag"
	"testing"

	"github.com/basaltchain/basalt/testsupport/bftnet"
	"github.com/basaltchain/basalt/testsupport/txload"
)

var (
	benchRate       = flag.Int("load.benchrate", 500, "transfers per second the scenario benchmarks offer")
	benchValidators = flag.Int("load.validators", 4, "validators of the scenario benchmarks (7: the long variant)")
	benchTimeout    = flag.Int("load.timeout", 5, "requesttimeoutseconds of the scenario benchmarks' validators")
)

// BenchmarkScenariosUnderLoad runs the scenarios of the tests at
// production load: -load.benchrate transfers per second (500) on
// -load.validators validators (4; 7 for the long variant) with
// -load.timeout s round timers (5), on QBFT and IBFT 2.0, with the tests'
// assertions. It reports the transfers
// acknowledged per second over the run and the sends refused (offered
// again: the pool or a stopped node).
//
//	go test -run XXX -bench ScenariosUnderLoad -benchtime=1x ./test/bftload/
//	go test -run XXX -bench ScenariosUnderLoad -benchtime=1x ./test/bftload/ -args -load.validators=7
func BenchmarkScenariosUnderLoad(b *testing.B) {
	scenarios := []struct {
		name string
		run  func(testing.TB, string, int, int) txload.Figures
	}{
		{"votes", voteChanges},
		{"restart-all", restartAll},
		{"empty-block-period", emptyBlocksFresh},
	}
	requestTimeout, patience = *benchTimeout, 3*patience
	defer func() { requestTimeout, patience = 1, patience/3 }()
	for _, sc := range scenarios {
		for _, engine := range bftnet.Engines {
			b.Run(sc.name+"/"+engine, func(b *testing.B) {
				var fig txload.Figures
				for range b.N {
					fig = sc.run(b, engine, *benchValidators, *benchRate)
				}
				b.ReportMetric(fig.AckRate(), "acked-tx/s")
				b.ReportMetric(float64(fig.Refused), "refused")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
