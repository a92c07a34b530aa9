// Package e2e holds the end-to-end tests of basalt-privacy: they build the
// binary once, run real processes on loopback with free ports (package
// ptmtest) and check the acceptance scenarios — sending and
// receiving across three instances, privacy groups, discovery, kill -9
// durability with Pebble and PostgreSQL, PostgreSQL high availability,
// start-up errors, password-locked keys and mutual TLS.
//
// The PostgreSQL tests need BASALT_TEST_POSTGRES_URL (see
// ptm/storage/testdata/start-postgres.sh) and skip without it.
package e2e
