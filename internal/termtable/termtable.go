// Package termtable draws the tables a person reads in a terminal: the
// servers of a run (the text report) and of a config (mcp-lockcheck
// servers), so they look alike.
package termtable

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Write draws rows under header as a borderless table no wider than
// width: columns two spaces apart, cells kept to one line, the widest ones
// cut with "…" when the table would not fit. Every table a person reads
// in a terminal (the servers of a run, of a config) is drawn here, so they
// look alike. The cells are text already escaped for a terminal.
func Write(w io.Writer, header []string, rows [][]string, width int) error {
	// Two spaces after a cell and none before: the width goes to the text.
	pad := tw.CellPadding{Global: tw.Padding{Right: "  ", Overwrite: true}}
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithConfig(tablewriter.Config{
			Header: tw.CellConfig{Formatting: tw.CellFormatting{AutoFormat: tw.Off}, Alignment: tw.CellAlignment{Global: tw.AlignLeft}, Padding: pad},
			Row: tw.CellConfig{Formatting: tw.CellFormatting{AutoWrap: tw.WrapTruncate}, Alignment: tw.CellAlignment{Global: tw.AlignLeft}, Padding: pad,
				ColMaxWidths: tw.CellWidth{PerColumn: fit(header, rows, width)}},
		}),
	)
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	// The renderer pads every line to the table's width: a report's lines
	// end at their last word.
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		if _, err := io.WriteString(w, strings.TrimRight(line, " ")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// fit gives each column the width of its widest cell, then takes from the
// widest column until the table, two spaces after each cell, fits width:
// the long cells (a reason, a command line) are cut, the short ones
// (counts, a status) never are. tablewriter's own MaxWidth cuts every
// column to its header's width instead.
func fit(header []string, rows [][]string, width int) tw.Mapper[int, int] {
	w := make([]int, len(header))
	for _, row := range append([][]string{header}, rows...) {
		for i, c := range row {
			if i < len(w) {
				w[i] = max(w[i], utf8.RuneCountInString(c))
			}
		}
	}
	total := func() int {
		n := 0
		for _, x := range w {
			n += x + 2
		}
		return n
	}
	for total() > width {
		widest := 0
		for i := range w {
			if w[i] > w[widest] {
				widest = i
			}
		}
		if w[widest] <= 8 {
			break // nothing left worth cutting
		}
		w[widest]--
	}
	m := tw.NewMapper[int, int]()
	for i, x := range w {
		m.Set(i, x+2) // tablewriter counts the padding in
	}
	return m
}
