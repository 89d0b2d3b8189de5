package lock

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// The change model: what differs between two manifests (a lock entry and
// what a server shows, two phases of one probe, the base branch's lock and
// a pull request's), as data. Every comparison in mcp-lockcheck (drift in
// check, the base review, approve, the guard) is a mapping from []Change
// to its own rule ids and messages; none of them diffs JSON itself.

// KindServer is the kind of a server's own fields (protocolVersion,
// serverInfo, capabilities, instructions, launch) in changes and findings.
const KindServer Kind = "server"

// KindInfo says how one kind of definition is listed on the wire and kept
// in the lock: the one table the probe, the guard and the lock share.
type KindInfo struct {
	Kind Kind // "tool"
	// Method is the list request ("tools/list").
	Method string
	// Field is the array of the list result holding the definitions, and
	// the lock's key for the kind ("tools", "resourceTemplates").
	Field string
	// Key is the member that names a definition ("name", "uri").
	Key string
	// Capability is the initialize capability that advertises the list.
	Capability string
}

// kindInfo is in Kinds order.
var kindInfo = []KindInfo{
	{KindTool, "tools/list", "tools", "name", "tools"},
	{KindPrompt, "prompts/list", "prompts", "name", "prompts"},
	{KindResource, "resources/list", "resources", "uri", "resources"},
	{KindTemplate, "resources/templates/list", "resourceTemplates", "uriTemplate", "resources"},
}

// InfoOf returns how kind is listed and kept; false for a kind that is
// not an entry kind.
func InfoOf(kind Kind) (KindInfo, bool) {
	for _, k := range kindInfo {
		if k.Kind == kind {
			return k, true
		}
	}
	return KindInfo{}, false
}

// InfoOfMethod returns the kind a list request lists; false for any other
// method.
func InfoOfMethod(method string) (KindInfo, bool) {
	for _, k := range kindInfo {
		if k.Method == method {
			return k, true
		}
	}
	return KindInfo{}, false
}

// Op is what happened to one subject between a reference and a live
// manifest.
type Op string

// Change operations.
const (
	Added   Op = "added"
	Removed Op = "removed"
	Changed Op = "changed"
)

// Manifest is what one server shows the model, in comparable form: every
// handshake value and every definition canonical. The lock entry, each
// probe phase and the guard's lock view are manifests.
type Manifest struct {
	// ProtocolVersion is the negotiated version ("" when unknown: an old
	// lock without one).
	ProtocolVersion string
	ServerInfo      Canonical
	Capabilities    Canonical
	Instructions    Canonical
	// Entries holds, per kind, the definitions by key.
	Entries map[Kind]map[string]Canonical
}

// Manifest returns the lock entry in comparable form. Handshake values
// kept as raw bytes are compared byte for byte.
func (s *Server) Manifest() *Manifest {
	m := &Manifest{
		ProtocolVersion: s.ProtocolVersion,
		ServerInfo:      s.Handshake("serverInfo", s.ServerInfo),
		Capabilities:    s.Handshake("capabilities", s.Capabilities),
		Instructions:    s.Handshake("instructions", s.Instructions),
		Entries:         map[Kind]map[string]Canonical{},
	}
	for _, kind := range Kinds {
		es := map[string]Canonical{}
		for k, e := range s.Entries(kind, false) {
			es[k] = e.Canonical()
		}
		m.Entries[kind] = es
	}
	return m
}

// Change is one subject that differs: a definition added, removed or
// changed, or one of the server's own fields (Kind KindServer, Name
// "protocolVersion", "serverInfo", "capabilities" or "instructions").
type Change struct {
	Kind Kind
	Name string
	Op   Op
	// Before and After are the canonical forms in the reference and live
	// (zero when absent). protocolVersion is its JSON string.
	Before, After Canonical
	// Fields are the field-level differences of a change, in path order;
	// nil when either side is ambiguous JSON, which is compared byte for
	// byte and has no fields.
	Fields []FieldChange
}

// Ambiguous reports whether either side is JSON without one meaning: the
// change is then the whole bytes, not fields.
func (c Change) Ambiguous() bool { return c.Before.Ambiguous != "" || c.After.Ambiguous != "" }

// HandshakeFields are the server's own fields a Manifest holds, in the
// order Diff lists their changes.
var HandshakeFields = []string{"protocolVersion", "serverInfo", "capabilities", "instructions"}

