package report

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// FingerprintKey is the partialFingerprints key of every result. Code
// scanning matches alerts across runs by it, so it must change only when
// what identifies a finding changes; "/v1" leaves room for a new scheme.
const FingerprintKey = "mcpLockcheck/v1"

// writeSARIF writes a SARIF 2.1.0 log with one run: the rule registry as
// tool.driver.rules and one result per finding.
//
// Choices a consumer can rely on:
//   - partialFingerprints[FingerprintKey] is the SHA-256 of Finding.Key()
//     (rule, server, kind, subject, field): not a line number, because the
//     lockfile's lines move with every re-pin and code scanning would close
//     and reopen the same alert.
//   - Each result points at its Finding.File/Line, or at Options.LockPath
//     line 1 when the finding has no location: code scanning drops results
//     without a location.
//   - Acknowledged findings are reported with an "external" suppression (the
//     acknowledgement lives in the lock) carrying the reason, so code
//     scanning shows them as dismissed rather than dropping them.
//   - Message text is plain text with server text escaped; server, subject,
//     field and phase are also in the result's properties.
func writeSARIF(w io.Writer, r *Report, opts Options) error {
	log, err := buildSARIF(r, opts)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := log.PrettyWrite(&buf); err != nil {
		return err
	}
	buf.WriteByte('\n')
	_, err = w.Write(buf.Bytes())
	return err
}

func buildSARIF(r *Report, opts Options) (*sarif.Report, error) {
	opts = opts.withDefaults()
	log, err := sarif.New(sarif.Version210)
	if err != nil {
		return nil, err
	}
	driver := sarif.NewDriver("mcp-lockcheck").WithInformationURI(opts.InformationURI)
	if opts.ToolVersion != "" {
		driver.WithVersion(opts.ToolVersion)
	}
	ruleIndex := map[finding.RuleID]int{}
	for _, rule := range finding.Rules {
		ruleIndex[rule.ID] = len(driver.Rules)
		driver.AddRule(sarifRule(rule))
	}
	// A finding whose rule is not registered (a bug elsewhere) still gets
	// reported, under a rule descriptor made for it, rather than dropped.
	for _, f := range r.Findings() {
		if _, ok := ruleIndex[f.Rule]; !ok {
			ruleIndex[f.Rule] = len(driver.Rules)
			driver.AddRule(sarif.NewRule(escape(string(f.Rule))).
				WithShortDescription(sarif.NewMultiformatMessageString("Unregistered rule " + escape(string(f.Rule)))).
				WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(finding.Error))))
		}
	}
	run := sarif.NewRun(*sarif.NewTool(driver))
	if opts.AutomationID != "" {
		run.WithAutomationDetails(sarif.NewRunAutomationDetails().WithID(opts.AutomationID))
	}
	for _, f := range r.Findings() {
		run.AddResult(sarifResult(f, ruleIndex[f.Rule], opts))
	}
	log.AddRun(run)
	return log, nil
}

func sarifRule(rule finding.Rule) *sarif.ReportingDescriptor {
	return sarif.NewRule(string(rule.ID)).
		WithName(ruleName(rule.ID)).
		WithShortDescription(sarif.NewMultiformatMessageString(rule.Short)).
		WithFullDescription(sarif.NewMultiformatMessageString(rule.Full)).
		WithHelp(sarif.NewMultiformatMessageString(rule.Full + "\n\n" + rule.Help).
			WithMarkdown(rule.Full + "\n\n**What to do:** " + rule.Help)).
		WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(rule.Severity))).
		WithProperties(sarif.Properties{"tags": []string{"security", "mcp"}})
}

