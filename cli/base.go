package cli

import (
	"context"

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// baseReview compares the pull request's lock with the base branch's and
// adds what this pull request approves to the report.
func baseReview(_ context.Context, _ Env, _ *common, _ *check.Options, _ *report.Report, _, _ string) error {
	return usageErr("--base and --base-lock are not supported yet")
}
