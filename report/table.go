package report

import (
	"strconv"
)

// serverTable is a run's servers as the table of a text report shows them:
// name, verdict, the unacknowledged findings by severity, the acknowledged
// ones, and, when a server was held, why.
func serverTable(servers []Server) (header []string, rows [][]string) {
	header = []string{"server", "status", "errors", "warnings", "notes", "acked"}
	held := false
	for _, s := range servers {
		held = held || shownStatus(s) == StatusHeld
	}
	if held {
		header = append(header, "held because")
	}
	for _, s := range servers {
		st := shownStatus(s)
		c := countFindings(s.Findings)
		row := []string{escape(s.Name), statusMark(st) + " " + string(st),
			strconv.Itoa(c.errors), strconv.Itoa(c.warnings), strconv.Itoa(c.notes), strconv.Itoa(c.acked)}
		if held {
			reason := ""
			if st == StatusHeld {
				reason = s.Reason
				if reason == "" {
					reason = "could not be probed"
				}
			}
			row = append(row, escape(reason))
		}
		rows = append(rows, row)
	}
	return header, rows
}
