// Package check is the engine: it reads the configured servers, the lock
// and the policies (Sources, Load), probes each server in its sandbox
// through every phase, compares every phase with the lock and with the
// first phase, inspects every definition it saw, and turns all of it into
// findings and a status per server (Run, Loaded.Check). pin and approve use
// the same load and the same probe (Loaded.Pin, Loaded.ProbeLive); the
// command line and package check's Run both call it.
//
// Where each family of findings is raised (the rules themselves are
// registered, with their severity and text, in finding/rules.go):
//
//   - drift, the live server against its lock entry: compare.go
//     (definitions, handshake values; server-not-pinned, launch-changed,
//     lock-entry-orphaned), prompts.go (pinned prompt answers).
//   - ambiguous-json, text that is not JSON with one meaning: made by
//     internal/inspect/ambiguous.go for check, lint and the review alike.
//   - stability, a phase against the first: stability.go
//     (unstable-manifest).
//   - text, what the model reads: the rules are internal/inspect's;
//     inspection.go says what is inspected (definitions, answers, call
//     results, names across servers) and lint.go does the same for a
//     lock's own entries.
//   - hygiene and artifacts, what the launch runs: hygiene.go
//     (unpinned-package, package-changed, artifact-changed,
//     artifact-unidentified, launch-depends-on-environment,
//     unknown-config-key).
//   - canaries, what the sandbox planted: bait.go (canary-leak,
//     canary-returned), stdio.go (canary-used).
//   - availability: held.go (server-unavailable).
//   - repository, about files rather than a server: repository.go
//     (unchecked-config); policy-weakened is the policy package's
//     (policy.Combined.Weakenings), called from run.go.
//   - review, what a pull request's lock approves over the base's:
//     internal/review, settled in settle.go.
//
// Every finding, whatever its family, reaches the report through one
// settle (settle.go).
package check
