package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// defaultRunLimit is how many runs Runs returns when the filter does not say.
const defaultRunLimit = 50

// runColumns are the runs columns in the order both implementations scan them.
const runColumns = `id, installation_id, repo, number, head, trigger_name, delivery_id, job_id, attempt,
	status, started, finished, findings, posted, input_tokens, output_tokens, cost_usd, error`

// repoKey is how a repository is looked up: GitHub's owner and repository names are
// case-insensitive.
func repoKey(repo string) string { return strings.ToLower(repo) }

// orNow is t, or the current time when t is zero, in UTC.
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t.UTC()
}

func encodeSettings(s Settings) (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("encode settings: %w", err)
	}
	return string(b), nil
}

func decodeSettings(s string) (Settings, error) {
	var out Settings
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return Settings{}, fmt.Errorf("decode settings: %w", err)
	}
	return out, nil
}

// totals are what a run's ledger rows add up to.
func totals(rows []LedgerRow) (in, out int64, cost float64) {
	for _, r := range rows {
		in += r.InputTokens
		out += r.OutputTokens
		cost += r.CostUSD
	}
	return in, out, cost
}

// rescueReason is the error RescueJobs records on each job it puts back.
func rescueReason(w Worker) string {
	return fmt.Sprintf("the worker %s stopped: no heartbeat since %s; the job was put back in the queue",
		w.ID, w.Heartbeat.UTC().Format(time.RFC3339))
}

// add notes a job of the dead worker: put back in the queue, or discarded.
func (d *DeadWorker) add(job int64, discarded bool) {
	if discarded {
		d.Discarded = append(d.Discarded, job)
	} else {
		d.Requeued = append(d.Requeued, job)
	}
}
