package config

import "bytes"

// stripJSONC turns JSON with comments (JSONC, as VS Code, Cursor and Zed
// accept) into plain JSON of exactly the same length: comments, trailing
// commas and a leading byte order mark become spaces, newlines stay. Keeping
// every offset lets errors from encoding/json point at the right line and
// column of the file the user wrote.
//
// It reports the offset of an unterminated block comment, or -1.
func stripJSONC(data []byte) (out []byte, unterminated int) {
	out = bytes.Clone(data)
	if bytes.HasPrefix(out, []byte("\xef\xbb\xbf")) {
		copy(out, "   ")
	}
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	pendingComma := -1 // a comma that is trailing if the next token closes
	var prev byte      // the last significant byte: "[,]" must stay an error
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch c {
		case '"':
			pendingComma = -1
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
				if i < len(out) && out[i] == '\n' {
					break // let the decoder report the broken string here
				}
			}
		case '/':
			if i+1 >= len(out) {
				continue
			}
			switch out[i+1] {
			case '/':
				end := bytes.IndexByte(out[i:], '\n')
				if end < 0 {
					end = len(out) - i
				}
				blank(i, i+end)
				i += end - 1
				continue
			case '*':
				end := bytes.Index(out[i+2:], []byte("*/"))
				if end < 0 {
					return out, i
				}
				blank(i, i+2+end+2)
				i += 2 + end + 1
				continue
			default:
				pendingComma = -1
			}
		case ',':
			pendingComma = -1
			if prev != 0 && prev != '[' && prev != '{' && prev != ',' && prev != ':' {
				pendingComma = i
			}
		case '}', ']':
			if pendingComma >= 0 {
				out[pendingComma] = ' '
			}
			pendingComma = -1
		case ' ', '\t', '\n', '\r':
			continue
		default:
			pendingComma = -1
		}
		prev = c
	}
	return out, -1
}

// StripJSONC is stripJSONC for other packages that edit client configs in
// place: the result has the same length, so offsets into it are offsets
// into data. It reports the offset of an unterminated block comment, or -1.
func StripJSONC(data []byte) ([]byte, int) { return stripJSONC(data) }

// lineCol converts a byte offset in data to a 1-based line and column.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - (bytes.LastIndexByte(data[:off], '\n') + 1) + 1
	return line, col
}
