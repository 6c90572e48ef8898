// Package gauntlet implements the streaming marker transducer that resolves
// footnote markers into citations and deletes every marker it cannot resolve.
//
// The proxy compiles a [Config] once ([Compile]) and, per response, creates a
// [Stream] from the turn's alias table (gate.Note), feeds it every content
// delta with [Stream.Write], and ends it with [Stream.Close]. The package does
// no I/O, never calls a model and allocates nothing per delta in steady state.
//
// # Marker grammar (outside code)
//
//	[^n]  [n]            footnote: n is a number minted this turn (1..k)
//	[^1][^2]  [1, 2]     several footnotes; ',' or ';' separate a list
//	[card:ADDRESS]       card marker: ADDRESS must be in Options.Cards
//	[action:NAME]        action marker: NAME must be in Options.Actions
//
// A valid footnote becomes "[k]", k being its source's output number by first
// appearance (notes that share an ID are one source); a list becomes
// "[1][2]". [Stream.Citations] lists the cited sources in that order. Valid
// card and action markers pass unchanged. Everything else is deleted and
// counted by [Reason]:
//
//	unknown_number      a footnote whose number was never minted ([^0], [^99], and
//	                    so also a bracketed number in prose such as [2020])
//	malformed           "[^" not followed by a well-formed footnote: "[^x1]", "[^ 2]",
//	                    "[^^3]", "[^4" (no ']' before '[', '`', a newline, the
//	                    hold-back limit or the end; then "[^4" and its word are
//	                    dropped and the rest kept); a card/action marker cut by a
//	                    newline or longer than max_marker_len
//	repeat_in_sentence  the same source cited again in one sentence (a sentence
//	                    ends at '.', '!' or '?' followed by whitespace, at 。！？,
//	                    or at a newline)
//	unknown_card        a card marker whose address is not in this turn's source map
//	unknown_action      an action marker whose action did not fire
//	leaked_id           an id token (below)
//	bailout             any marker at all in bail-out mode (Options.Bailout)
//
// A '[' that cannot start a marker ("[sic]", "[link](url)", "[12 items]") is
// plain text.
//
// # Leaked ids
//
// Text is cut into tokens: runs of ASCII letters, digits and _ - . : / # @
// (trailing . : / # @ - are not part of the token). A token made of letters
// only is a word and is never checked. In any other token, a match of an id
// pattern (uuids, doc_/chunk_-style ids, hex hashes of 16+ digits by
// default) is deleted from its start to the end of the token's core, and so
// is a token that Options.Catalog reports as a real id, whole or as a URL or
// path segment (from the segment's start; tokens of at least
// catalog_min_len bytes; all-digit tokens only with catalog_numbers): "see
// https://x.org/doc_1a2b" -> "see https://x.org/". What is kept before the
// id is checked again as the token it becomes ("REALID42-doc_1a" loses all
// of it when REALID42 is a real id). A token equal to the address of one of this turn's notes,
// or to a word of such an address, is never deleted: in some corpora the id
// is the human address ("John 3:16"). Ids containing spaces cannot be tokens
// and are not caught, here or by the auditor.
//
// Before the lookup a token is normalised (normalize.go): look-alike
// characters fold to ASCII (NFKC compatibility forms such as fullwidth,
// Cyrillic and Greek homoglyphs, Unicode hyphens), %XX escapes of token
// bytes are decoded, and glue inside a token is removed (zero-width
// characters, '*' and '~' emphasis runs, HTML comments): "**hb**-0402",
// "hb\u200b-0402", "ｈｂ－０４０２" and "hb-04<!-- -->02" are the id
// hb-0402. A token whose normal form is not a leaked id passes as written.
// Only a delta holding a non-ASCII byte or one of % * < ` ~ (or arriving in
// code, or while such a token is unfinished) takes this path.
//
// # Code
//
// Inline code spans (opened by a run of backticks, closed by a run of the
// same length or by the end of the line) and fenced code blocks (``` or ~~~ at
// a line start, up to three spaces indented, closed by a fence line of the
// same character at least as long) pass through untouched, except that a
// token in code whose normal form is a leaked id is deleted (a token in code
// is held until it ends).
//
// # Hold-back
//
// Text that cannot start a marker or an id token is released at once. A
// possible marker, or a token (a word), is held until it is decided, at most
// max_marker_len bytes (default 64). A token that ends a delta is released
// at once up to the first place where some continuation could make an id
// start (a prefix analysis of the id patterns, and Options.CatalogPrefix for
// the catalog): "In" goes out whole, "the" as "th" ('e' can start a hex id),
// "doc" waits. With a Catalog but no CatalogPrefix, or an id pattern too
// large for the analysis (over 64 positions), such a token waits for its
// end. At most max_marker_len/4 bytes of a token go out this way. A longer token is released in pieces
// while a window of its last 3/4*max_marker_len bytes is checked, so an id of
// up to that length is still caught inside a long URL (the whole rest of the
// token is then dropped from the id on). One space and one '(' or '[' before a held item
// are held with it, and an incomplete UTF-8 sequence at the end of a delta
// waits for its last bytes, so every piece of output is valid UTF-8 when the
// input is. The output does not depend on how the input is cut into deltas.
//
// Dropping never glues its neighbours into something new: a space is put
// between two tokens that a drop would join ("ab[^9]cd" -> "ab cd"), and a
// space before a drop goes only when punctuation follows ("word [^9]." ->
// "word."). Brackets whose whole content was dropped go with it ("see
// (doc_1a2b)." -> "see.", "[[^9]]" -> ""), except at the start of a line,
// where removing them could turn the line into a code fence.
//
// For a non-stream completion, Write the whole content once, then Close.
//
// # Auditor
//
// [Spec.Audit] checks a finished answer without any model: every output
// marker must name a citation, no footnote syntax may remain, every cited ID
// and every id-shaped token in the text is checked against the catalog.
// [Stream.Audit] does the same for a stream's own output with its options,
// and also checks card and action markers; the fuzz target uses it as its
// oracle. The proxy puts the counts in guard.markers and metrics.
package gauntlet
