package cli

import (
	"context"
	"errors"

	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// postComment creates or updates the sticky pull request comment.
func postComment(_ context.Context, _ Env, _ *report.Report, _ report.Options) error {
	return errors.New("not supported yet")
}
