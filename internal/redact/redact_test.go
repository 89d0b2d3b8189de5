package redact

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Planted secrets: shaped like the real ones, made up here.
const (
	ghToken  = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
	ghsToken = "ghs_" + "16C7e42F292c6912E7710c838347Ae178B4a"
	pat      = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF"
	npmTok   = "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	akia     = "AKIA" + "IOSFODNN7EXAMPLE"
	asia     = "ASIA" + "XYZ0123456789ABC"
	slack    = "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOp"
	jwt      = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	pemKey   = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onL\n-----END RSA PRIVATE KEY-----"
	envVal   = "s3cr3t-value-from-env"
)

func TestStringShapes(t *testing.T) {
	r := New(nil)
	tests := []struct {
		name, in, secret, keep string
	}{
		{"github classic", "token " + ghToken + " end", ghToken, "token "},
		{"github app", "x=" + ghsToken, ghsToken, "x="},
		{"github glued to a word", "X" + ghToken, ghToken, "X"},
		{"github fine-grained", pat, pat, ""},
		{"npm", "//registry.npmjs.org/:_authToken=" + npmTok, npmTok, "_authToken="},
		{"aws akia", "id " + akia, akia, "id "},
		{"aws asia", asia + ".", asia, "."},
		{"slack", "slack: " + slack, slack, "slack: "},
		{"jwt", "token=" + jwt, jwt, "token="},
		{"bearer", "Authorization: Bearer abcdef0123456789abcdef", "abcdef0123456789abcdef", "Authorization: Bearer "},
		{"bearer lower case", "bearer abcdef0123456789abcdef", "abcdef0123456789abcdef", "bearer "},
		{"pem whole", "key:\n" + pemKey + "\nafter", pemKey, "\nafter"},
		{"pem truncated", "key: " + pemKey[:60], pemKey[:60], "key: "},
		{"pem escaped newlines", `"` + strings.ReplaceAll(pemKey[:70], "\n", `\n`) + `" tail`, strings.ReplaceAll(pemKey[:70], "\n", `\n`), `" tail`},
		{"openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----", ""},
		{"url password", "postgres://alice:hunter2hunter@db.invalid:5432/app", "hunter2hunter", "postgres://alice:"},
		{"url password no user", "redis://:pw123456@127.0.0.1/0", "pw123456", "@127.0.0.1/0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := r.String(tc.in)
			if strings.Contains(got, tc.secret) {
				t.Fatalf("secret left in %q", got)
			}
			if !strings.Contains(got, Value(tc.secret)) {
				t.Errorf("got %q, want %s in it", got, Value(tc.secret))
			}
			if !strings.Contains(got, tc.keep) {
				t.Errorf("got %q, want %q kept", got, tc.keep)
			}
			if again := r.String(got); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

// TestStringHiddenSpellings: a secret spelled so a byte match misses it
// but a model reads it whole (tag characters, zero-width characters
// between its letters, fullwidth letters) is redacted too.
func TestStringHiddenSpellings(t *testing.T) {
	tags := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteRune(0xE0000 + r)
		}
		return b.String()
	}
	zw := func(s string) string { return strings.Join(strings.Split(s, ""), "\u200b") }
	full := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteRune(r + 0xFEE0)
		}
		return b.String()
	}
	r := New([]string{"MY_SECRET=" + envVal})
	for _, tc := range []struct{ name, hidden, plain string }{
		{"tag characters", tags(ghToken), ghToken},
		{"zero-width split", zw(ghToken), ghToken},
		{"fullwidth env value", full(envVal), envVal},
		{"soft hyphens in env value", strings.Join(strings.Split(envVal, "-"), "-\u00ad"), envVal},
		{"tag characters in env value", tags(envVal), envVal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "before " + tc.hidden + " after é"
			got := r.String(in)
			if strings.Contains(got, tc.hidden) || !strings.Contains(got, Prefix) {
				t.Fatalf("not redacted: %q", got)
			}
			if !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after é") {
				t.Errorf("surroundings lost: %q", got)
			}
			if again := r.String(got); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
			out := r.JSON([]byte(`{"d":` + mustJSON(in) + `}`))
			if !json.Valid(out) || strings.Contains(string(out), tc.hidden) {
				t.Errorf("JSON: %s", out)
			}
		})
	}
}

