package probe

// announceVersion tells a remote connection the version the handshake
// settled, before the next request (notifications/initialized is the first
// to carry the header). A stdio connection has no headers and ignores it.
func (l *launchRun) announceVersion(v string) {
	if c, ok := l.s.conn.(interface{ SetProtocolVersion(string) }); ok {
		c.SetProtocolVersion(v)
	}
}
