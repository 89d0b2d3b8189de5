package check

import (
	"context"

	"github.com/mcp-lockcheck/mcp-lockcheck/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/probe"
)

// probeRemote probes a server reached over streamable HTTP or SSE.
func probeRemote(_ context.Context, s config.Server, _ *Options) *serverRun {
	return &serverRun{cfg: s, res: &probe.Result{}, held: "remote (" + s.Type + ") servers are not probed by this version; the server is held"}
}
