package github

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v93/github"
)

// ErrSignature is wrapped by every refusal of VerifySignature: a delivery whose signature is
// missing, malformed, of another algorithm or wrong, or a server without a secret.
var ErrSignature = errors.New("webhook signature")

// signaturePrefix is the only algorithm accepted in X-Hub-Signature-256.
const signaturePrefix = "sha256="

// VerifySignature checks header, the X-Hub-Signature-256 of a delivery, against the
// HMAC-SHA256 of its raw body keyed with the webhook secret, as
// https://docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries describes.
//
// It is written by hand rather than with go-github's ValidatePayload because that one also
// accepts the legacy X-Hub-Signature (HMAC-SHA1), which council refuses. An empty secret is
// refused too: a server that forgot its secret must not accept unsigned deliveries. The errors
// never contain the signature or the secret.
func VerifySignature(secret, body []byte, header string) error {
	if len(secret) == 0 {
		return fmt.Errorf("%w: no webhook secret configured", ErrSignature)
	}
	if header == "" {
		return fmt.Errorf("%w: missing X-Hub-Signature-256", ErrSignature)
	}
	hexSig, ok := strings.CutPrefix(header, signaturePrefix)
	if !ok {
		// Name the legacy algorithm, which a misconfigured sender may still use; echo nothing
		// else of the header, which may be a bare digest.
		if strings.HasPrefix(header, "sha1=") {
			return fmt.Errorf("%w: sha1 signatures are refused, want sha256", ErrSignature)
		}
		return fmt.Errorf("%w: no sha256= prefix", ErrSignature)
	}
	if len(hexSig) != 2*sha256.Size {
		return fmt.Errorf("%w: %d hex digits, want %d", ErrSignature, len(hexSig), 2*sha256.Size)
	}
	var got [sha256.Size]byte
	if _, err := hex.Decode(got[:], []byte(hexSig)); err != nil {
		return fmt.Errorf("%w: not hexadecimal", ErrSignature)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body) // a hash.Hash never returns an error
	// hmac.Equal takes the same time wherever the first difference is, so the comparison does
	// not leak how much of a forged signature was right.
	if !hmac.Equal(mac.Sum(nil), got[:]) {
		return fmt.Errorf("%w: mismatch", ErrSignature)
	}
	return nil
}

// Event is the part of a webhook delivery council acts on, parsed from the payload.
type Event struct {
	Name   string // X-GitHub-Event: pull_request, issue_comment, installation, installation_repositories, ping, ...
	Action string
	// Installation is the GitHub App installation the delivery is for; 0 when the payload
	// has none (a repository webhook, or a ping of the App's own hook).
	Installation int64
	// Account is the installation's account login for installation events, else the
	// repository owner.
	Account     string
	Owner, Repo string // the repository of pull_request and issue_comment events
	// Number is the pull request number; for issue_comment, the issue number, set only when
	// the issue is a pull request.
	Number        int
	Head          string // the pull request's head SHA (pull_request events)
	Draft         bool
	IsPullRequest bool // issue_comment: the issue is a pull request; pull_request_review_comment: always
	// InReplyTo is the review comment a pull_request_review_comment answers; 0 for a new thread.
	InReplyTo     int64
	Comment       string // issue_comment: the comment body
	Commenter     string // issue_comment: the comment author's login
	CommenterType string // issue_comment: "User", "Bot", ...
	Sender        string
	// ReposAdded and ReposRemoved are "owner/name": those of an installation_repositories
	// event, and an installation created event's repositories as ReposAdded.
	ReposAdded, ReposRemoved []string
}

