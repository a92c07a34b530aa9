package permissioning

import "github.com/basaltchain/basalt/metrics"

// checkCounters count a list's checks as Besu's local permissioning
// controllers do (permissioning_<list>_local_check_count[_permitted|
// _unpermitted]).
type checkCounters struct {
	all, permitted, unpermitted metrics.Counter
}

func newCheckCounters(r *metrics.Registry, list string) *checkCounters {
	name := list + "_local_check_count"
	return &checkCounters{
		all: r.Counter(metrics.Permissioning, name,
			"Number of times the "+list+" local permissioning provider has been checked"),
		permitted: r.Counter(metrics.Permissioning, name+"_permitted",
			"Number of times the "+list+" local permissioning provider has been checked and returned permitted"),
		unpermitted: r.Counter(metrics.Permissioning, name+"_unpermitted",
			"Number of times the "+list+" local permissioning provider has been checked and returned unpermitted"),
	}
}

func (c *checkCounters) record(ok bool) bool {
	if c == nil {
		return ok
	}
	c.all.Inc()
	if ok {
		c.permitted.Inc()
	} else {
		c.unpermitted.Inc()
	}
	return ok
}

// SetMetrics makes the enabled lists count their checks in r (Besu's
// PERMISSIONING metrics). Call it before the lists are asked.
func (a *Allowlists) SetMetrics(r *metrics.Registry) {
	if a == nil || !r.Enabled(metrics.Permissioning) {
		return
	}
	if a.AccountsEnabled() {
		a.accountChecks = newCheckCounters(r, "account")
	}
	if a.NodesEnabled() {
		a.nodeChecks = newCheckCounters(r, "node")
	}
}
