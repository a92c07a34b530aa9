package grafana

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Query is one query of the dashboard.
type Query struct {
	Row   string // the title of the row the panel sits in
	Panel string // the panel's title
	Expr  string // PromQL
}

// ConsensusRows are the titles of the rows of each consensus engine, by
// the genesis key that selects it.
var ConsensusRows = map[string]string{
	"qbft":   "Consensus: QBFT (basalt)",
	"ibft2":  "Consensus: IBFT 2.0 (basalt)",
	"clique": "Consensus: Clique (basalt)",
}

type dashboardPanel struct {
	Type    string                  `json:"type"`
	Title   string                  `json:"title"`
	Targets []struct{ Expr string } `json:"targets"`
	Panels  []dashboardPanel        `json:"panels"` // a collapsed row's
}

// Queries lists every query of the dashboard, those in collapsed rows
// included, so that tests can check them against what programs export.
func Queries() ([]Query, error) {
	var d struct {
		Panels []dashboardPanel `json:"panels"`
	}
	if err := json.Unmarshal(Dashboard, &d); err != nil {
		return nil, err
	}
	var out []Query
	var walk func(row string, ps []dashboardPanel) string
	walk = func(row string, ps []dashboardPanel) string {
		for _, p := range ps {
			if p.Type == "row" {
				row = p.Title
				walk(row, p.Panels)
				continue
			}
			for _, t := range p.Targets {
				out = append(out, Query{Row: row, Panel: p.Title, Expr: t.Expr})
			}
		}
		return row
	}
	walk("", d.Panels)
	return out, nil
}

var (
	// Parts of a PromQL expression that are not metric names.
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping  = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promFunctions = regexp.MustCompile(`\b[a-zA-Z_]+\s*\(`)
	promIdents    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promKeywords  = map[string]bool{"and": true, "or": true, "unless": true, "offset": true, "bool": true}
)

// MetricNames returns the metric (series) names a PromQL expression of
// the dashboard reads: what is left once strings, label matchers, ranges,
// groupings, function names and keywords are taken out. It reads the
// dashboard's own queries, not PromQL at large.
func MetricNames(expr string) []string {
	e := promStrings.ReplaceAllString(expr, " ")
	e = promMatchers.ReplaceAllString(e, " ")
	e = promRanges.ReplaceAllString(e, " ")
	e = promGrouping.ReplaceAllString(e, " ")
	e = promFunctions.ReplaceAllString(e, " (")
	var out []string
	for _, id := range promIdents.FindAllString(e, -1) {
		if !promKeywords[id] {
			out = append(out, id)
		}
	}
	return out
}

// Family is the metric family a series name belongs to, given the
// families a program exports: a histogram's _bucket, _count and _sum
// series are the histogram's.
func Family(name string, exported func(family string) bool) (string, bool) {
	if exported(name) {
		return name, true
	}
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && exported(base) {
			return base, true
		}
	}
	return "", false
}
