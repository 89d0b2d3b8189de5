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
//     remembered; a different later answer is drift. The answer pin
//     recorded in the lock holds too (pin records those of prompts without
//     required arguments by default), so the first answer of a session is
//     held as well.
//   - the inspection rules that are errors and need no judgement
//     (hidden-characters, terminal-escape) on definitions, unless the lock
//     acknowledges the content.
//   - every text rule (inspect.Answer) on every answer the model reads that
//     no lock can pin: tool results, resource contents, prompt answers,
//     errors, the params of the server's own requests (sampling,
//     elicitation), and the text encoded in them (base64, data: URIs). An
//     error-level finding refuses the answer (or, in sanitize mode, is
//     stripped); a warning is logged and the answer forwarded.
//     Notifications get the two no-judgement rules only.
//
// A refused answer is replaced by a JSON-RPC error (code [CodeRefused],
// naming the definition and the changed fields: "summarize (description)"),
// the diff goes to stderr, nothing after it is forwarded, and the server
// is stopped: stdin closed, then SIGTERM, then SIGKILL, to its whole
// process group. Hidden text in a message the lock does not pin refuses
// that message alone ([Sanitize] strips it instead, when it sits in a
// JSON string). [Warn] forwards and logs.
//
// Every server message is exactly one of request, notification or
// response, decided by the JSON-RPC members spelled as the specification
// spells them (classify). A member that only folds to one ("Method"), two
// keys that fold alike, a method beside a result: any message two clients
// could read two ways ends the session, so a server cannot show the guard
// one thing and a case-folding client (encoding/json, the Go SDK) another.
//
// Only what needs a look is parsed: jsontok, the project's one token
// reader, finds each line's members without decoding the rest, a definition
// byte-identical to one already checked is not checked again, and a re-list
// whose line is an accepted one but for its id costs two compares
// (relisted).
//
// With [Options].Remote the guard is a stdio↔HTTP bridge to a remote
// server (remote.go): the client's lines become the SDK's messages on its
// streamable HTTP (or HTTP+SSE) client transport, and each message the
// server sends comes back as one line through the same checks. Header
// values are secrets: sent to the url's origin only, never shown. A
// failure on the HTTP side (a 401, a dropped stream) ends the session with
// an error for every request in flight.
//
// Putting servers behind the guard in a client's config (guard install and
// guard uninstall) is package internal/guardinstall's, not this one's.
package guard
