// Package guard enforces a lock entry on the wire at run time: a stdio proxy
// that sits where the server command was in a client's config, forwards
// every message both ways byte for byte, and holds each answer that carries
// text for the model up against the lock before the client (and the model)
// reads it.
//
// CI's check sees what a server shows a checker; an agent session lasts
// hours, and the client re-reads tools/list on list_changed without asking
// anyone. The guard closes that gap:
//
//   - initialize (and server/discover): the instructions must be the
//     lock's; serverInfo and capabilities differences are logged (warning
//     rules, as in check).
//   - every page of tools/list, prompts/list, resources/list and
//     resources/templates/list: each definition on the page must be in the
//     lock with the same canonical (JCS) hash. A page may be partial, so a
//     definition missing from one page is not drift.
//   - prompts/get: a session pin. The first answer for given arguments is
//     remembered; a different later answer is drift.
//   - the inspection rules that are errors and need no judgement
//     (hidden-characters, terminal-escape), unless the lock acknowledges
//     the content.
//
// A refused answer is replaced by a JSON-RPC error (code [CodeRefused],
// naming the definition and the changed fields: "summarize (description)"),
// the diff goes to stderr, nothing after it is forwarded, and the server
// is stopped: stdin closed, then SIGTERM, then SIGKILL, to its whole
// process group. Warn mode forwards and logs instead.
//
// Only what needs a look is parsed: a small validating scanner finds each
// line's id, method and result without decoding the rest, and a definition
// byte-identical to one already checked is not checked again. Keys are
// matched the way the most permissive client matches them (encoding/json
// folds case), and two keys that fold alike are refused as ambiguous, so a
// server cannot show the guard one answer and the client another.
//
// [Install] and [Uninstall] rewrite a client config so that each pinned
// server runs behind the guard, and back.
package guard
