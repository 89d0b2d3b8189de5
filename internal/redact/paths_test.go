package redact

import "testing"

func TestWithPaths(t *testing.T) {
	subs := []PathSub{
		{"/tmp/tmp.123/home/user/project", "${PWD}"},
		{"/tmp/tmp.123/home/user/", "${HOME}"},
		{"/tmp/tmp.123/tmp", "${TMPDIR}"},
		{"/", "${ROOT}"},    // a root: left out
		{"rel/dir", "${X}"}, // relative: left out
		{"", "${EMPTY}"},    // empty: left out
		{"/tmp", ""},        // no placeholder: left out
	}
	r := New(nil).WithPaths(subs)
	for _, tc := range []struct{ in, want string }{
		{"Saves to /tmp/tmp.123/home/user/project/out.png.", "Saves to ${PWD}/out.png."},
		{"cwd: /tmp/tmp.123/home/user/project", "cwd: ${PWD}"},
		{"config in /tmp/tmp.123/home/user/.config/figma", "config in ${HOME}/.config/figma"},
		{"file:///tmp/tmp.123/home/user/project", "file://${PWD}"},
		{`"/tmp/tmp.123/tmp/x" and '/tmp/tmp.123/home/user'`, `"${TMPDIR}/x" and '${HOME}'`},
		{"(/tmp/tmp.123/home/user/project), /tmp/tmp.123/home/user/project.", "(${PWD}), ${PWD}."},
		// Not a whole path: a longer name, a deeper tree, a different root.
		{"/tmp/tmp.123/home/user/project2", "${HOME}/project2"},
		{"/tmp/tmp.123/home/user/project.bak", "${HOME}/project.bak"},
		{"/tmp/tmp.123/home/user2", "/tmp/tmp.123/home/user2"},
		{"/x/tmp/tmp.123/tmp", "/x/tmp/tmp.123/tmp"},
		{"/tmp/tmp.1234/tmp", "/tmp/tmp.1234/tmp"},
		{"nothing here /", "nothing here /"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Inside JSON: escaped spellings are decoded first; secrets are still
	// redacted after the paths.
	in := `{"description":"root \/tmp\/tmp.123\/home\/user\/project, token ghp_0123456789abcdefghijABCDEFGHIJ012345"}`
	got := string(r.JSON([]byte(in)))
	want := `{"description":"root ${PWD}, token ` + Value("ghp_0123456789abcdefghijABCDEFGHIJ012345") + `"}`
	if got != want {
		t.Errorf("JSON = %s\nwant   %s", got, want)
	}
	// nil Redactor with paths: placeholders, and still the secret shapes.
	var nr *Redactor
	if got := nr.WithPaths(subs[:1]).String("at /tmp/tmp.123/home/user/project"); got != "at ${PWD}" {
		t.Errorf("nil.WithPaths: %q", got)
	}
	// The original is not changed.
	if got := nr.String("at /tmp/tmp.123/home/user/project"); got != "at /tmp/tmp.123/home/user/project" {
		t.Errorf("nil redactor changed: %q", got)
	}
}
