// Package report is what a check found, as mcp-lockcheck reports it: the
// model (a Report of Servers, each with its status and findings, and the
// repository's own findings) and its renderers, the ones the CLI writes:
// text for a terminal, JSON (the contract of docs/json-report.md), SARIF for
// code scanning, markdown for a pull request comment, a job summary and
// workflow annotations.
//
// A program that runs checks itself (a CI system other than GitHub, an
// editor, a registry scanner) gets a Report from package check and renders
// it here, or reads one a run wrote with --format json (Read).
//
// The types are the ones mcp-lockcheck itself uses (aliases of its internal
// report package), so a Report from check, from Read and from the CLI's
// JSON are the same value. Findings are package finding's.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	ireport "github.com/mcp-lockcheck/mcp-lockcheck/internal/report"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

type (
	// Report is one run: its servers, the repository's findings and the
	// summary that decided the exit code.
	Report = ireport.Report
	// Server is one configured server: where it is configured, its status
	// (ok, drift, held), how it was probed, and its findings.
	Server = ireport.Server
	// Summary counts the run and carries its exit code.
	Summary = ireport.Summary
	// Status is a server's verdict.
	Status = ireport.Status
	// Format names a renderer.
	Format = ireport.Format
	// Options carry what a renderer needs beyond the Report (the lock's
	// path, the width of a terminal, a redactor). The zero value works.
	Options = ireport.Options
)

// The statuses of a server.
const (
	StatusOK    = ireport.StatusOK
	StatusDrift = ireport.StatusDrift
	StatusHeld  = ireport.StatusHeld
)

// The formats Write renders.
const (
	FormatText        = ireport.FormatText
	FormatJSON        = ireport.FormatJSON
	FormatSARIF       = ireport.FormatSARIF
	FormatMarkdown    = ireport.FormatMarkdown
	FormatSummary     = ireport.FormatSummary
	FormatAnnotations = ireport.FormatAnnotations
)

// The exit codes a Report's Summary carries (and the CLI exits with):
// precedence usage > drift > held, never ok with a server held.
const (
	ExitOK    = ireport.ExitOK
	ExitDrift = ireport.ExitDrift
	ExitUsage = ireport.ExitUsage
	ExitHeld  = ireport.ExitHeld
)

// Write renders r in format f to w, redacted (Options.Redactor).
func Write(w io.Writer, f Format, r *Report, opts Options) error {
	return ireport.Write(w, f, r, opts)
}

// ParseFormat reads a format's name as --format spells it.
func ParseFormat(s string) (Format, error) { return ireport.ParseFormat(s) }

// Read decodes a report a run wrote with --format json: one JSON value of
// the lockfile version this build reads.
func Read(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var rep Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("not a JSON report: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the report")
	}
	if rep.LockfileVersion != lock.Version {
		return nil, fmt.Errorf("lockfileVersion %d, want %d", rep.LockfileVersion, lock.Version)
	}
	return &rep, nil
}
