package prflow

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/council-dev/council/internal/engine"
	"github.com/council-dev/council/internal/overview"
	"github.com/council-dev/council/internal/provider"
	ghreview "github.com/council-dev/council/internal/publish/github"
	"github.com/council-dev/council/internal/report"
	"github.com/council-dev/council/internal/review"
	"github.com/council-dev/council/internal/source"
	"github.com/council-dev/council/internal/validate"
)

// Options are one run of the flow on a pull request that Open read.
type Options struct {
	// Clone is the local repository to review in; "" for the cached clone.
	Clone string
	// Credential is what git sends to fetch the pull request's commits.
	Credential source.Credential
	// Engine are the review's options; Run sets the repository, the range, the title and body,
	// and Since for an incremental review.
	Engine engine.Options
	// Post, CheckRun, Layout and Full are the --post, --check-run, --layout and --full of
	// `council review`; Overview posts the overview review first.
	Post, CheckRun, Full, Overview bool
	Layout                         string
	// Prepare runs once the session is open (its config read from the base revision), before
	// any model work, and returns the severity gate (--fail-on, "" for none). A nil Prepare
	// gates on the config's output.fail_on.
	Prepare func(sess *engine.Session) (failOn string, err error)
	// Client makes the model client for the session's config, once the run is known to have
	// work; nil for a run with no model (rules only). ErrStop ends the run there without an
	// error (a dry run).
	Client func(sess *engine.Session) (provider.Client, error)
	// Prices price the run's tokens.
	Prices func(sess *engine.Session) provider.Prices
	// Reviewed runs once the review is done, before anything is posted: the CLI writes its
	// outputs there.
	Reviewed func(sess *engine.Session, rep report.Report) error
	// Gate says whether the finished review fails the run (reviewers failed, or a finding at
	// or above failOn): the check run's conclusion. A nil Gate fails only on failOn.
	Gate func(rep report.Report, failOn string) error
	Log  io.Writer
}

// Result is what a run of the flow did.
type Result struct {
	// Skipped says why nothing was reviewed ("" when it was): the head was already reviewed,
	// or Prepare stopped it.
	Skipped string
	Report  report.Report
	Posted  int    // reviews posted
	FailOn  string // the gate that applied
	// GateErr is what Gate said of the review (nil: it passes).
	GateErr error
	Config  string // the council's display name
}

// ErrStop is what Options.Client returns to end a run before the review, without an error.
var ErrStop = errors.New("stop before the review")

// SkipAlreadyReviewed is Result.Skipped for a head that council already reviewed.
const SkipAlreadyReviewed = "already reviewed"

