package inspect

import (
	"fmt"
	"strings"
)

// controlNames gives the C0 controls a reviewer may recognise by name.
var controlNames = map[byte]string{
	0x00: "NUL", 0x07: "BEL (bell)", 0x08: "BS (backspace: overwrites the previous character)",
	0x0B: "VT (vertical tab)", 0x0C: "FF (form feed)", 0x0D: "CR (carriage return: overwrites the line)",
	0x7F: "DEL",
}

// csiNames says what a CSI sequence does, by final byte: the ones that move
// the cursor or erase are how a description hides what came before it.
var csiNames = map[byte]string{
	'A': "cursor up", 'B': "cursor down", 'C': "cursor forward", 'D': "cursor back",
	'E': "cursor next line", 'F': "cursor previous line", 'G': "cursor to column",
	'H': "cursor position", 'f': "cursor position", 'J': "erase display", 'K': "erase line",
	'S': "scroll up", 'T': "scroll down", 'm': "colour/style (SGR)", 's': "save cursor",
	'u': "restore cursor", 'h': "set mode", 'l': "reset mode", 'n': "device status report",
	'X': "erase characters", 'P': "delete characters", 'M': "delete lines", 'L': "insert lines",
}

// termHit is one control sequence found in a string.
type termHit struct {
	desc       string
	start, end int
}

// terminalSequences finds ESC/CSI/OSC sequences and other C0 and C1
// controls in s. Tab and newline are text. A carriage return is text only
// before a newline (CRLF line ends are common and harmless); a lone CR moves
// the cursor to the start of the line so the text after it overprints the
// text before it on a terminal, which is exactly the display spoofing this
// rule is for. At most limit hits are kept, but all are counted.
func terminalSequences(s string, limit int) (hits []termHit, count int) {
	add := func(desc string, a, z int) {
		count++
		if len(hits) < limit {
			hits = append(hits, termHit{desc, a, z})
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1B:
			d, z := escSequence(s, i+1)
			add(d, i, z)
			i = z
		case c == 0xC2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9F:
			// A C1 control U+0080..U+009F, encoded in UTF-8.
			c1 := s[i+1]
			switch c1 {
			case 0x9B:
				d, z := csi(s, i+2)
				add("C1 "+d, i, z)
				i = z
			case 0x9D:
				d, z := osc(s, i+2)
				add("C1 "+d, i, z)
				i = z
			default:
				add(fmt.Sprintf("C1 control U+%04X", c1), i, i+2)
				i += 2
			}
		case c == '\t' || c == '\n':
			i++
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i += 2
				continue
			}
			add(controlNames[c], i, i+1)
			i++
		case c < 0x20 || c == 0x7F:
			name := controlNames[c]
			if name == "" {
				name = fmt.Sprintf("control U+%04X", c)
			}
			add(name, i, i+1)
			i++
		default:
			i++
		}
	}
	return hits, count
}

// escSequence reads the sequence after an ESC at s[i-1].
func escSequence(s string, i int) (string, int) {
	if i >= len(s) {
		return "ESC", i
	}
	switch s[i] {
	case '[':
		return csi(s, i+1)
	case ']':
		return osc(s, i+1)
	case 'P', 'X', '^', '_':
		names := map[byte]string{'P': "DCS", 'X': "SOS", '^': "PM", '_': "APC"}
		return names[s[i]] + " string", stringEnd(s, i+1)
	}
	return fmt.Sprintf("ESC %q", s[i]), i + 1
}

// csi reads parameter, intermediate and final bytes (ECMA-48 5.4).
func csi(s string, i int) (string, int) {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3F {
		i++
	}
	if i >= len(s) || s[i] < 0x40 || s[i] > 0x7E {
		return "CSI (unterminated)", i
	}
	name := csiNames[s[i]]
	if name == "" {
		name = fmt.Sprintf("final %q", s[i])
	}
	return "CSI " + name, i + 1
}

// osc reads an operating system command up to BEL or ST.
func osc(s string, i int) (string, int) {
	z := stringEnd(s, i)
	body := s[i:min(z, len(s))]
	switch {
	case strings.HasPrefix(body, "8;"):
		return "OSC 8 hyperlink (link text can differ from its target)", z
	case strings.HasPrefix(body, "52;"):
		return "OSC 52 clipboard write", z
	case strings.HasPrefix(body, "0;"), strings.HasPrefix(body, "2;"):
		return "OSC window title", z
	}
	return "OSC", z
}

// stringEnd finds the end of a control string: BEL, ESC \ or C1 ST.
func stringEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1B && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case s[i] == 0xC2 && i+1 < len(s) && s[i+1] == 0x9C:
			return i + 2
		}
	}
	return len(s)
}

// styleOnly counts the SGR sequences of s (ESC [ params m) that set colour
// or style and cannot hide text: none with parameter 8 (conceal). A string
// whose every control sequence is one of these hides nothing from a
// reader; the caller compares the count with terminalSequences'.
func styleOnly(s string) int {
	n := 0
	for i := strings.IndexByte(s, 0x1B); i >= 0; {
		j := i + 1
		if j < len(s) && s[j] == '[' {
			k := j + 1
			for k < len(s) && (s[k] >= '0' && s[k] <= '9' || s[k] == ';' || s[k] == ':') {
				k++
			}
			if k < len(s) && s[k] == 'm' && !conceals(s[j+1:k]) {
				n++
			}
		}
		next := strings.IndexByte(s[j:], 0x1B)
		if next < 0 {
			break
		}
		i = j + next
	}
	return n
}

// conceals reports whether SGR parameters hold 8 (conceal) as a
// parameter of its own, not as part of a colour (38;5;8 and 48;5;8 are
// grey): the parameters after 38 or 48 are the colour's.
func conceals(params string) bool {
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	for i := 0; i < len(ps); i++ {
		switch ps[i] {
		case "38", "48", "58":
			if i+1 < len(ps) && ps[i+1] == "5" {
				i += 2
			} else if i+1 < len(ps) && ps[i+1] == "2" {
				i += 4
			}
		case "8", "08":
			return true
		}
	}
	return false
}
