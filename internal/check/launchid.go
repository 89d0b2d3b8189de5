package check

import "github.com/mcp-lockcheck/mcp-lockcheck/internal/launchid"

// The launch identity readers live in internal/launchid, shared with the
// guard (which must not link the check engine); these are their names
// here.

// Package is a package or image a launch runs (launchid.Package).
type Package = launchid.Package

// PackageOf finds the package of a launcher's launch (launchid.PackageOf).
func PackageOf(command string, args []string) (Package, bool) {
	return launchid.PackageOf(command, args)
}

// LaunchArtifact is launchid.LaunchArtifact.
var LaunchArtifact = launchid.LaunchArtifact

const prefetchTimeout = launchid.PrefetchTimeout

var (
	readNpxInstall    = launchid.ReadNpxInstall
	launchFile        = launchid.LaunchFile
	fileIdentity      = launchid.FileIdentity
	lookPathIn        = launchid.LookPathIn
	filePath          = launchid.FilePath
	imageDigest       = launchid.ImageDigest
	parseImageInspect = launchid.ParseImageInspect
	githubRepo        = launchid.GithubRepo
	truncate          = launchid.Truncate
	npmLaunch         = launchid.NpmLaunch
	npmEnv            = launchid.NpmEnv
	oneLine           = launchid.OneLine
)
