package plan

import (
	"path"
	"regexp"
	"strings"

	"github.com/council-dev/council/internal/diff"
	"github.com/council-dev/council/internal/glob"
)

// Skip reasons that do not name a pattern. They are shown to users in the coverage manifest.
const (
	ReasonBinary       = "binary file"
	ReasonLock         = "lock file"
	ReasonVendored     = "vendored"
	ReasonNotIncluded  = "not matched by paths.include"
	ReasonModeOnly     = "no content change (mode only)"
	ReasonNoChange     = "no textual change"
	ReasonGoGenerated  = `generated ("Code generated ... DO NOT EDIT." header)`
	ReasonAtGenerated  = `generated ("@generated" marker)`
	reasonExcludedBy   = "excluded by paths.exclude pattern "
	reasonSuffixPrefix = "generated (suffix "
)

// lockFiles are dependency lock files by base name: machine-written, reviewed by nobody line
// by line. Any other base name ending in ".lock" counts too.
var lockFiles = map[string]bool{
	"go.sum":            true,
	"package-lock.json": true,
	"yarn.lock":         true,
	"pnpm-lock.yaml":    true,
	"Cargo.lock":        true,
	"poetry.lock":       true,
	"Gemfile.lock":      true,
	"composer.lock":     true,
	"Pipfile.lock":      true,
	"uv.lock":           true,
	"bun.lockb":         true,
	"flake.lock":        true,
}

// vendorDirs are directory names under which code is someone else's.
var vendorDirs = map[string]bool{"vendor": true, "third_party": true, "node_modules": true}

// generatedSuffixes are endings of paths that tools write. Order matters only for the reason
// shown: the first match is named.
var generatedSuffixes = []string{
	".pb.go", ".pb.gw.go", "_generated.go", ".gen.go",
	".min.js", ".min.css", ".map", "_pb2.py", ".g.dart",
}

// zzGenerated is Kubernetes' deepcopy/defaults/conversion naming (zz_generated.deepcopy.go).
const zzGenerated = "zz_generated.*.go"

// goGenerated is the Go convention (go.dev/s/generatedcode) for marking generated files.
var goGenerated = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// atGeneratedLines is how far into a file the "@generated" marker (Facebook's convention, used
// by many other generators) is looked for.
const atGeneratedLines = 5

// skipByDiff returns why f is not reviewed judging by its path and its diff alone, or "".
func skipByDiff(f diff.File, include, exclude []string) string {
	p := f.Path()
	base := path.Base(p)
	for _, pat := range exclude {
		if glob.Match(pat, p) {
			return reasonExcludedBy + pat
		}
	}
	if len(include) > 0 && !matchAny(include, p) {
		return ReasonNotIncluded
	}
	if f.Binary {
		return ReasonBinary
	}
	if lockFiles[base] || strings.HasSuffix(base, ".lock") {
		return ReasonLock
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if vendorDirs[dir] {
			return ReasonVendored
		}
	}
	for _, s := range generatedSuffixes {
		if strings.HasSuffix(p, s) {
			return reasonSuffixPrefix + s + ")"
		}
	}
	if ok, _ := path.Match(zzGenerated, base); ok {
		return reasonSuffixPrefix + zzGenerated + ")"
	}
	if len(f.Hunks) == 0 {
		if f.OldMode != 0 && f.NewMode != 0 && f.OldMode != f.NewMode {
			return ReasonModeOnly
		}
		return ReasonNoChange
	}
	return ""
}

func matchAny(patterns []string, p string) bool {
	for _, pat := range patterns {
		if glob.Match(pat, p) {
			return true
		}
	}
	return false
}

// skipByHeader returns why f is not reviewed judging by the first lines of its content, or "".
// head is the file at the head revision; without it, the first lines are taken from the diff
// when a hunk starts at line 1 (always so for an added file), and from the old side for a
// deleted file, which has no head.
func skipByHeader(f diff.File, head []string) string {
	top := head
	if top == nil {
		top = firstLines(f)
	}
	// Go's rule puts the marker anywhere before the first line that is neither blank nor a
	// line comment; looking further would catch generators' own sources that print it.
	for _, l := range top {
		l = strings.TrimSuffix(l, "\r")
		if goGenerated.MatchString(l) {
			return ReasonGoGenerated
		}
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "//") {
			break
		}
	}
	for _, l := range top[:min(atGeneratedLines, len(top))] {
		if strings.Contains(l, "@generated") {
			return ReasonAtGenerated
		}
	}
	return ""
}

// firstLines returns the lines the diff shows from the top of the file, on the new side, or
// on the old side for a deleted file; nil when no hunk starts at line 1.
func firstLines(f diff.File) []string {
	if len(f.Hunks) == 0 {
		return nil
	}
	h := f.Hunks[0]
	var lines []string
	if f.Status == diff.Deleted {
		if h.OldStart != 1 {
			return nil
		}
		for _, l := range h.Lines {
			if l.Op != diff.Add {
				lines = append(lines, l.Text)
			}
		}
		return lines
	}
	if h.NewStart != 1 {
		return nil
	}
	for _, l := range h.Lines {
		if l.Op != diff.Delete {
			lines = append(lines, l.Text)
		}
	}
	return lines
}

// SkipReason says why plan's rules leave a file of a diff out of a review, or "": binary,
// lock, vendored, or generated by its path or by the marker in its first lines. head reads a
// file at the diff's new side (diff.SplitLines), or returns nil; it may be nil.
func SkipReason(f diff.File, head func(path string) []string) string {
	if r := skipByDiff(f, nil, nil); r != "" {
		return r
	}
	return skipByHeader(f, diff.HeadOf(f, head))
}
