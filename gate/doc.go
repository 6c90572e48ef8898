// Package gate implements the prefloor, the coverage gate and the minting of
// notes as bare integer footnotes with their server-side alias table.
package gate
