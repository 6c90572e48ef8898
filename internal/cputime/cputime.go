// Package cputime reads CPU time for benchmarks and the load report: on a
// shared machine wall time per op mostly measures the neighbours, CPU time
// per op is what an idle core would take.
package cputime
