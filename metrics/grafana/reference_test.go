package grafana_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/basaltchain/basalt/internal/docgen"
)

// TestReferenceMetrics writes docs/reference/metrics.md: every metric
// family the three programs register with metrics on and every default
// category, and for the node the consensus engines that add one.
func TestReferenceMetrics(t *testing.T) {
	names, byEngine := exported(t)
	engineNames := slices.Sorted(func(yield func(string) bool) {
		for e := range byEngine {
			if !yield(e) {
				return
			}
		}
	})
	byProgram := map[string][]string{}
	for n, p := range names {
		byProgram[p] = append(byProgram[p], n)
	}
	var b strings.Builder
	b.WriteString(docgen.Header("Metrics", "the metrics registries of the three programs (metrics/grafana/reference_test.go)"))
	b.WriteString("Every metric family each program registers with metrics on and every default category\n" +
		"(Prometheus names; timers are histograms, so a timer `x` is served as `x_bucket`, `x_sum` and\n" +
		"`x_count`). The node's names are Besu's where Besu has the metric. Options, categories, health\n" +
		"checks, the Grafana dashboard and the differences from Besu: [monitoring](../how-to/monitoring.md).\n")
	for _, p := range []string{"basalt", "basalt-signer", "basalt-privacy"} {
		list := byProgram[p]
		sort.Strings(list)
		fmt.Fprintf(&b, "\n## %s\n\n", p)
		if p == "basalt" {
			b.WriteString("| metric | only with |\n|---|---|\n")
			for _, n := range list {
				var only []string
				for _, e := range engineNames {
					if byEngine[e][n] {
						only = append(only, e)
					}
				}
				note := ""
				if len(only) > 0 && len(only) < len(engineNames) {
					note = "the " + strings.Join(only, ", ") + " engine"
					if len(only) > 1 {
						note += "s"
					}
				}
				fmt.Fprintf(&b, "| `%s` | %s |\n", n, note)
			}
			continue
		}
		for _, n := range list {
			fmt.Fprintf(&b, "- `%s`\n", n)
		}
	}
	docgen.Check(t, "docs/reference/metrics.md", b.String())
}
