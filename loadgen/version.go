package loadgen

import (
	"runtime/debug"
)

// OfficialVersion is the official C++ LoadGen release whose rules this
// LoadGen follows (loadable sets, query generation, settings keys, log
// keys and formats). The detail log reports it as loadgen_rules_version,
// next to loadgen_version, which names this LoadGen's own build.
const OfficialVersion = "6.0.17"

// moduleVersion reports this LoadGen's build from the Go build information:
// the module version and the VCS stamp, when the binary has them.
func moduleVersion() VersionInfo {
	v := VersionInfo{Version: "mlperf-host loadgen (devel)", GitRevision: "NA",
		BuildDateLocal: "NA", BuildDateUTC: "NA", GitCommitDate: "NA", GitLog: "NA", GitStatus: "NA"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = "mlperf-host loadgen " + bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.GitRevision = s.Value
		case "vcs.time":
			v.GitCommitDate = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v.GitStatus = "modified"
			} else {
				v.GitStatus = ""
			}
		}
	}
	return v
}

// log writes the official LogLoadgenVersion keys, with
// loadgen_rules_version after loadgen_version.
func (v VersionInfo) log(l *logs) {
	const file = "loadgen/version.go"
	d := func(key string, val value) { l.detail(key, val, levelInfo, file) }
	d("loadgen_version", vString(v.Version+" @ "+v.GitRevision))
	d("loadgen_rules_version", vString(OfficialVersion))
	d("loadgen_build_date_local", vString(v.BuildDateLocal))
	d("loadgen_build_date_utc", vString(v.BuildDateUTC))
	d("loadgen_git_commit_date", vString(v.GitCommitDate))
	d("loadgen_git_log_message", vString(v.GitLog))
	d("loadgen_git_status_message", vString(v.GitStatus))
	if v.GitStatus != "" && v.GitStatus != "NA" {
		l.detail("error_uncommitted_loadgen_changes", vString("Loadgen built with uncommitted changes!"), levelError, file)
	}
	sha := v.FileSHA1
	if sha == nil {
		sha = map[string]string{}
	}
	d("loadgen_file_sha1", vDict(sha))
}
