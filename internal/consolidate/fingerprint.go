package consolidate

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/council-dev/council/internal/finding"
)

// Fingerprint identifies a finding across runs: the published comment carries it, so a re-run
// recognises what it already posted. It leaves out line numbers, which shift when the PR is
// pushed again, and the prose, which a model rewords on every run; it keeps the path, the
// side, the quoted code (whitespace-normalised; the lowercased title when there is no quote),
// the category and the owner.
func Fingerprint(f finding.Finding) string {
	key := normalizeSpace(f.Quote)
	if key == "" {
		key = strings.ToLower(normalizeSpace(f.Title))
	}
	h := sha256.New()
	for i, part := range []string{f.Path, string(sideOf(f)), key, strings.ToLower(strings.TrimSpace(f.Category)), f.Owner()} {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(part))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// setIDs gives every finding its fingerprint; when several share one, those after the first
// (in output order) get "-2", "-3", ...
func setIDs(fs []finding.Finding) {
	seen := make(map[string]int, len(fs))
	for i := range fs {
		id := Fingerprint(fs[i])
		seen[id]++
		if n := seen[id]; n > 1 {
			id += "-" + strconv.Itoa(n)
		}
		fs[i].ID = id
	}
}

func normalizeSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