// Diff lists what differs between a reference manifest (the lock, an
// earlier phase, the base branch's lock) and a live one: the server's own
// fields first (HandshakeFields order), then per kind (Kinds order) the
// live entries added or changed by key, then the reference's entries the
// live one no longer has by key. Entries are compared by canonical hash.
func Diff(ref, live *Manifest) []Change {
	var out []Change
	for _, field := range HandshakeFields {
		if c, ok := DiffOne(KindServer, field, ref.handshake(field), live.handshake(field)); ok {
			out = append(out, c)
		}
	}
	for _, kind := range Kinds {
		refs, lives := ref.Entries[kind], live.Entries[kind]
		for _, key := range slices.Sorted(maps.Keys(lives)) {
			rc, ok := refs[key]
			if !ok {
				out = append(out, Change{Kind: kind, Name: key, Op: Added, After: lives[key]})
				continue
			}
			if c, ok := changed(kind, key, rc, lives[key]); ok {
				out = append(out, c)
			}
		}
		for _, key := range slices.Sorted(maps.Keys(refs)) {
			if _, ok := lives[key]; !ok {
				out = append(out, Change{Kind: kind, Name: key, Op: Removed, Before: refs[key]})
			}
		}
	}
	return out
}

func (m *Manifest) handshake(field string) Canonical {
	switch field {
	case "protocolVersion":
		if m.ProtocolVersion == "" {
			return Canonical{}
		}
		b, _ := json.Marshal(m.ProtocolVersion)
		return Canonicalize(b)
	case "serverInfo":
		return m.ServerInfo
	case "capabilities":
		return m.Capabilities
	case "instructions":
		return m.Instructions
	}
	return Canonical{}
}

// DiffOne compares one subject's reference and live canonical forms (zero
// when absent); false when they are the same.
func DiffOne(kind Kind, name string, ref, live Canonical) (Change, bool) {
	switch {
	case ref.SHA256 == live.SHA256:
		return Change{}, false
	case len(ref.Bytes) == 0:
		return Change{Kind: kind, Name: name, Op: Added, Before: ref, After: live}, true
	case len(live.Bytes) == 0:
		return Change{Kind: kind, Name: name, Op: Removed, Before: ref, After: live}, true
	}
	return changed(kind, name, ref, live)
}

// changed compares two present forms of one subject.
func changed(kind Kind, name string, ref, live Canonical) (Change, bool) {
	if ref.SHA256 == live.SHA256 {
		return Change{}, false
	}
	c := Change{Kind: kind, Name: name, Op: Changed, Before: ref, After: live}
	if !c.Ambiguous() {
		c.Fields = FieldDiff(ref.Bytes, live.Bytes)
	}
	return c, true
}

// FieldChange is one differing place between two definitions.
type FieldChange struct {
	// Path is the field's path: keys and array indexes joined by "/",
	// each escaped by AppendFieldPath; "" is the whole value.
	Path string
	// Before and After are the values rendered for a human (Text); ""
	// when absent.
	Before, After string
	// Added is set when the field is only in the live definition.
	Added bool
	// AfterValue is the live value decoded (numbers as json.Number), for
	// callers that look inside an added object.
	AfterValue any
}

// FieldDiff lists the field paths where two canonical definitions differ
// ("description", "inputSchema/properties/path/description"), in path
// order. Arrays of different length are one change at the array's path.
// Bytes that do not decode are one change of the whole value.
func FieldDiff(before, after []byte) []FieldChange {
	a, errA := decodeJSON(before)
	b, errB := decodeJSON(after)
	if errA != nil || errB != nil {
		return []FieldChange{{Path: "", Before: string(before), After: string(after)}}
	}
	var out []FieldChange
	walkDiff("", a, b, &out)
	return out
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func walkDiff(path string, a, b any, out *[]FieldChange) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			p := AppendFieldPath(path, k)
			av, ina := am[k]
			bv, inb := bm[k]
			switch {
			case !ina:
				*out = append(*out, FieldChange{Path: p, After: render(bv), Added: true, AfterValue: bv})
			case !inb:
				*out = append(*out, FieldChange{Path: p, Before: render(av)})
			default:
				walkDiff(p, av, bv, out)
			}
		}
		return
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			walkDiff(AppendFieldIndex(path, i), as[i], bs[i], out)
		}
		return
	}
	if !equalJSON(a, b) {
		*out = append(*out, FieldChange{Path: path, Before: render(a), After: render(b)})
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Text renders a canonical value for a human: a JSON string as its text,
// anything else as compact JSON ("" when absent).
func (c Canonical) Text() string {
	if len(c.Bytes) == 0 {
		return ""
	}
	v, err := decodeJSON(c.Bytes)
	if err != nil {
		return string(c.Bytes)
	}
	return render(v)
}

// render shows a value for a human: a string as its text, anything else
// as compact JSON.
func render(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(buf.String(), "\n")
}
