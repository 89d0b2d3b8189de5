// Package inspect reads the text an MCP server shows a model and flags what a
// pin cannot: a pin proves sameness, not safety, and a server poisoned from
// day one passes its own pin.
//
// Definition scans every string of one tool, prompt, resource, resource
// template or instructions text for invisible characters (hidden-characters),
// terminal control sequences (terminal-escape), text addressed to the model
// rather than describing the tool (model-instruction) and credential paths
// (sensitive-path). Across looks at a whole run for tool-shadowing and
// confusable-name. The text a finding quotes is escaped with inert.Text, the
// escaper every renderer shares; every rune inspect calls hidden is one it
// escapes.
//
// The heuristics are deliberately small: a phrase set matched on folded text
// (invisible characters dropped, compatibility forms and look-alike letters
// folded to ASCII, lower case, one space between words), so the usual
// obfuscations (case, spacing, zero-width splits, homoglyphs, tag-character
// smuggling) do not change the outcome. They are tuned against the real
// servers under testdata/corpus (no error-level finding, few warnings) and
// the attacks under testdata/attacks (every one caught). Everything runs in
// linear time: Go's regexp is RE2, and each expression runs only on a window
// around a literal anchor.
package inspect
