//go:build tools

package tools

import (
	_ "github.com/github/github-mcp-server/cmd/github-mcp-server"
	_ "github.com/mark3labs/mcp-filesystem-server"
)
