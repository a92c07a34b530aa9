package graphql_test

import (
	"testing"
)

// TestBesuFixturesWithHarnessMocks replays every Besu GraphQL fixture
// against the service in process, on the imported conformance chain, with
// the fakes of Besu's own harness reproduced (mocked pool and syncing,
// minimum gas price 0; see harnessService). Every fixture must pass: the
// GraphQL layer answers exactly as Besu's does. TestBesuGraphQLConformance
// replays them against a real node, where the fakes are not there.
func TestBesuFixturesWithHarnessMocks(t *testing.T) {
	t.Parallel()
	fixtures := loadFixtures(t)
	url := serve(t, harnessService(t))
	failed := 0
	for _, f := range fixtures {
		if reason := replay(url, f); reason != "" {
			failed++
			t.Errorf("FAIL %s: %s", f.name, reason)
		}
	}
	t.Logf("Besu GraphQL fixtures with harness mocks: %d passed, %d failed", len(fixtures)-failed, failed)
}
