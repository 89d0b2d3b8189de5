// Package sandbox builds the *exec.Cmd that starts one MCP server for the
// probe, and owns that server's run directory and canary secrets.
//
// A configured server is arbitrary code named by a client config (often
// `npx some-server`), and mcp-lockcheck runs it in CI next to real
// credentials. The package gives three levels:
//
//   - [Off]: the command runs as the client would run it: the checker's whole
//     environment, the config's cwd, nothing planted. Only a process group is
//     added, so the probe can kill grandchildren (`npx` -> node).
//   - [Basic]: the environment is scrubbed to an allowlist, HOME, XDG_* and
//     TMPDIR point into a per-server run directory that holds canary secrets,
//     and resource limits are set (in a re-executed helper, so they are in
//     place before the server's first instruction).
//   - [Strict] (Linux): Basic, plus Landlock (read-only system and install
//     prefixes, read-write run directory only, no /proc) and a new user and
//     network namespace whose loopback is down: no network at all.
//
// Strict fails closed. A measured fact (docs/design.md#measured-facts):
// "Landlock TCP rules are not a network deny: UDP is uncovered before ABI
// 10 and an MPTCP socket connected past the TCP rule here", so the
// namespace is the real deny; where it cannot be created (GitHub's
// ubuntu-24.04 runners set kernel.apparmor_restrict_unprivileged_userns=1),
// [New] refuses with [ErrNoUserNamespace] instead of running with less
// isolation, and without Landlock it refuses with [ErrNoLandlock].
//
// The helper is the checker's own executable re-executed with a marker:
// every main that launches servers (and the TestMain of every test binary
// that does) must call [HelperMain] first.
//
// Canaries are unique random tokens per [Run], shaped like the real thing
// (`~/.ssh/id_rsa`, `~/.aws/credentials`, `GITHUB_TOKEN`, ...). A server that
// reads one and echoes it in anything it shows the model is caught by
// [Run.Leaks] (the `canary-leak` rule); [Run.Redact] keeps the tokens out of
// reports.
package sandbox
