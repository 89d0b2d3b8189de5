package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Read decodes a report a run wrote with --format json: one JSON value of
// the lockfile version this build reads.
func Read(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var rep Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("not a JSON report: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the report")
	}
	if rep.LockfileVersion != lock.Version {
		return nil, fmt.Errorf("lockfileVersion %d, want %d", rep.LockfileVersion, lock.Version)
	}
	return &rep, nil
}
