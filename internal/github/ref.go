package github

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// refForms is what ParsePRRef accepts, for its errors.
const refForms = "want owner/repo#123, owner/repo/pull/123 or https://github.com/owner/repo/pull/123"

// ParsePRRef reads a pull request reference: "owner/repo#123", "owner/repo/pull/123",
// "https://github.com/owner/repo/pull/123" (any host, for GitHub Enterprise Server, and with
// or without the scheme; a trailing "/files", query or fragment is ignored).
func ParsePRRef(s string) (owner, repo string, n int, err error) {
	in := strings.TrimSpace(s)
	fail := func(why string) (string, string, int, error) {
		return "", "", 0, fmt.Errorf("parse pull request reference %q: %s; %s", s, why, refForms)
	}
	if in == "" {
		return fail("empty")
	}

	var segs []string
	var num string
	repoPart, numPart, hash := strings.Cut(in, "#")
	switch {
	case strings.Contains(in, "://"):
		u, perr := url.Parse(in)
		if perr != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return fail("not an http(s) URL")
		}
		segs = strings.Split(strings.Trim(u.Path, "/"), "/")
		if len(segs) < 4 || segs[2] != "pull" {
			return fail("the URL is not a pull request's")
		}
		owner, repo, num = segs[0], segs[1], segs[3]
	case hash && strings.Count(repoPart, "/") == 1:
		owner, repo, _ = strings.Cut(repoPart, "/")
		num = numPart
	default:
		// owner/repo/pull/123, or host/owner/repo/pull/123 (a URL without its scheme).
		in, _, _ = strings.Cut(in, "#")
		in, _, _ = strings.Cut(in, "?")
		segs = strings.Split(strings.Trim(in, "/"), "/")
		switch {
		case len(segs) >= 4 && segs[2] == "pull":
			owner, repo, num = segs[0], segs[1], segs[3]
		case len(segs) >= 5 && segs[3] == "pull" && strings.Contains(segs[0], "."):
			owner, repo, num = segs[1], segs[2], segs[4]
		default:
			return fail("unrecognised form")
		}
	}
	if err := checkRepo(owner, repo); err != nil {
		return fail(strings.TrimPrefix(err.Error(), "github: "))
	}
	n, convErr := strconv.Atoi(num)
	if convErr != nil || n <= 0 || num[0] == '+' || num[0] == '0' {
		return fail(fmt.Sprintf("%q is not a pull request number", num))
	}
	return owner, repo, n, nil
}
