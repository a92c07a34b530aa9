//go:build race

package keys

// raceEnabled skips the slowest scrypt vector, which the race detector
// makes take seconds.
const raceEnabled = true
