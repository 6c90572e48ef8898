// Package bench implements the load and quality harnesses and their reports.
// Production packages must not import it.
package bench