// ParseEvent reads the payload of a delivery whose X-GitHub-Event is name. Events council does
// not act on come back as Event{Name, Action} without an error so that the caller can count
// and ignore them; a payload that is not JSON, or lacks what an acted-on event needs, is an
// error naming the event. The body must have been verified with VerifySignature first.
func ParseEvent(name string, body []byte) (Event, error) {
	e := Event{Name: name}
	switch name {
	case "pull_request", "issue_comment", "pull_request_review_comment", "installation", "installation_repositories", "ping":
	default:
		// go-github does not know every event GitHub sends (and refuses unknown names), and
		// decoding a whole payload only to drop it is waste: read the action alone.
		var a struct {
			Action string `json:"action"`
		}
		if err := json.Unmarshal(body, &a); err != nil {
			return Event{}, fmt.Errorf("parse %s event: %w", name, err)
		}
		e.Action = a.Action
		return e, nil
	}
	v, err := gh.ParseWebHook(name, body)
	if err != nil {
		return Event{}, fmt.Errorf("parse %s event: %w", name, err)
	}
	switch v := v.(type) {
	case *gh.PullRequestEvent:
		err = e.fromPullRequest(v)
	case *gh.IssueCommentEvent:
		err = e.fromIssueComment(v)
	case *gh.PullRequestReviewCommentEvent:
		err = e.fromReviewComment(v)
	case *gh.InstallationEvent:
		err = e.fromInstallation(v)
	case *gh.InstallationRepositoriesEvent:
		err = e.fromInstallationRepositories(v)
	case *gh.PingEvent:
		e.Installation = v.GetInstallation().GetID()
		e.Sender = v.GetSender().GetLogin()
		if r := v.GetRepo(); r != nil {
			e.Owner, e.Repo = r.GetOwner().GetLogin(), r.GetName()
			e.Account = e.Owner
		}
	default:
		// Unreachable while the names above match go-github's table; not worth a panic.
		return Event{}, fmt.Errorf("parse %s event: unexpected type %T", name, v)
	}
	if err != nil {
		return Event{}, fmt.Errorf("parse %s event: %w", name, err)
	}
	return e, nil
}

// errMissing reports a payload without a field an acted-on event needs; dispatching it with
// zero values would review pull request 0 of repository "".
func errMissing(what string) error { return fmt.Errorf("payload has no %s", what) }

func (e *Event) fromRepo(r *gh.Repository) error {
	if r == nil || r.GetName() == "" || r.GetOwner().GetLogin() == "" {
		return errMissing("repository")
	}
	e.Owner, e.Repo = r.GetOwner().GetLogin(), r.GetName()
	e.Account = e.Owner
	return nil
}

func (e *Event) fromPullRequest(v *gh.PullRequestEvent) error {
	e.Action = v.GetAction()
	e.Installation = v.GetInstallation().GetID()
	e.Sender = v.GetSender().GetLogin()
	if err := e.fromRepo(v.GetRepo()); err != nil {
		return err
	}
	pr := v.GetPullRequest()
	if pr == nil {
		return errMissing("pull_request")
	}
	e.Number = v.GetNumber()
	if e.Number == 0 {
		e.Number = pr.GetNumber()
	}
	if e.Number == 0 {
		return errMissing("pull request number")
	}
	e.Head = pr.GetHead().GetSHA()
	e.Draft = pr.GetDraft()
	return nil
}

func (e *Event) fromIssueComment(v *gh.IssueCommentEvent) error {
	e.Action = v.GetAction()
	e.Installation = v.GetInstallation().GetID()
	e.Sender = v.GetSender().GetLogin()
	if err := e.fromRepo(v.GetRepo()); err != nil {
		return err
	}
	is, c := v.GetIssue(), v.GetComment()
	if is == nil {
		return errMissing("issue")
	}
	if c == nil {
		return errMissing("comment")
	}
	// GitHub sends comments on pull requests' conversations as issue comments; the issue's
	// "pull_request" links are what tell them apart.
	e.IsPullRequest = is.IsPullRequest()
	if e.IsPullRequest {
		e.Number = is.GetNumber()
	}
	e.Comment = c.GetBody()
	e.Commenter = c.GetUser().GetLogin()
	e.CommenterType = c.GetUser().GetType()
	return nil
}

