// Package report is what a check found, as mcp-lockcheck reports it: the
// model (a Report of Servers, each with its status, what its probe covered
// (Coverage), the warm-up calls it was made (Call) and its findings, then
// the repository's own findings and the Summary that decided the exit
// code) and the renderers the CLI writes: text for a terminal, JSON (the
// contract of docs/json-report.md), SARIF for code scanning, markdown for
// a pull request comment, a job summary and workflow annotations.
//
// A program that runs checks itself (a CI system other than GitHub, an
// editor, a registry scanner) gets a Report from package check and renders
// it with Write, or reads one a run wrote with --format json (Read). These
// are the types mcp-lockcheck itself uses, so a Report from check, from
// Read and from the CLI's JSON are the same value.
//
// Every renderer treats all server text as hostile: it is escaped for the
// medium (a terminal, markdown, a workflow command) and redacted
// (Options.Redactor) before it is written.
package report
