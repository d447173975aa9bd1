package server

import (
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// A worker takes others for dead only after recording its own every heartbeat for a whole
// timeout, and stops on its own two intervals before others may take it for dead.
func TestPulse(t *testing.T) {
	t.Parallel()
	const interval, timeout = 10 * time.Second, time.Minute
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	type beat struct {
		at       time.Duration // after t0
		recorded bool
	}
	tests := []struct {
		name       string
		beats      []beat
		at         time.Duration
		mayRescue  bool
		wantStopBy time.Duration
	}{
		{name: "just started", at: 0, mayRescue: false, wantStopBy: 40 * time.Second},
		{name: "a timeout after the start", at: timeout, mayRescue: true, wantStopBy: 40 * time.Second},
		{
			name: "recording", beats: []beat{{10 * time.Second, true}, {20 * time.Second, true}},
			at: timeout - time.Nanosecond, mayRescue: false, wantStopBy: 60 * time.Second,
		},
		{
			name: "one heartbeat not recorded", beats: []beat{{10 * time.Second, true}, {20 * time.Second, false}},
			at: 2 * timeout, mayRescue: false, wantStopBy: 50 * time.Second,
		},
		{
			name: "recording again, not yet for a timeout", beats: []beat{{10 * time.Second, false}, {20 * time.Second, true}},
			at: 20*time.Second + timeout - time.Nanosecond, mayRescue: false, wantStopBy: 60 * time.Second,
		},
		{
			name: "recording again for a timeout", beats: []beat{{10 * time.Second, false}, {20 * time.Second, true}, {30 * time.Second, true}},
			at: 20*time.Second + timeout, mayRescue: true, wantStopBy: 70 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPulse(interval, timeout, t0)
			for _, b := range tt.beats {
				p.beat(t0.Add(b.at), b.recorded)
			}
			if got := p.mayRescue(t0.Add(tt.at)); got != tt.mayRescue {
				t.Errorf("mayRescue at +%s = %v, want %v", tt.at, got, tt.mayRescue)
			}
			if got := p.stopBy(); !got.Equal(t0.Add(tt.wantStopBy)) {
				t.Errorf("stopBy = +%s, want +%s", got.Sub(t0), tt.wantStopBy)
			}
		})
	}
}

// The run of a dead attempt says how the queue found its worker dead, when it says.
func TestAbandonReason(t *testing.T) {
	t.Parallel()
	const plain = "the worker stopped during this run (killed, or its machine lost); the job ran again"
	tests := []struct {
		name string
		job  rivertype.JobRow
		want string
	}{
		{name: "no error recorded", job: rivertype.JobRow{Attempt: 2}, want: plain},
		{
			name: "put back by the leader",
			job: rivertype.JobRow{Attempt: 2, Errors: []rivertype.AttemptError{
				{Attempt: 1, Error: "the worker w1 stopped: no heartbeat since 2026-05-01T12:00:00Z; the job was put back in the queue"},
			}},
			want: plain + ": the worker w1 stopped: no heartbeat since 2026-05-01T12:00:00Z; the job was put back in the queue",
		},
		{
			name: "an older attempt's error",
			job:  rivertype.JobRow{Attempt: 3, Errors: []rivertype.AttemptError{{Attempt: 1, Error: "git fetch: exit status 128"}}},
			want: plain,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := abandonReason(&tt.job); got != tt.want {
				t.Errorf("abandonReason = %q\nwant %q", got, tt.want)
			}
		})
	}
}
