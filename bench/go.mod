// The benchmarks are a module of their own, so that what only they need
// (golang.org/x/tools for bench/walk) stays out of the product's go.mod,
// and the product's "go test ./..." does not build them. Being inside the
// product's tree, they may still import its internal packages.
module github.com/mcp-lockcheck/mcp-lockcheck/bench

go 1.26.0

require (
	github.com/mcp-lockcheck/mcp-lockcheck v0.0.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/gowebpki/jcs v1.0.2 // indirect
	github.com/landlock-lsm/go-landlock v0.11.2 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
)

replace github.com/mcp-lockcheck/mcp-lockcheck => ../
