package approval

import (
	"errors"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

func server(tools map[string]string) *lock.Server {
	s := &lock.Server{Launch: lock.Launch{Type: "stdio", Command: "srv"}, ProtocolVersion: "2025-06-18", Tools: map[string]*lock.Entry{}}
	for k, v := range tools {
		s.Tools[k] = lock.NewEntry([]byte(v))
	}
	return s
}

// writeA and writeB are approval_test.go's.
const (
	readFileA = `{"name":"read_file","description":"Read a file. Use read_file for text.","inputSchema":{"type":"object"}}`
	readFileB = `{"name":"read_text_file","description":"Read a file. Use read_text_file for text.","inputSchema":{"type":"object"}}`
	newT      = `{"name":"delete","description":"Delete a file.","inputSchema":{"type":"object"}}`
)

func TestChangesRenameAndSelect(t *testing.T) {
	prev := server(map[string]string{"read_file": readFileA, "write": writeA})
	live := server(map[string]string{"read_text_file": readFileB, "write": writeB, "delete": newT})
	cs := Changes("fs", prev, live)
	got := map[string]Change{}
	for _, c := range cs {
		got[c.Op+" "+c.Name] = c
	}
	if len(cs) != 3 {
		t.Fatalf("changes = %+v, want a rename, a change and an addition", cs)
	}
	r, ok := got["renamed read_text_file"]
	if !ok || r.From != "read_file" {
		t.Fatalf("no rename read_file -> read_text_file in %+v", cs)
	}
	if _, ok := got["changed write"]; !ok {
		t.Errorf("no change of write")
	}
	if _, ok := got["added delete"]; !ok {
		t.Errorf("no addition of delete")
	}
	// Naming the old name of a rename names the rename.
	sel, _ := ParseSelector("fs/tool/read_file")
	if !sel.matches(r) {
		t.Error("fs/tool/read_file does not select the rename")
	}

	// Approving the rename only: write stays as approved, delete unapproved.
	lk := lock.New()
	lk.Servers["fs"] = prev
	who := Approver{By: "me", At: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}
	ApplyChanges(lk, "fs", live, []Change{r}, who)
	tools := lk.Servers["fs"].Tools
	if _, ok := tools["read_file"]; ok {
		t.Error("the old name is still in the lock")
	}
	if e := tools["read_text_file"]; e == nil || e.ApprovedBy != "me" || e.ApprovedAt != "2026-11-30T00:00:00Z" {
		t.Errorf("renamed entry = %+v", e)
	}
	if tools["write"].SHA256 != lock.NewEntry([]byte(writeA)).SHA256 {
		t.Error("approving the rename carried write's change along")
	}
	if _, ok := tools["delete"]; ok {
		t.Error("approving the rename carried the new tool along")
	}
	left := Changes("fs", lk.Servers["fs"], live)
	if len(left) != 2 {
		t.Errorf("left = %+v, want write and delete", left)
	}
}

func TestChangesUnrelatedAreNotARename(t *testing.T) {
	prev := server(map[string]string{"write": writeA})
	live := server(map[string]string{"delete": newT})
	for _, c := range Changes("fs", prev, live) {
		if c.Op == OpRenamed {
			t.Fatalf("unrelated tools paired as a rename: %+v", c)
		}
	}
}

func TestParseSelector(t *testing.T) {
	tests := []struct {
		in   string
		want Selector
		err  bool
	}{
		{"fs", Selector{Server: "fs"}, false},
		{"fs/tool/read_text_file", Selector{"fs", "tool", "read_text_file"}, false},
		{"fs/resource/file:///tmp/a/b", Selector{"fs", "resource", "file:///tmp/a/b"}, false},
		{"fs/template/x", Selector{"fs", "template", "x"}, false},
		{"fs/tool", Selector{}, true},
		{"fs/tool/", Selector{}, true},
		{"/tool/x", Selector{}, true},
		{"fs/tools/x", Selector{}, true},
	}
	for _, tt := range tests {
		got, err := ParseSelector(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseSelector(%q) = %+v, %v", tt.in, got, err)
		}
	}
}

func TestAckFor(t *testing.T) {
	l := &Live{Name: "fs", Findings: []finding.Finding{
		{Rule: finding.ModelInstruction, Kind: "tool", Subject: "write", ContentSHA256: "abc"},
		// The same tool's warm-up result: other content, its own ack.
		{Rule: finding.ModelInstruction, Kind: "tool", Subject: "write", Field: "tools/call result", ContentSHA256: "def"},
		{Rule: finding.ModelInstruction, Kind: "tool", Subject: "write", Field: "title", ContentSHA256: "abc"},
	}}
	sel, _ := ParseSelector("fs/tool/write")
	acks, err := ackFor(l, finding.ModelInstruction, sel, "ok", Approver{By: "me"})
	if err != nil || len(acks) != 2 || acks[0].SHA256 != "abc" || acks[1].SHA256 != "def" || acks[0].Reason != "ok" || acks[0].By != "me" {
		t.Errorf("ackFor = %+v, %v", acks, err)
	}
	if _, err := ackFor(l, finding.SensitivePath, sel, "ok", Approver{}); !errors.Is(err, errNothingToAck) {
		t.Errorf("no finding: err = %v", err)
	}
	ls := &lock.Server{}
	addAck(ls, acks[0])
	addAck(ls, acks[0])
	if len(ls.Acknowledgements) != 1 {
		t.Errorf("acks = %+v, want one", ls.Acknowledgements)
	}
}
