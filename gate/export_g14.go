package gate

// SetLoneWeight (throwaway) replaces loneWeight.
func SetLoneWeight(f func(float64) float64) { loneWeight = f }

// LoneMargin (throwaway) zeroes the margin of a lone passage.
var LoneMargin bool

// LoneMarginKeep (throwaway) is the share of a lone passage's margin kept.
var LoneMarginKeep = func(sim float64) float64 { return 0 }

// G14Q (throwaway) picks what FUnknown holds: 0 the unknown share, 1 the
// partition's coherence, 2 the candidates' mean cosine.
var G14Q int
