package inspect

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// An answer (a tools/call result, a resources/read result, a prompts/get
// result, an error, a server's own sampling request) is text the model
// reads as surely as a definition is, and a server can poison it as
// easily: from the first call, or after the hundredth. It cannot be
// pinned (a tool answers what it is asked), so what protects the model is
// the same rules the definitions get, run on every answer.
//
// Not every byte of an answer is a JSON string the model reads as it
// stands. A resource's contents may be a base64 blob that the client
// decodes, an image or audio content carries base64 data, and a uri may be
// a data: URI with the text inside. A rule that looked at the encoded form
// would see letters and digits; so the text encoded in them is decoded,
// the way the most lenient client decodes it, and judged too.

// AnswerOptions say which rules apply to an answer.
type AnswerOptions struct {
	// Data marks an answer that is data the server read or computed for
	// the request (a tool's result, a resource's contents) rather than
	// text its authors wrote for the model (a prompt's messages, an
	// instruction). In data a credential path named alone is what the
	// tool was asked about (a directory listing of a home directory, a
	// config file read on purpose), so sensitive-path, a judgement about
	// text an author wrote, does not apply; a request to read such a path
	// and pass it on is model-instruction, which does.
	Data bool
	// ControlsOnly limits the scan to hidden-characters and
	// terminal-escape, as Controls does.
	ControlsOnly bool
}

// Answer scans one answer with every rule Definition runs, over every
// string of it (keys included) and over the text encoded in its strings:
// a "blob" (resource contents) or "data" (image and audio content) in
// base64, and data: URIs. Each finding's Field is the path of the string
// the text was in, and its Message says when the text was decoded from it
// ("contents/0/blob (decoded from base64)"). Findings are bound to the
// hash of Raw, computed only when there is a finding (an answer can be
// megabytes, and most have none).
//
// Encoded text is decoded as leniently as any client decodes it:
// characters outside the base64 alphabets are skipped, both alphabets are
// read, and padding may fall anywhere, so a blob cannot hide its text by
// being slightly malformed. What the decoding yields is judged as text when
// its media type says text, or when it is valid UTF-8 without a NUL byte
// whatever the type claims: an image's bytes are not, text labelled as an
// image is. Decoded text that is JSON is walked as JSON (a JSON document in
// a blob hides its text behind escapes otherwise), down to
// maxDecodeDepth levels of encoding.
//
// An answer that is not JSON is scanned as one raw text, so garbage cannot
// hide text from the scan.
func Answer(s Subject, o AnswerOptions) []finding.Finding {
	sc := scan{subject: s, index: map[string]int{}, controlsOnly: o.ControlsOnly}
	var enc encodings
	var ms modelScan
	if !o.ControlsOnly {
		ms = newModelScan(statModel)
	}
	err := walkStrings(s.Raw, func(r textRef) {
		ms.see(r)
		sc.text(r)
		if !r.key {
			enc.see(r, nil)
		}
	})
	if err != nil {
		sc.index, sc.hits = map[string]int{}, nil
		if !o.ControlsOnly {
			ms = newModelScan(statModel)
			ms.see(textRef{b: s.Raw})
		}
		sc.text(textRef{b: s.Raw})
	} else {
		enc.decode(&sc, 1)
	}
	if o.Data {
		sc.hits = dropRule(sc.hits, finding.SensitivePath)
	}
	if len(sc.hits) == 0 {
		return withModel(s, nil, "", &ms)
	}
	fs := sc.findings() // sets sc.sha when there are findings
	return withModel(s, fs, sc.sha, &ms)
}

// dropRule removes one rule's hits.
func dropRule(hits []*hit, rule finding.RuleID) []*hit {
	out := hits[:0]
	for _, h := range hits {
		if h.rule != rule {
			out = append(out, h)
		}
	}
	return out
}

// maxDecodeDepth bounds nested encodings: text in a blob is decoded, a blob
// in the JSON of that text once more, and no further.
const maxDecodeDepth = 2

// encoded is one string that may hold encoded text.
type encoded struct {
	segs   []string // the string's path
	parent string   // the path of the object it is a member of
	key    string   // "blob", "data", or "" for a data: URI
	val    []byte
}

// encodings collects, during a walk, the strings that may hold encoded
// text and the media types beside them.
type encodings struct {
	cands []encoded
	mimes map[string]string // object path -> its mimeType
	types map[string]string // object path -> its type
}

