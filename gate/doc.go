// Package gate implements the prefloor, the coverage gate and the minting of
// notes as bare integer footnotes with their server-side alias table.
//
// The package imports no other package of the project: it declares what it
// needs (candidate fields, a [Tokenizer], a [Calibration]) and
// internal/gatefeed converts retrieval results into it. The proxy then calls
// [Decide]. Decide drops every non-forced candidate whose calibrated relevance
// is below the prefloor (0.18 with a reranker, 0.45 without), measures the
// coverage of what survives, and decides from plain booleans:
//
//	sufficient  = max >= sufficient_max (0.55) and >= primary_min (2) survivors of primary_kind
//	good_enough = sufficient or max >= good_enough_max (0.65)
//	bail_out    = max < bail_out_below (0.40)
//
// good_enough grounds the answer, bail_out routes it to the fallback model,
// and anything in between refuses (or, with between: ground, grounds it with
// a caveat). The booleans are returned in [Outcome].Checks for the log.
//
// On Ground the survivors are minted as notes [^1]..[^k] in the order given
// (retrieve's ranking), capped at max_notes. The model only ever sees the
// integer, the kind, the human address and the text: [SystemPrompt] never
// renders a note's ID or URL, and it removes every note ID and URL (and, with
// Config.Scrub set, every id-shaped token) from the note texts. The alias
// table n -> (ID, title, address, URL) stays server side in Outcome.Notes and
// is handed to the gauntlet.
//
// The package does no I/O and is safe for concurrent use.
package gate
