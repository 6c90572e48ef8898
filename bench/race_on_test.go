//go:build race

package bench

// raceEnabled: the quality suites over ../shared/data embed thousands of
// passages and claims with the sentence encoder; under the race detector
// they take far longer than CI's budget and exercise no concurrency the
// short tests do not. .ci/run runs them in a step of their own without it.
const raceEnabled = true
