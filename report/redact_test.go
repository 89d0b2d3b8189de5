package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
)

// TestWriteRedacts is the renderers' backstop: a report whose every
// server-text field carries secrets (as if the engine had missed them)
// renders in no format with a secret in it, and JSON and SARIF stay valid.
func TestWriteRedacts(t *testing.T) {
	t.Parallel()
	const (
		gh     = "ghs_" + "16C7e42F292c6912E7710c838347Ae178B4a"
		pw     = "hunter2-db-pass"
		envVal = "svc-0a1b2c3d4e5f6a7b8c9d"
		body   = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
	)
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "\n-----END OPENSSH PRIVATE KEY-----"
	text := "token " + gh + " dsn postgres://u:" + pw + "@127.0.0.1/db env " + envVal + " key " + key + " ##[error]x"
	f := finding.New(finding.ToolChanged, "srv")
	f.Kind, f.Subject, f.Field, f.Message, f.Before, f.After, f.Detail = finding.KindTool, "t "+gh, "description", text, text, text+"!", text
	// JSON before/after text with the token behind an escape.
	g := finding.New(finding.ServerInfoChanged, "srv")
	g.Message, g.Before, g.After = "serverInfo differs", `{"name":"a"}`, `{"name":"\u0067`+gh[1:]+`"}`
	held := finding.New(finding.ServerUnavailable, "held")
	held.Message, held.Detail = "held: "+text, "stderr (last lines):\n"+text
	r := &Report{LockfileVersion: 1, Servers: []Server{
		{Name: "srv", Status: StatusDrift, Phases: []string{"launch-1/initial"}, Notes: []string{text},
			Calls:    []Call{{Phase: "launch-1/after-call-1", Tool: "t", Arguments: json.RawMessage(`{"q":"` + gh + `"}`), Outcome: "ok"}},
			Findings: []finding.Finding{f, g}},
		{Name: "held", Status: StatusHeld, Reason: text, Phases: []string{}, Findings: []finding.Finding{held}},
	}}
	before, _ := json.Marshal(r)
	opts := fixtureOptions
	opts.Redactor = redact.New([]string{"MY_SERVICE_TOKEN=" + envVal})
	for _, format := range Formats {
		var buf bytes.Buffer
		if err := Write(&buf, format, r, opts); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := buf.String()
		for _, s := range []string{gh, gh[1:], pw, envVal, body} {
			if strings.Contains(out, s) {
				t.Errorf("%s carries %q:\n%s", format, s, out)
			}
		}
		if !strings.Contains(out, "REDACTED:") {
			t.Errorf("%s shows no redaction", format)
		}
		if format == FormatJSON || format == FormatSARIF {
			if !json.Valid(buf.Bytes()) {
				t.Fatalf("%s is not JSON:\n%s", format, out)
			}
			if strings.Contains(out, "##[") {
				t.Errorf("%s holds a legacy workflow command", format)
			}
		}
	}
	var back Report
	var buf bytes.Buffer
	_ = Write(&buf, FormatJSON, r, opts)
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || !strings.Contains(back.Servers[0].Notes[0], "##[error]x") {
		t.Errorf("the escaped ##[ must read back as itself: %v %q", err, back.Servers[0].Notes)
	}
	if after, _ := json.Marshal(r); !bytes.Equal(before, after) {
		t.Error("Write changed the report it was given")
	}
}
