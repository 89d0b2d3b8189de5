package config

import "sort"

// This file is who the probe claims to be: the clientInfo and the client
// capabilities it sends in initialize, per client.

// clientInfos are the clientInfo name and version each mainstream client
// sends in initialize. The probe identifies as the client the config belongs
// to, never as a checker: a server may show a checker one manifest and the
// agent another. Versions are those of releases current in late 2025; what
// matters is that they are plausible, not that they are the newest.
var clientInfos = map[string][2]string{
	ClientClaudeCode:    {"claude-code", "2.0.14"},
	ClientClaudeDesktop: {"claude-ai", "0.1.0"},
	ClientCursor:        {"cursor-vscode", "1.0.0"},
	ClientVSCode:        {"Visual Studio Code", "1.105.1"},
	ClientWindsurf:      {"windsurf-client", "0.0.1"},
	ClientGeminiCLI:     {"gemini-cli-mcp-client", "0.0.1"},
	ClientCodex:         {"codex-mcp-client", "0.46.0"},
	ClientZed:           {"Zed", "0.208.4"},
	ClientRooCode:       {"Roo Code", "3.28.15"},
	ClientKiro:          {"Kiro", "0.5.0"},
	ClientAmazonQ:       {"Q DEV CLI", "1.19.0"},
	ClientJunie:         {"Junie", "252.1"},
	ClientContinue:      {"continue-client", "1.2.0"},
	ClientOpenCode:      {"opencode", "0.15.0"},
}

// ClientInfo returns the clientInfo name and version that client (a
// Server.Client value) sends in initialize. Unknown clients get Claude
// Code's, the most common client of project .mcp.json-style files.
func ClientInfo(client string) (name, version string) {
	ci, ok := clientInfos[client]
	if !ok {
		ci = clientInfos[ClientClaudeCode]
	}
	return ci[0], ci[1]
}

// KnownClientInfos is the clientInfo of every client this package knows,
// ordered by client name: every identity a repository's configs can name
// (an unknown client is presented as Claude Code), which the deep probe
// profile presents in turn.
func KnownClientInfos() [][2]string {
	names := make([]string, 0, len(clientInfos))
	for c := range clientInfos {
		names = append(names, c)
	}
	sort.Strings(names)
	out := make([][2]string, 0, len(names))
	for _, c := range names {
		out = append(out, clientInfos[c])
	}
	return out
}

// ClientCapabilities are the capabilities client (a Server.Client value)
// declares in initialize: what a server lists can depend on them
// (server-everything lists more tools to a client that declares sampling
// and elicitation). An unknown client declares Claude Code's, as it sends
// Claude Code's clientInfo: a clientInfo with another client's
// capabilities is a pair no real client sends, and a server that sees it
// knows it is being probed. Each call returns a new map, so a caller
// cannot change what the next probe declares.
func ClientCapabilities(client string) map[string]any {
	roots := map[string]any{"listChanged": true}
	if _, known := clientInfos[client]; !known {
		client = ClientClaudeCode
	}
	switch client {
	case ClientVSCode:
		return map[string]any{"roots": roots, "sampling": map[string]any{}, "elicitation": map[string]any{}}
	case ClientClaudeCode, ClientCursor:
		return map[string]any{"roots": roots, "elicitation": map[string]any{}}
	}
	return map[string]any{"roots": roots}
}
