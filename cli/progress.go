package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/inspect"
)

// progress prints one line per server phase on stderr.
func progress(w io.Writer) func(server, phase string) {
	var mu sync.Mutex
	return func(server, phase string) {
		if strings.HasSuffix(phase, "/start") {
			mu.Lock()
			fmt.Fprintf(w, "mcp-lockcheck: %s: %s\n", inspect.Escape(server), strings.TrimSuffix(phase, "/start"))
			mu.Unlock()
		}
	}
}
