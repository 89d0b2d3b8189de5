package config

import (
	"encoding/json"
	"testing"
)

// TestClientCapabilities: the capabilities each client declares, as the
// probe sends them on the wire (what a server sees decides what it
// lists), and a caller that changes the map it got does not change what
// the next probe declares.
func TestClientCapabilities(t *testing.T) {
	for _, tc := range []struct{ client, want string }{
		{ClientVSCode, `{"elicitation":{},"roots":{"listChanged":true},"sampling":{}}`},
		{ClientClaudeCode, `{"elicitation":{},"roots":{"listChanged":true}}`},
		{ClientCursor, `{"elicitation":{},"roots":{"listChanged":true}}`},
		{ClientClaudeDesktop, `{"roots":{"listChanged":true}}`},
		{ClientCodex, `{"roots":{"listChanged":true}}`},
		{ClientUnknown, `{"elicitation":{},"roots":{"listChanged":true}}`},
		{"", `{"elicitation":{},"roots":{"listChanged":true}}`},
	} {
		t.Run(tc.client, func(t *testing.T) {
			caps := ClientCapabilities(tc.client)
			got, err := json.Marshal(caps)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("ClientCapabilities(%q) = %s, want %s", tc.client, got, tc.want)
			}
			caps["sampling"] = map[string]any{"tampered": true}
			caps["roots"].(map[string]any)["listChanged"] = false
			if again, _ := json.Marshal(ClientCapabilities(tc.client)); string(again) != tc.want {
				t.Errorf("after a caller changed its map: %s, want %s", again, tc.want)
			}
		})
	}
}

// TestUnknownClientIsOneRealClient: a config whose client is not known is
// presented as Claude Code, clientInfo and capabilities together. Claude
// Code's clientInfo with fewer capabilities than Claude Code declares is a
// pair no real client sends: a server could tell the probe from the agent.
func TestUnknownClientIsOneRealClient(t *testing.T) {
	wantName, wantVersion := ClientInfo(ClientClaudeCode)
	wantCaps, _ := json.Marshal(ClientCapabilities(ClientClaudeCode))
	for _, client := range []string{ClientUnknown, "", "no-such-client"} {
		name, version := ClientInfo(client)
		caps, _ := json.Marshal(ClientCapabilities(client))
		if name != wantName || version != wantVersion || string(caps) != string(wantCaps) {
			t.Errorf("client %q is presented as %s/%s with %s; want %s/%s with %s", client, name, version, caps, wantName, wantVersion, wantCaps)
		}
	}
}