// Run checks out the pull request, reviews it and publishes the review as o asks.
func (p *PR) Run(ctx context.Context, o Options) (Result, error) {
	var res Result
	if o.Log == nil {
		o.Log = io.Discard
	}
	repo, err := p.Checkout(ctx, o.Clone, o.Credential)
	if err != nil {
		return res, err
	}
	eo := o.Engine
	eo.Repo, eo.Base, eo.Head, eo.Title, eo.Body = repo, p.Info.BaseSHA, p.Info.HeadSHA, p.Info.Title, p.Info.Body
	if o.Post && !o.Full && p.LastHead != "" && p.LastHead != p.Info.HeadSHA && HasCommit(ctx, repo, p.LastHead) {
		eo.Since = p.LastHead
		p.Incremental = true
	}
	sess, err := engine.Open(ctx, eo)
	if err != nil {
		return res, err
	}
	defer sess.Close()
	cfg := sess.Config
	res.Config = cfg.CouncilName
	res.FailOn = string(cfg.Output.FailOn)
	if o.Prepare != nil {
		if res.FailOn, err = o.Prepare(sess); err != nil {
			return res, err
		}
	}
	// Nothing new to say on a head already reviewed, unless the run is a gate (a severity
	// gate, a check run), whose answer must come from a review.
	// Questions asked in council's threads since are still answered.
	if o.Post && !o.Full && res.FailOn == "" && !o.CheckRun && p.LastHead == p.Info.HeadSHA {
		res.Skipped = SkipAlreadyReviewed
		if len(p.questions()) == 0 || o.Client == nil {
			fmt.Fprintf(o.Log, "council: %s was already reviewed at %s; nothing to do (--full reviews it again)\n", p.Ref(), Short(p.Info.HeadSHA))
			return res, nil
		}
		fmt.Fprintf(o.Log, "council: %s was already reviewed at %s; answering the questions asked in its threads (--full reviews it again)\n", p.Ref(), Short(p.Info.HeadSHA))
		client, err := o.Client(sess)
		if errors.Is(err, ErrStop) || client == nil {
			return res, nil
		} else if err != nil {
			return res, err
		}
		p.answerWith(sess, client)
		p.answerQuestions(ctx, o.Log)
		return res, nil
	}
	var client provider.Client
	if o.Client != nil {
		if client, err = o.Client(sess); errors.Is(err, ErrStop) {
			res.Skipped = "stopped before review"
			return res, nil
		} else if err != nil {
			return res, err
		}
	}
	prices := provider.DefaultPrices()
	if o.Prices != nil {
		prices = o.Prices(sess)
	}
	rep := sess.Run(ctx, client, prices)
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	res.Report = rep
	if o.Reviewed != nil {
		if err := o.Reviewed(sess, rep); err != nil {
			return res, err
		}
	}
	if o.Gate != nil {
		res.GateErr = o.Gate(rep, res.FailOn)
	}
	p.Fixed = func(ctx context.Context, comment, path string) (validate.Fix, error) {
		if client == nil {
			return validate.Fix{}, errors.New("no model in this run")
		}
		code, err := sess.HeadText(ctx, path, 2000)
		if err != nil {
			return validate.Fix{}, err
		}
		fix, _, err := validate.CheckFixed(ctx, client, comment, path, code, cfg.Model)
		return fix, err
	}
	if client != nil { // a run without a model answers no question, and says nothing of it
		p.answerWith(sess, client)
	}
	if o.Overview && client != nil && !p.posted[ghreview.ReviewKey(overview.Reviewer, rep.Change.HeadSHA)] {
		p.Overview = writeOverview(ctx, o.Log, client, sess.Input(), rep, cfg.Model)
	}
	res.Posted, err = p.Publish(ctx, PostOptions{
		Post: o.Post, CheckRun: o.CheckRun, Layout: o.Layout, Council: cfg.CouncilName,
		FailOn: res.FailOn, Failed: res.GateErr != nil, Log: o.Log,
	}, rep, sess.Change.Files)
	return res, err
}

// writeOverview asks the model for the pull request overview and renders it; a failure is
// said and costs only the overview.
func writeOverview(ctx context.Context, log io.Writer, c provider.Client, in review.Input, rep report.Report, model string) string {
	resp, err := c.Complete(ctx, overview.Request(in, model, overview.MaxTokens))
	if err == nil {
		var o overview.Overview
		if o, err = overview.Parse(resp, rep.Coverage.Reviewed); err == nil {
			for _, p := range o.Problems {
				fmt.Fprintf(log, "council: overview: %s\n", p)
			}
			return overview.Render(o, rep)
		}
	}
	fmt.Fprintf(log, "council: no pull request overview: %v\n", err)
	return ""
}

// answerWith sets how the flow answers a question: the model reads the comment, the question
// and the file at head.
func (p *PR) answerWith(sess *engine.Session, client provider.Client) {
	p.Answer = func(ctx context.Context, comment, question, path string) (validate.Answer, error) {
		code, err := sess.HeadText(ctx, path, 2000)
		if err != nil {
			return validate.Answer{}, err
		}
		a, _, err := validate.AnswerQuestion(ctx, client, comment, question, path, code, sess.Config.Model)
		return a, err
	}
}
