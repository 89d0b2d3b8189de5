// Package config reads the MCP server entries of client configuration files:
// Claude Code (.mcp.json), Claude Desktop, Cursor, Windsurf and Gemini CLI
// (an "mcpServers" object), VS Code (.vscode/mcp.json, a "servers" object),
// Zed (settings.json, "context_servers") and Codex (config.toml,
// [mcp_servers.NAME] tables).
//
// Entries are returned as written: placeholders such as ${GITHUB_TOKEN} are
// kept, because the lock records the launch the repository approved, not the
// secrets of whoever runs the check. [Server.Resolve] expands them at launch
// time. Env values are never put into errors or into the lock: they may be
// literal secrets.
//
// Every problem with a file is reported as an [*Error] carrying the file and a
// 1-based line and column (columns count bytes, as Go's own tools do), so a
// user can jump straight to the offending value.
package config