func TestStringLeavesOrdinaryText(t *testing.T) {
	r := New([]string{"HOME=/home/runner", "LANG=en_US.UTF-8", "NODE_ENV=production", "GITHUB_REPOSITORY=octo/widgets"})
	for _, s := range []string{
		"Read a file under /home/runner and return its text.",
		"Uses the bearer token you configured.",
		"Deploy to production.",
		"See https://example.invalid/docs?page=2 and postgres://localhost/app.",
		"Placeholder postgres://u:${PGPASSWORD}@127.0.0.1/db stays.",
		"Example: postgresql://user:password@localhost:5432/db or mysql://root:<pass>@h/x or redis://:xxxx@h",
		"Issues of octo/widgets.",
		"ghp_short",
		"REDACTED:0123abcd",
		"Zero\u200bwidth and ｆｕｌｌｗｉｄｔｈ text, tags \U000E0041\U000E0042.",
	} {
		if got := r.String(s); got != s {
			t.Errorf("%q changed to %q", s, got)
		}
	}
}

func TestEnvValues(t *testing.T) {
	env := []string{
		"MY_API_TOKEN=" + envVal,
		"DATABASE=correct-horse-battery-staple9", // not secret-named, not everyday
		"SHORT_TOKEN=abc",                        // too short
		"PATH=/usr/bin:/bin",
		"HOME=/home/runner",
		"LC_ALL=C.UTF-8",
		"TZ=Europe/Berlin-long",
		"GITHUB_SHA=0123456789abcdef0123456789abcdef01234567",
		"GITHUB_TOKEN=" + "opaque-runner-token-0001",
		"RUNNER_TEMP=/tmp/runner",
		"COUNT=1234567890",
		"FLAG=true",
		"EMPTY=",
		"WEIRD_NO_EQUALS",
	}
	r := New(env)
	tests := []struct {
		in     string
		secret string // "" = unchanged
	}{
		{"leak " + envVal + " here", envVal},
		{"url-encoded " + "p%40ss+" + envVal, ""}, // only whole values or their encodings
		{"db correct-horse-battery-staple9!", "correct-horse-battery-staple9"},
		{"opaque-runner-token-0001", "opaque-runner-token-0001"},
		{"sha 0123456789abcdef0123456789abcdef01234567", ""},
		{"tz Europe/Berlin-long", ""},
		{"n 1234567890", ""},
		{"in /usr/bin:/bin", ""},
		{"abc", ""},
	}
	for _, tc := range tests {
		got := r.String(tc.in)
		switch {
		case tc.secret == "" && got != tc.in && !strings.Contains(tc.in, envVal):
			t.Errorf("%q changed to %q", tc.in, got)
		case tc.secret != "" && (strings.Contains(got, tc.secret) || !strings.Contains(got, Value(tc.secret))):
			t.Errorf("%q: got %q, want %s", tc.in, got, Value(tc.secret))
		}
	}
	// The URL-encoded spelling of a value is caught too.
	r2 := New([]string{"API_KEY=a b/c&d=e?f1234"})
	if got := r2.String("q=a+b%2Fc%26d%3De%3Ff1234"); strings.Contains(got, "a+b%2Fc%26d%3De%3Ff1234") {
		t.Errorf("query-escaped value left: %q", got)
	}
}

