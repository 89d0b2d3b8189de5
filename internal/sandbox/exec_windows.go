package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// basicIsolation is the report's line for Basic on Windows: no rlimits
// there, and no Landlock.
const basicIsolation = "basic: env scrubbed, fresh HOME, USERPROFILE, APPDATA, LOCALAPPDATA and TMP, canaries, kill-on-close job object (no rlimits on Windows; writes not restricted)"

// envAllowPlatform are the variables Windows programs cannot start
// without (node needs SystemRoot for its crypto, npx.cmd needs ComSpec and
// PATHEXT), none of them a credential.
var envAllowPlatform = []string{
	"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT", "OS",
	"PROCESSOR_ARCHITECTURE", "NUMBER_OF_PROCESSORS",
	"ProgramFiles", "ProgramFiles(x86)", "ProgramW6432", "ProgramData",
	"CommonProgramFiles", "CommonProgramFiles(x86)", "CommonProgramW6432",
}

// platformHome points Windows' own home variables into the run directory:
// Windows programs find the user's profile through USERPROFILE (not HOME),
// and roaming and local application data through APPDATA and LOCALAPPDATA.
func (r *Run) platformHome(e map[string]string) {
	e["USERPROFILE"] = r.home
	e["APPDATA"] = filepath.Join(r.home, "AppData", "Roaming")
	e["LOCALAPPDATA"] = filepath.Join(r.home, "AppData", "Local")
	vol := filepath.VolumeName(r.home)
	e["HOMEDRIVE"] = vol
	e["HOMEPATH"] = strings.TrimPrefix(r.home, vol)
	for _, d := range []string{e["APPDATA"], e["LOCALAPPDATA"]} {
		_ = os.MkdirAll(d, 0o700)
	}
}

// hasDir reports whether command names a path rather than a PATH lookup:
// either separator, or a drive letter (C:server.exe).
func hasDir(command string) bool {
	return strings.ContainsAny(command, `/\`) || filepath.VolumeName(command) != ""
}

// findExecutable resolves p the way CreateProcess and cmd.exe do: as
// given when its extension is one of PATHEXT, otherwise with each PATHEXT
// extension appended in order (npx -> npx.cmd).
func findExecutable(p string) (string, error) {
	exts := pathExt()
	if ext := strings.ToLower(filepath.Ext(p)); ext != "" {
		for _, e := range exts {
			if ext == e && isFile(p) {
				return p, nil
			}
		}
	}
	for _, e := range exts {
		if isFile(p + e) {
			return p + e, nil
		}
	}
	return "", fmt.Errorf("%s: no file with an executable extension (%s)", p, strings.Join(exts, " "))
}

// pathExt is the lower-cased list of executable extensions.
func pathExt() []string {
	v := os.Getenv("PATHEXT")
	if v == "" {
		v = ".COM;.EXE;.BAT;.CMD"
	}
	var out []string
	for _, e := range strings.Split(strings.ToLower(v), ";") {
		if strings.HasPrefix(e, ".") && len(e) > 1 {
			out = append(out, e)
		}
	}
	return out
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
