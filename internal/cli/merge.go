package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/ghcmd"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// printMatrix writes the servers as a GitHub Actions matrix, so a workflow
// can check each server in its own job: {"include":[{"server","config"}]}.
// Config paths are relative to the working directory, as --config takes them.
func printMatrix(env Env, servers []config.Server) (int, error) {
	type entry struct {
		Server string `json:"server"`
		Config string `json:"config"`
	}
	m := struct {
		Include []entry `json:"include"`
	}{Include: []entry{}}
	for _, s := range servers {
		m.Include = append(m.Include, entry{Server: s.Name, Config: filepath.ToSlash(s.File)})
	}
	b, err := json.Marshal(m)
	if err != nil {
		return ExitUsage, err
	}
	// Names are config text: one holding "##[" must neither become a
	// workflow command in the log nor break the JSON a workflow reads.
	fmt.Fprintf(env.Stdout, "%s\n", ghcmd.NeutralizeJSON(b))
	return ExitOK, nil
}

// runMerge combines the JSON reports of several check runs (one per server
// in a matrix) into one report, as one `check` of all of them would have
// made it: servers sorted by name, the summary recomputed with the runs'
// fail-on, and writes it in every format asked for. Its exit code is the
// merged report's, so a workflow's merge job fails as the checks did.
//
// It also serves the Action: --path-prefix re-roots file locations when the
// check ran in a subdirectory, and --github-output sets the step outputs.
func runMerge(_ context.Context, args []string, env Env) (int, error) {
	fs := newFlagSet("merge", env)
	format := fs.String("format", "text", "stdout `FORMAT`: text, json, sarif, markdown, summary, annotations or none")
	jsonOut := fs.String("json", "", "write the merged JSON report to `FILE`")
	sarifOut := fs.String("sarif", "", "write SARIF to `FILE`")
	mdOut := fs.String("markdown", "", "write the markdown PR comment to `FILE`")
	summaryOut := fs.String("summary", "", "write the job summary markdown to `FILE`")
	automation := fs.String("automation-id", "", "SARIF automationDetails.id `ID` (unique per job)")
	lockPath := fs.String("lock", lock.DefaultPath, "lockfile `FILE` the reports are about (for locations)")
	prefix := fs.String("path-prefix", "", "prefix file locations with `DIR` (the check ran in this subdirectory of the repository)")
	outputs := fs.Bool("github-output", false, "set the step outputs drift-detected, held-servers and findings-count ($GITHUB_OUTPUT)")
	var files []string
	for rest := args; ; {
		if err := parseFlags(fs, rest); err != nil {
			return ExitUsage, err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) == 0 {
		return ExitUsage, usageErr("merge: name at least one JSON report")
	}
	stdoutFormat := report.Format("")
	if *format != "none" {
		f, err := report.ParseFormat(*format)
		if err != nil {
			return ExitUsage, asUsage(fmt.Errorf("--format: %w", err))
		}
		stdoutFormat = f
	}
	r, err := mergeReports(files, env)
	if err != nil {
		return ExitUsage, err
	}
	lp := *lockPath
	if p := path.Clean(filepath.ToSlash(*prefix)); *prefix != "" && p != "." {
		if path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
			return ExitUsage, usageErr("--path-prefix %q: want a relative path inside the repository", *prefix)
		}
		reroot(r, p)
		lp = path.Join(p, lp)
	}
	ropts := report.Options{LockPath: lp, ToolVersion: toolVersion(), AutomationID: *automation, Redactor: env.red}
	if stdoutFormat != "" {
		if err := report.Write(env.Stdout, stdoutFormat, r, ropts); err != nil {
			return ExitUsage, fmt.Errorf("writing report: %w", err)
		}
	}
	var c common
	targets := report.Targets{JSON: c.outPath(env, *jsonOut), SARIF: c.outPath(env, *sarifOut), Markdown: c.outPath(env, *mdOut), Summary: c.outPath(env, *summaryOut)}
	if err := report.WriteAll(r, targets, ropts); err != nil {
		return ExitUsage, err
	}
	if *outputs {
		if err := ghcmd.SetOutputs(func(k string) string { v, _ := env.Getenv(k); return v }, resultOutputs(r)); err != nil {
			return ExitUsage, err
		}
	}
	return r.Summary.ExitCode, nil
}

// mergeReports reads every report and combines them. A server in two
// reports, or reports run with different fail-on thresholds, cannot be
// combined into what one run would have said: that is an error.
func mergeReports(files []string, env Env) (*report.Report, error) {
	out := &report.Report{LockfileVersion: lock.Version, Servers: []report.Server{}}
	seen := map[string]string{}
	failOn := ""
	for _, f := range files {
		r, err := readReport(f, env)
		if err != nil {
			return nil, err
		}
		if failOn == "" {
			failOn = r.Summary.FailOn
		} else if r.Summary.FailOn != failOn {
			return nil, usageErr("%s: fail-on %q, but %s used %q: check every server with the same --fail-on", f, r.Summary.FailOn, files[0], failOn)
		}
		for _, w := range r.Warnings {
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w)
			}
		}
		// Every job of a matrix reads the same policy and the same
		// repository: its findings about them are kept once.
		for _, f := range r.Repository {
			if !slices.ContainsFunc(out.Repository, func(g finding.Finding) bool { return g.Key() == f.Key() && g.Message == f.Message }) {
				out.Repository = append(out.Repository, f)
			}
		}
		for _, s := range r.Servers {
			if prev, ok := seen[s.Name]; ok {
				return nil, usageErr("%s: server %q is also in %s: check each server in one job only (--server)", f, s.Name, prev)
			}
			seen[s.Name] = f
			out.Servers = append(out.Servers, s)
		}
	}
	sort.SliceStable(out.Servers, func(i, j int) bool { return out.Servers[i].Name < out.Servers[j].Name })
	sev, err := finding.ParseSeverity(failOn)
	if err != nil {
		return nil, usageErr("fail-on %q: %v", failOn, err)
	}
	report.Summarize(out, sev, false)
	return out, nil
}

// reroot prefixes every relative file location with dir.
func reroot(r *report.Report, dir string) {
	for i := range r.Servers {
		s := &r.Servers[i]
		if s.Config != "" && !path.IsAbs(s.Config) {
			s.Config = path.Join(dir, s.Config)
		}
		for j := range s.Findings {
			f := &s.Findings[j]
			if f.File != "" && !path.IsAbs(f.File) {
				f.File = path.Join(dir, f.File)
			}
		}
	}
	for j := range r.Repository {
		f := &r.Repository[j]
		if f.File != "" && !path.IsAbs(f.File) {
			f.File = path.Join(dir, f.File)
		}
	}
}

// resultOutputs are the Action's result outputs: separate from the exit
// code, so a workflow can decide what a drift or a hold means for it.
func resultOutputs(r *report.Report) map[string]string {
	var held []string
	for _, s := range r.Servers {
		if s.Status == report.StatusHeld {
			held = append(held, s.Name)
		}
	}
	return map[string]string{
		"drift-detected": strconv.FormatBool(r.Summary.Drift > 0),
		"held-servers":   strings.Join(held, ","),
		"findings-count": strconv.Itoa(r.Summary.Findings),
	}
}