func TestEveryday(t *testing.T) {
	tests := []struct {
		name, value string
		want        bool
	}{
		{"PATH", "/usr/local/bin:/usr/bin", true},
		{"HOME", "/home/u", true},
		{"LANG", "en_US.UTF-8", true},
		{"LC_CTYPE", "anything-at-all-really", true},
		{"GITHUB_REPOSITORY", "octo/widgets-and-more", true},
		{"GITHUB_TOKEN", "ghs_whatever_long_enough", false},
		{"INPUT_GITHUB_TOKEN", "whatever-long-enough", false},
		{"ACTIONS_RUNTIME_TOKEN", "x1234567890", false},
		{"GIT_AUTHOR_NAME", "mcp-lockcheck bot", false}, // not everyday: has a space and is not secret-named
		{"GIT_AUTHOR_NAME", "someone", true},            // short
		{"SOME_DIR", "/opt/some/dir", true},
		{"SOME_DIR", "relative/dir/abc", false},
		{"NUM", "12345678", true},
		{"BOOL", "FALSE", true},
		{"ENVNAME", "production", true},
		{"ENVNAME", "production-eu-west-1-blue", false},
		{"LOCALE", "C.UTF-8", true},
		{"DB_PASSWORD", "/looks/like/a/path", false},
	}
	for _, tc := range tests {
		if got := Everyday(tc.name, tc.value); got != tc.want {
			t.Errorf("Everyday(%s, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a := New([]string{"K_TOKEN=" + envVal}).String("x " + envVal + " " + ghToken)
	b := New([]string{"K_TOKEN=" + envVal}).String("x " + envVal + " " + ghToken)
	if a != b {
		t.Fatalf("%q != %q", a, b)
	}
	if Value(envVal) == Value(envVal+"x") {
		t.Fatal("a changed secret must redact differently")
	}
	if v := Value(envVal); len(v) != len("REDACTED:")+8 || !isStandIn(v) {
		t.Fatalf("Value = %q", v)
	}
}

func TestJSON(t *testing.T) {
	r := New([]string{"MY_SECRET=" + envVal})
	tests := []struct {
		name, in string
		secrets  []string
	}{
		{"plain", `{"description":"use ` + ghToken + `"}`, []string{ghToken}},
		{"escaped spelling", `{"description":"use \u0067hp_` + ghToken[4:] + `"}`, []string{ghToken}},
		{"escaped env value", `{"d":"` + strings.Replace(envVal, "s", `\u0073`, 1) + `"}`, []string{envVal}},
		{"key too", `{"` + ghToken + `":1}`, []string{ghToken}},
		{"pem with escaped newlines", `{"d":` + mustJSON(pemKey) + `}`, []string{pemKey}},
		{"secret before an escaped quote", `{"d":"` + envVal + `\"tail\\"}`, []string{envVal}},
		{"url password", `{"url":"postgres://u:hunter2hunter@127.0.0.1/db"}`, []string{"hunter2hunter"}},
		{"array and nesting", `[1,{"a":["` + npmTok + `",true,null]}]`, []string{npmTok}},
		{"lone surrogate", `{"d":"\ud800 ` + ghToken + `"}`, []string{ghToken}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := r.JSON([]byte(tc.in))
			if !json.Valid(out) {
				t.Fatalf("invalid JSON out: %s", out)
			}
			var v any
			_ = json.Unmarshal(out, &v)
			flat, _ := json.Marshal(v)
			for _, s := range tc.secrets {
				if strings.Contains(string(out), s) || strings.Contains(string(flat), s) {
					t.Errorf("secret left: %s", out)
				}
				if !strings.Contains(string(out), Value(s)) {
					t.Errorf("want %s in %s", Value(s), out)
				}
			}
			if again := r.JSON(out); string(again) != string(out) {
				t.Errorf("not idempotent: %s then %s", out, again)
			}
		})
	}
	clean := []byte(`{"description":"Read a file.","n":1.0}`)
	if out := r.JSON(clean); &out[0] != &clean[0] {
		t.Error("clean JSON was copied")
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"description":"use ` + ghToken + `"}`,
		`{"d":"\u0067hp_` + ghToken[4:] + `","k":[1,2,"x"]}`,
		`{"d":` + mustJSON(pemKey[:50]) + `}`,
		`["postgres://u:pw123456@127.0.0.1/db","Bearer abcdef0123456789abcdef"]`,
		`{"a":"\\\"` + envVal + `\\"}`,
		`"` + jwt + `"`,
	} {
		f.Add([]byte(s))
	}
	r := New([]string{"FUZZ_TOKEN=" + envVal})
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		out := r.JSON(in)
		if !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out:\n in: %q\nout: %q", in, out)
		}
		if again := r.JSON(out); string(again) != string(out) {
			t.Fatalf("not idempotent:\n%q\n%q", out, again)
		}
	})
}

// BenchmarkJSON redacts a 3 KB tool definition with the shapes and a
// runner-sized environment (60 secret values), nothing to replace.
func BenchmarkJSON(b *testing.B) {
	var environ []string
	for i := range 60 {
		environ = append(environ, "SECRET_"+strings.Repeat("X", i%5)+string(rune('A'+i%26))+"="+strings.Repeat("v", 3)+"-"+string(rune('a'+i%26))+"-0123456789abcdef"+strings.Repeat("z", i))
	}
	r := New(environ)
	long := strings.Repeat("Reads the file at the given path and returns its contents as text. ", 40)
	def := []byte(`{"annotations":{"readOnlyHint":true},"description":` + mustJSON(long) + `,"inputSchema":{"properties":{"mode":{"default":"text","enum":["text","binary","base64"],"type":"string"},"path":{"description":"Path of the file.","type":"string"}},"required":["path"],"type":"object"},"name":"read_file"}`)
	b.SetBytes(int64(len(def)))
	for b.Loop() {
		r.JSON(def)
	}
}

// FuzzString: redaction never cuts a character in half and redacting
// twice gives what redacting once gave.
func FuzzString(f *testing.F) {
	for _, s := range []string{"token " + ghToken, "key " + pemKey[:40], "x\u200b" + envVal, "postgres://u:pw123456@127.0.0.1/db", "é" + jwt + "\U000E0041"} {
		f.Add(s)
	}
	r := New([]string{"FUZZ_TOKEN=" + envVal, "OTHER_KEY=é-accented-value"})
	f.Fuzz(func(t *testing.T, s string) {
		out := r.String(s)
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 in, invalid out: %q -> %q", s, out)
		}
		if again := r.String(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}