// fromReviewComment reads a pull_request_review_comment event: a comment on a pull request's
// diff, maybe a reply in one of council's threads.
// https://docs.github.com/webhooks/webhook-events-and-payloads#pull_request_review_comment
func (e *Event) fromReviewComment(v *gh.PullRequestReviewCommentEvent) error {
	e.Action = v.GetAction()
	e.Installation = v.GetInstallation().GetID()
	e.Sender = v.GetSender().GetLogin()
	if err := e.fromRepo(v.GetRepo()); err != nil {
		return err
	}
	if v.GetPullRequest().GetNumber() == 0 {
		return errMissing("pull_request")
	}
	c := v.GetComment()
	if c == nil {
		return errMissing("comment")
	}
	e.Number, e.IsPullRequest = v.GetPullRequest().GetNumber(), true
	e.Comment, e.InReplyTo = c.GetBody(), c.GetInReplyTo()
	e.Commenter, e.CommenterType = c.GetUser().GetLogin(), c.GetUser().GetType()
	return nil
}

func (e *Event) fromInstallation(v *gh.InstallationEvent) error {
	if err := e.fromInstallationOf(v.GetAction(), v.GetSender(), v.GetInstallation()); err != nil {
		return err
	}
	// Only a new installation's list is what it can now see; on "deleted" the installation is
	// forgotten whole, and the other actions carry no change of repositories.
	if e.Action == "created" {
		e.ReposAdded = fullNames(v.Repositories)
	}
	return nil
}

// fromInstallationOf reads what both installation events carry.
func (e *Event) fromInstallationOf(action string, sender *gh.User, in *gh.Installation) error {
	e.Action = action
	e.Sender = sender.GetLogin()
	if in.GetID() == 0 {
		return errMissing("installation")
	}
	e.Installation = in.GetID()
	e.Account = in.GetAccount().GetLogin()
	return nil
}

func (e *Event) fromInstallationRepositories(v *gh.InstallationRepositoriesEvent) error {
	if err := e.fromInstallationOf(v.GetAction(), v.GetSender(), v.GetInstallation()); err != nil {
		return err
	}
	e.ReposAdded = fullNames(v.RepositoriesAdded)
	e.ReposRemoved = fullNames(v.RepositoriesRemoved)
	return nil
}

// fullNames lists repositories as "owner/name". Installation payloads carry full_name but no
// owner object, so full_name is read first.
func fullNames(rs []*gh.Repository) []string {
	var out []string
	for _, r := range rs {
		n := r.GetFullName()
		if n == "" && r.GetOwner().GetLogin() != "" && r.GetName() != "" {
			n = r.GetOwner().GetLogin() + "/" + r.GetName()
		}
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Command is a request to council written as a pull request comment.
type Command string

// The commands, as written after "/council".
const (
	CommandReview     Command = "review"      // review what changed since the last review
	CommandFullReview Command = "full-review" // review the whole pull request again
	CommandPause      Command = "pause"       // stop automatic reviews of this pull request
	CommandResume     Command = "resume"      // start them again
)

// commandPrefix starts every command. It is matched exactly: "/council" is how the command is
// documented, and a looser match would wake on prose that merely mentions council.
const commandPrefix = "/council"

// ParseCommand recognises a comment whose first non-empty line is "/council" and one command
// word (case-insensitive), with nothing else on that line; what follows on later lines is the
// commenter's own text. Anything else, including text before the command, is not a command:
// quoting or discussing a command must not run it.
func ParseCommand(comment string) (Command, bool) {
	for line := range strings.Lines(comment) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || f[0] != commandPrefix {
			return "", false
		}
		for _, c := range []Command{CommandReview, CommandFullReview, CommandPause, CommandResume} {
			if strings.EqualFold(f[1], string(c)) {
				return c, true
			}
		}
		return "", false
	}
	return "", false
}