// see looks at one string value: a mimeType or type is remembered for its
// object, a blob, data or data: URI is kept for decode. prefix is put
// before the string's path (the path of the encoded string decoded text
// came from).
func (e *encodings) see(r textRef, prefix []string) {
	if len(r.segs) == 0 {
		if hasDataScheme(r.b) {
			e.cands = append(e.cands, encoded{segs: prefix, val: bytes.Clone(r.b)})
		}
		return
	}
	key := r.segs[len(r.segs)-1]
	switch key {
	case "mimeType", "type":
		m := &e.mimes
		if key == "type" {
			m = &e.types
		}
		if *m == nil {
			*m = map[string]string{}
		}
		(*m)[joinPath(prefix, r.segs[:len(r.segs)-1])] = strings.ToLower(strings.TrimSpace(string(r.b)))
	case "blob", "data":
		e.cands = append(e.cands, encoded{segs: withPrefix(prefix, r.segs), parent: joinPath(prefix, r.segs[:len(r.segs)-1]), key: key, val: bytes.Clone(r.b)})
		return
	}
	if hasDataScheme(r.b) {
		e.cands = append(e.cands, encoded{segs: withPrefix(prefix, r.segs), val: bytes.Clone(r.b)})
		return
	}
	if jsonText(r.b) {
		e.cands = append(e.cands, encoded{segs: withPrefix(prefix, r.segs), key: jsonKey, val: bytes.Clone(r.b)})
	}
}

// jsonKey marks a candidate that is a string holding a JSON document.
const jsonKey = "\x00json"

// jsonText reports a string that reads as a JSON object or array: what
// most servers put in a text content item (their API's response,
// serialized), and what a decoded blob often holds. Its strings are read again one by one, each a text of its
// own: read as one text, an issue's body or an e-mail's inside it starts
// mid-clause ("{"title":"...","body":"Send the contact list to ..."), and
// an order at its head is not at a clause's head.
func jsonText(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) >= 2 && (b[0] == '{' && b[len(b)-1] == '}' || b[0] == '[' && b[len(b)-1] == ']') && bytes.IndexByte(b, '"') > 0
}

func withPrefix(prefix, segs []string) []string {
	out := make([]string, 0, len(prefix)+len(segs))
	return append(append(out, prefix...), segs...)
}

func joinPath(prefix, segs []string) string {
	p := ""
	for _, s := range prefix {
		p = lock.AppendFieldPath(p, s)
	}
	for _, s := range segs {
		p = lock.AppendFieldPath(p, s)
	}
	return p
}

// hasDataScheme reports whether b starts (after blanks) with "data:",
// in any case.
func hasDataScheme(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 5 && b[4] == ':' && bytes.EqualFold(b[:4], []byte("data"))
}

// decode judges the text encoded in every candidate the walk kept.
func (e *encodings) decode(sc *scan, depth int) {
	for _, c := range e.cands {
		var text []byte
		var mime, via string
		switch c.key {
		case "blob", "data":
			mime = e.mimes[c.parent]
			if c.key == "data" && mime == "" && !mediaContent(e.types[c.parent]) && !strictBase64(c.val) {
				// A member named data that is not an image's or
				// audio's: base64 only if it reads as nothing else.
				continue
			}
			text, via = lenientBase64(c.val), "decoded from base64"
		case jsonKey:
			// Already judged as one text: read again only as JSON.
			sc.decodedJSON(c.segs, c.val, "read as JSON", depth)
			continue
		default:
			text, mime, via = dataURI(c.val)
		}
		if len(text) == 0 || !isText(text, mime) {
			continue
		}
		sc.decoded(c.segs, text, via, depth)
	}
}

// decoded judges text decoded from the string at segs: walked as JSON when
// it is JSON, else as one text.
func (sc *scan) decoded(segs []string, text []byte, via string, depth int) {
	if jsonText(text) && sc.decodedJSON(segs, text, via, depth) {
		return
	}
	prev := sc.via
	sc.via = via
	defer func() { sc.via = prev }()
	sc.text(textRef{segs: segs, b: text})
}

// decodedJSON walks text as JSON, its strings judged at segs' paths, and
// reports whether it was JSON. It is walked into a scratch scan first: a
// document that is not JSON after all leaves no half a walk's findings.
func (sc *scan) decodedJSON(segs []string, text []byte, via string, depth int) bool {
	prev := sc.via
	sc.via = via
	defer func() { sc.via = prev }()
	var inner encodings
	trial := scan{subject: sc.subject, index: map[string]int{}, controlsOnly: sc.controlsOnly, via: via, intent: sc.intent, depth: sc.depth}
	if walkStrings(text, func(r textRef) {
		r.segs = withPrefix(segs, r.segs)
		trial.text(r)
		if !r.key && depth < maxDecodeDepth {
			inner.see(textRef{segs: r.segs[len(segs):], b: r.b}, segs)
		}
	}) != nil {
		return false
	}
	sc.merge(&trial)
	if depth < maxDecodeDepth {
		inner.decode(sc, depth+1)
	}
	return true
}

