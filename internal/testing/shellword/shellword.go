// Package shellword splits a command line the way a POSIX shell with
// ANSI-C quoting (bash, zsh) would, for the words the reports print:
// plain words, '...' and $'...' with \xHH, \uHHHH, \UHHHHHHHH, \t, \n,
// \\ and \'. Tests use it to run the commands a report prints, exactly as
// a user pasting them would; it does no expansion of any kind.
package shellword

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrSyntax marks a line this package cannot split.
var ErrSyntax = errors.New("shellword: cannot split")

// Split splits line into words.
func Split(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false // inside a word
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
			i++
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, ErrSyntax
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 2
			in = true
		case c == '$' && i+1 < len(line) && line[i+1] == '\'':
			n, err := ansiC(line[i+2:], &cur)
			if err != nil {
				return nil, err
			}
			i += 2 + n
			in = true
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1])
			i += 2
			in = true
		case strings.IndexByte("\"`$;&|<>(){}*?[~#", c) >= 0:
			// Anything a shell would act on: the reports never print it
			// unquoted.
			return nil, ErrSyntax
		default:
			cur.WriteByte(c)
			i++
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// ansiC decodes the body of $'...' up to its closing quote and returns
// how many bytes it read (the quote included).
func ansiC(s string, out *strings.Builder) (int, error) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'':
			return i + 1, nil
		case c != '\\':
			out.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return 0, ErrSyntax
		}
		e := s[i+1]
		i += 2
		width := 0
		switch e {
		case 'x':
			width = 2
		case 'u':
			width = 4
		case 'U':
			width = 8
		case 't':
			out.WriteByte('\t')
			continue
		case 'n':
			out.WriteByte('\n')
			continue
		case '\\', '\'', '"':
			out.WriteByte(e)
			continue
		default:
			return 0, ErrSyntax
		}
		if i+width > len(s) {
			return 0, ErrSyntax
		}
		v, err := strconv.ParseUint(s[i:i+width], 16, 32)
		if err != nil {
			return 0, ErrSyntax
		}
		i += width
		if e == 'x' {
			out.WriteByte(byte(v))
		} else {
			var b [utf8.UTFMax]byte
			n := utf8.EncodeRune(b[:], rune(v))
			out.Write(b[:n])
		}
	}
	return 0, ErrSyntax
}
