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
		{ClientUnknown, `{"roots":{"listChanged":true}}`},
		{"", `{"roots":{"listChanged":true}}`},
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