// ruleName turns "tool-changed" into "ToolChanged": SARIF's name is meant to
// be a readable identifier, the id stays the stable key.
func ruleName(id finding.RuleID) string {
	var b strings.Builder
	for part := range strings.SplitSeq(string(id), "-") {
		if part == "" {
			continue
		}
		if part == "json" {
			b.WriteString("JSON")
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func sarifLevel(s finding.Severity) string {
	switch {
	case s >= finding.Error:
		return "error"
	case s == finding.Warning:
		return "warning"
	}
	return "note"
}

func sarifResult(f finding.Finding, ruleIdx int, opts Options) *sarif.Result {
	res := sarif.NewRuleResult(escape(string(f.Rule))).
		WithRuleIndex(ruleIdx).
		WithLevel(sarifLevel(f.Severity)).
		WithMessage(sarif.NewTextMessage(sarifMessage(f))).
		WithPartialFingerPrints(map[string]any{FingerprintKey: fingerprint(f)})
	loc := sarif.NewLocationWithPhysicalLocation(sarifPhysicalLocation(f, opts))
	res.AddLocation(loc)

	props := sarif.NewPropertyBag()
	props.AddString("server", escape(f.Server))
	for k, v := range map[string]string{"kind": string(f.Kind), "subject": f.Subject, "field": f.Field, "phase": f.Phase} {
		if v != "" {
			props.AddString(k, escape(v))
		}
	}
	res.AttachPropertyBag(props)

	if f.Acknowledged {
		reason := f.AckReason
		if reason == "" {
			reason = "acknowledged in the lock"
		}
		// go-sarif writes status, guid and location as null when unset,
		// which the 2.1.0 schema rejects: set all three.
		res.AddSuppression(sarif.NewSuppression("external").
			WithStatus("accepted").
			WithJustifcation(escape(reason)).
			WithGuid(suppressionGUID(f)).
			WithLocation(sarif.NewLocationWithPhysicalLocation(sarifPhysicalLocation(f, opts))))
	}
	return res
}

// sarifMessage is the result's plain-text message: server, subject and field
// before the finding's own message, since code scanning shows only the
// message in its alert list.
func sarifMessage(f finding.Finding) string { return messageAbout(f, subjectText(f)) }

// messageAbout is sarifMessage with the subject named as given (a group's
// subjects, for an annotation).
func messageAbout(f finding.Finding, subject string) string {
	var b strings.Builder
	b.WriteString(escape(f.Server))
	if s := subject; s != "" {
		b.WriteString(": " + escape(s))
	}
	if f.Field != "" {
		b.WriteString(" (" + escape(f.Field) + ")")
	}
	b.WriteString(": ")
	b.WriteString(inert.Composed(f.Message))
	if f.Phase != "" {
		b.WriteString(" [" + escape(f.Phase) + "]")
	}
	return b.String()
}

// sarifPhysicalLocation points at the finding's file and line, or the lock
// at line 1. The URI is relative to the repository root (no uriBaseId), the
// form code scanning resolves against the checkout.
func sarifPhysicalLocation(f finding.Finding, opts Options) *sarif.PhysicalLocation {
	file, line := f.File, f.Line
	if file == "" {
		file, line = opts.LockPath, 1
	}
	if line < 1 {
		line = 1
	}
	return sarif.NewPhysicalLocation().
		WithArtifactLocation(sarif.NewSimpleArtifactLocation(relativeURI(file))).
		WithRegion(sarif.NewRegion().WithStartLine(line))
}

// relativeURI turns a repository-relative path into a relative URI
// reference: forward slashes, no leading "./", reserved characters
// percent-encoded.
func relativeURI(p string) string {
	p = path.Clean(filepath.ToSlash(p))
	p = strings.TrimPrefix(p, "/")
	return (&url.URL{Path: p}).EscapedPath()
}

// fingerprint is the stable identity of a finding across runs: hex SHA-256
// of Finding.Key(). Exported so the PR comment and other consumers can
// match a finding to its code-scanning alert.
func fingerprint(f finding.Finding) string {
	sum := sha256.Sum256([]byte(f.Key()))
	return hex.EncodeToString(sum[:])
}

// suppressionNamespace is a fixed, random UUID naming this tool's
// suppressions for name-based (version 5) UUIDs.
var suppressionNamespace = [16]byte{0x6f, 0x0e, 0x2a, 0x51, 0x8c, 0x3d, 0x4b, 0x77, 0x9a, 0x12, 0xd4, 0xe5, 0x0b, 0x6c, 0x21, 0x93}

// suppressionGUID is a deterministic RFC 4122 version 5 UUID for an
// acknowledgement: the same finding acknowledged for the same content gets
// the same GUID on every run, so golden files and code scanning stay stable.
func suppressionGUID(f finding.Finding) string {
	h := sha1.New()
	h.Write(suppressionNamespace[:])
	h.Write([]byte(f.Key() + "\x00" + f.ContentSHA256))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	x := hex.EncodeToString(u[:])
	return fmt.Sprintf("%s-%s-%s-%s-%s", x[0:8], x[8:12], x[12:16], x[16:20], x[20:32])
}
