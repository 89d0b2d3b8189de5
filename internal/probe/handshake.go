package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
)

// answer responds to requests from the server so it never stalls on us.
func (l *launchRun) answer(method string, _ json.RawMessage) (any, *jsonrpc.Error) {
	switch method {
	case "ping":
		return struct{}{}, nil
	case "roots/list":
		roots := []map[string]string{}
		for _, r := range l.opts.Roots {
			roots = append(roots, map[string]string{"uri": r, "name": "workspace"})
		}
		return map[string]any{"roots": roots}, nil
	case "sampling/createMessage", "elicitation/create":
		return nil, &jsonrpc.Error{Code: -1, Message: "the user declined"}
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
}

func (l *launchRun) request(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	rctx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
	defer cancel()
	return l.s.call(rctx, method, params)
}

// clientCaps are the capabilities this launch declares: its identity's,
// or for an extra identity given without any, config's default.
func (l *launchRun) clientCaps() map[string]any {
	if l.id.Capabilities != nil {
		return l.id.Capabilities
	}
	return config.ClientCapabilities(config.ClientUnknown)
}

// handshake speaks the newest protocol the server accepts: the stateless
// revision's server/discover when the server answers it, else initialize.
func (l *launchRun) handshake(ctx context.Context) error {
	switch l.opts.Protocol {
	case "legacy":
		return l.initialize(ctx)
	case "stateless":
		ok, err := l.discover(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return errors.New("server/discover: the server does not speak the " + Stateless + " revision")
		}
		return nil
	}
	// auto: open the way the client we present opens, with initialize; a
	// checker that sent server/discover first would be recognisable as
	// one. Only a server that refuses initialize is asked server/discover.
	err := l.initialize(ctx)
	var rpc *RPCError
	if err == nil || !errors.As(err, &rpc) {
		return err
	}
	ok, derr := l.discover(ctx)
	if derr != nil {
		return derr
	}
	if !ok {
		return err
	}
	return nil
}

// discover tries server/discover. A server that does not know it answers
// with an error (or, for some, not at all within a short wait): fall back.
func (l *launchRun) discover(ctx context.Context) (bool, error) {
	wait := min(3*time.Second, l.opts.RequestTimeout)
	if l.opts.Protocol == "stateless" {
		wait = l.opts.RequestTimeout
	}
	dctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	raw, err := l.s.call(dctx, "server/discover", map[string]any{"_meta": l.statelessMeta()})
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) || errors.Is(err, context.DeadlineExceeded) {
			return false, nil
		}
		return false, err
	}
	var d struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		ServerInfo        json.RawMessage `json:"serverInfo"`
		Instructions      json.RawMessage `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return false, nil
	}
	for _, v := range d.SupportedVersions {
		if v == Stateless {
			l.base = Observation{ProtocolVersion: Stateless, ServerInfo: d.ServerInfo, Capabilities: d.Capabilities, Instructions: nullToNil(d.Instructions)}
			l.announceVersion(Stateless)
			l.s.meta = l.statelessMeta()
			return true, nil
		}
	}
	return false, nil
}

func (l *launchRun) statelessMeta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    Stateless,
		"io.modelcontextprotocol/clientCapabilities": l.clientCaps(),
		"io.modelcontextprotocol/clientInfo":         map[string]string{"name": l.id.Name, "version": l.id.Version},
	}
}

func (l *launchRun) initialize(ctx context.Context) error {
	timeout := l.opts.RequestTimeout
	if l.n == 1 {
		timeout = max(timeout, l.opts.StartTimeout)
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	raw, err := l.s.call(rctx, "initialize", map[string]any{
		"protocolVersion": LatestLegacy,
		"capabilities":    l.clientCaps(),
		"clientInfo":      map[string]string{"name": l.id.Name, "version": l.id.Version},
	})
	if err != nil {
		return err
	}
	var r struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    json.RawMessage `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("initialize: result is not an object: %v", err)
	}
	if r.ProtocolVersion == "" {
		return errors.New("initialize: result has no protocolVersion")
	}
	known := false
	for _, v := range legacyVersions {
		known = known || v == r.ProtocolVersion
	}
	if !known {
		// The spec says to disconnect from a version we do not support;
		// we still record what the server said, so the version is visible.
		l.note(fmt.Sprintf("server answered protocol version %q, which this mcp-lockcheck does not know", r.ProtocolVersion))
	}
	l.base = Observation{ProtocolVersion: r.ProtocolVersion, ServerInfo: r.ServerInfo, Capabilities: r.Capabilities, Instructions: nullToNil(r.Instructions)}
	l.announceVersion(r.ProtocolVersion)
	return l.s.notify(ctx, "notifications/initialized", nil)
}

func nullToNil(r json.RawMessage) json.RawMessage {
	if string(r) == "null" {
		return nil
	}
	return r
}