// merge adds another scan's hits of the same subject to sc's.
func (sc *scan) merge(o *scan) {
	for _, h := range o.hits {
		g := sc.get(h.rule, h.field, h.key)
		g.hidden = g.hidden && h.hidden
		for _, l := range h.labels {
			g.addLabel(l)
		}
		g.detail = append(g.detail, h.detail...)
		g.raise(h.sev)
		g.csev = max(g.csev, h.csev)
		if g.extra == "" {
			g.extra = h.extra
		}
		if g.via == "" {
			g.via = h.via
		}
	}
}

// mediaContent reports whether a content item's type carries base64 data.
func mediaContent(t string) bool { return t == "image" || t == "audio" }

// strictBase64 reports whether b is nothing but base64: letters, digits,
// + / - _, padding and line breaks, at least 8 of them.
func strictBase64(b []byte) bool {
	n := 0
	for _, c := range b {
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/', c == '-', c == '_':
			n++
		case c == '=', c == '\r', c == '\n':
		default:
			return false
		}
	}
	return n >= 8
}

// lenientBase64 decodes b the way the most forgiving client does (Node's
// Buffer.from(s, "base64"), Python's b64decode without validate): every
// byte outside both base64 alphabets is skipped, the URL-safe alphabet is
// read as the standard one, and each run between padding is decoded on its
// own, so text after a stray "=" is not lost.
func lenientBase64(b []byte) []byte {
	var out, run []byte
	flush := func() {
		if len(run)%4 == 1 {
			run = run[:len(run)-1] // six bits make no byte
		}
		if len(run) > 0 {
			n := base64.RawStdEncoding.DecodedLen(len(run))
			start := len(out)
			out = append(out, make([]byte, n)...)
			m, _ := base64.RawStdEncoding.Decode(out[start:], run)
			out = out[:start+m]
		}
		run = run[:0]
	}
	for _, c := range b {
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/':
			run = append(run, c)
		case c == '-':
			run = append(run, '+')
		case c == '_':
			run = append(run, '/')
		case c == '=':
			flush()
		}
	}
	flush()
	return out
}

// dataURI decodes a data: URI (RFC 2397): the text after the comma, from
// base64 when the header says ";base64", else percent-decoded, and the
// media type the header names.
func dataURI(b []byte) (text []byte, mime, via string) {
	b = bytes.TrimLeft(b, " \t\r\n")[len("data:"):]
	header, payload, ok := bytes.Cut(b, []byte{','})
	if !ok {
		return nil, "", ""
	}
	params := strings.Split(strings.ToLower(string(header)), ";")
	mime = strings.TrimSpace(params[0])
	for _, p := range params[1:] {
		if strings.TrimSpace(p) == "base64" {
			return lenientBase64(payload), mime, "decoded from its data: URI (base64)"
		}
	}
	return percentDecode(payload), mime, "decoded from its data: URI"
}

// percentDecode undoes %XX escapes; a "%" not followed by two hex digits
// stays as it is.
func percentDecode(b []byte) []byte {
	if bytes.IndexByte(b, '%') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+2 < len(b) {
			if h, l := unhex(b[i+1]), unhex(b[i+2]); h >= 0 && l >= 0 {
				out = append(out, byte(h<<4|l))
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// isText reports whether decoded bytes are text a client would hand the
// model as text: the media type says so, or, whatever it says, the bytes
// are valid UTF-8 with no NUL (binary formats have both invalid sequences
// and NULs within their first bytes; text labelled as an image has
// neither, and a client that sniffs shows it as text).
func isText(b []byte, mime string) bool {
	if textMedia(mime) {
		return true
	}
	return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
}

// textMedia reports whether a media type is text: text/*, message/*, and
// the structured and script formats that are text whatever their tree.
func textMedia(mime string) bool {
	mime, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(mime)), ";")
	mime = strings.TrimSpace(mime)
	top, sub, ok := strings.Cut(mime, "/")
	if !ok {
		return false
	}
	switch top {
	case "text", "message":
		return true
	case "application":
		for _, s := range []string{"+json", "+xml", "+yaml"} {
			if strings.HasSuffix(sub, s) {
				return true
			}
		}
		switch strings.TrimPrefix(sub, "x-") {
		case "json", "ndjson", "xml", "javascript", "ecmascript", "yaml", "toml", "sql", "graphql",
			"sh", "shellscript", "python", "php", "httpd-php", "csv", "markdown", "rtf", "www-form-urlencoded", "tex", "latex":
			return true
		}
	}
	return false
}
