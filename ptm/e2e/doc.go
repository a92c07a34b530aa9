// Package e2e holds the end-to-end tests of basalt-privacy: they build the
// binary once, run real processes on loopback with free ports (package
// ptmtest) and check the acceptance scenarios — sending and
// receiving across three instances, privacy groups, discovery, kill -9
// durability with Pebble and PostgreSQL, PostgreSQL high availability,
// start-up errors, password-locked keys and mutual TLS — and (security_test.go)
// issue 23's attacks, played by a fake peer against real instances: key
// squatting and relayed proofs, a table flood, group tampering, deletion by
// a non-member and reading the party table; with a late third instance,
// strict TLS, discovery off and client API authentication.
//
// The PostgreSQL tests need BASALT_TEST_POSTGRES_URL (see
// ptm/storage/testdata/start-postgres.sh) and skip without it.
package e2e
