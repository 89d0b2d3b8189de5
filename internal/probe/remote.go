package probe

import "github.com/mcp-lockcheck/mcp-lockcheck/internal/transport"

// The remote connectors are the transport's, shared with the guard.

// ProtocolVersionHeader is transport.ProtocolVersionHeader.
const ProtocolVersionHeader = transport.ProtocolVersionHeader

// RemoteOptions is transport.RemoteOptions.
type RemoteOptions = transport.RemoteOptions

// Connector opens one launch's connection and returns the function that
// closes it: Remote's launches, and the guard's own connections.
type Connector = transport.Connector

// HTTPConnector and SSEConnector are the transport's connectors
// (streamable HTTP, and the deprecated HTTP+SSE).
var (
	HTTPConnector = transport.HTTPConnector
	SSEConnector  = transport.SSEConnector
)

// announceVersion tells a remote connection the version the handshake
// settled, before the next request (notifications/initialized is the first
// to carry the header). A stdio connection has no headers and ignores it.
func (l *launchRun) announceVersion(v string) {
	if c, ok := l.s.conn.(interface{ SetProtocolVersion(string) }); ok {
		c.SetProtocolVersion(v)
	}
}
