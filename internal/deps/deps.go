package deps

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/aymanbagabas/go-udiff"
	_ "github.com/goccy/go-yaml"
	_ "github.com/google/go-github/v62/github"
	_ "github.com/gowebpki/jcs"
	_ "github.com/landlock-lsm/go-landlock/landlock"
	_ "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/owenrumney/go-sarif/v2/sarif"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/sethvargo/go-githubactions"
	_ "github.com/yuin/goldmark"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/text/unicode/norm"
)
