package cli

import (
	"flag"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// carriedFlags are the flags of pin and check that change what approve's
// probe sees (which configs and servers, which lock and policy, how the
// servers are launched and baited): the acknowledgement command a report
// prints carries them, so that approve raises the finding it is asked to
// acknowledge, on the same content. Output and progress flags are not
// carried.
var carriedFlags = map[string]bool{
	"config": true, "server": true, "policy": true, "user": true, "lock": true,
	"sandbox": true, "pass-env": true, "network": true, "cache-dir": true, "warmup-calls": true, "launches": true,
	"client-identity": true, "protocol": true, "timeout": true, "request-timeout": true,
	"call-timeout": true, "max-message-bytes": true, "clock-offset": true, "call-gap": true,
	"burst-calls": true, "profile": true,
}

// approveCommand is "mcp-lockcheck approve" with the carried flags of
// args (as given to fs, in their order), each as --name=value in one
// inert shell word.
func approveCommand(fs *flag.FlagSet, args []string) string {
	return carried("approve", fs, args)
}

// pinCommand is approveCommand for pin.
func pinCommand(fs *flag.FlagSet, args []string) string { return carried("pin", fs, args) }

func carried(command string, fs *flag.FlagSet, args []string) string {
	words := []string{"mcp-lockcheck", command}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if !hasVal {
				val = "true"
			}
		} else if !hasVal {
			if i+1 >= len(args) {
				continue
			}
			i++
			val = args[i]
		}
		if carriedFlags[name] {
			words = append(words, inert.ShellWord("--"+name+"="+val))
		}
	}
	return strings.Join(words, " ")
}
