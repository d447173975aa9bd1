package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/council-dev/council/internal/store"
)

// A worker killed hard (SIGKILL, the OOM killer, a lost machine) cannot put its jobs back, and
// River rescues a running job only after COUNCIL_RESCUE_AFTER, which must be longer than the
// job timeout. So each worker records a heartbeat every COUNCIL_HEARTBEAT_INTERVAL under its
// River client id, which River records in attempted_by of every job the worker takes, and the
// worker River elected leader puts back the running jobs of workers whose heartbeat is older
// than COUNCIL_HEARTBEAT_TIMEOUT (store.RescueJobs). A live worker is never taken for dead
// while it can record heartbeats, however long its jobs run: the job timeout stays as it is.

// errStopAtOnce stops a worker whose jobs may run elsewhere: it must stop at once, as if
// killed, rather than finish or put back jobs that are no longer its own.
var errStopAtOnce = errors.New("this worker stops at once")

// pulse is a worker's account of its own heartbeats, by its own clock.
type pulse struct {
	interval, timeout time.Duration
	recorded          time.Time // the last heartbeat recorded
	since             time.Time // since when every heartbeat was recorded; zero after one was not
}

func newPulse(interval, timeout time.Duration, now time.Time) *pulse {
	return &pulse{interval: interval, timeout: timeout, recorded: now, since: now}
}

// beat notes a heartbeat at now: recorded, or not.
func (p *pulse) beat(now time.Time, recorded bool) {
	if !recorded {
		p.since = time.Time{}
		return
	}
	p.recorded = now
	if p.since.IsZero() {
		p.since = now
	}
}

// mayRescue says whether this worker may take others for dead: only once it has recorded every
// heartbeat for a whole timeout. After a database outage every heartbeat is old, the live
// workers' too, until each has had the time to record one again.
func (p *pulse) mayRescue(now time.Time) bool {
	return !p.since.IsZero() && now.Sub(p.since) >= p.timeout
}

// stopBy is when this worker must stop if it records no heartbeat until then: two intervals
// before the leader may take it for dead and run its jobs elsewhere, so that they never run in
// two places.
func (p *pulse) stopBy() time.Time {
	return p.recorded.Add(p.timeout - 2*p.interval)
}

// liveness records this worker's heartbeat every COUNCIL_HEARTBEAT_INTERVAL and, while this
// process leads the job queue, puts back the jobs of the workers whose heartbeat stopped. It
// returns errStopAtOnce, wrapped with the reason, when this worker must stop at once; nil
// when ctx ends.
func (s *Server) liveness(ctx context.Context, id string) error {
	interval, timeout := s.cfg.Duration("COUNCIL_HEARTBEAT_INTERVAL"), s.cfg.Duration("COUNCIL_HEARTBEAT_TIMEOUT")
	p := newPulse(interval, timeout, time.Now()) // Run recorded the first heartbeat
	tick := time.NewTicker(interval)
	defer tick.Stop()
	deadline := time.NewTimer(time.Until(p.stopBy()))
	defer deadline.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-deadline.C:
			return fmt.Errorf("%w: it could not record a heartbeat since %s, and its jobs may soon run elsewhere",
				errStopAtOnce, p.recorded.UTC().Format(time.RFC3339))
		case <-tick.C:
		}
		bctx, cancel := context.WithTimeout(ctx, interval)
		known, err := s.db.Heartbeat(bctx, id, time.Time{})
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			s.log.Warn("record this worker's heartbeat", "worker", id, "error", err.Error())
		case !known:
			return fmt.Errorf("%w: it was taken for dead, and its jobs put back in the queue", errStopAtOnce)
		}
		now := time.Now()
		p.beat(now, err == nil)
		if err == nil {
			deadline.Reset(time.Until(p.stopBy()))
		}
		if p.mayRescue(now) {
			s.rescue(ctx, id, timeout)
		}
	}
}

// rescue puts back the jobs of dead workers, if this process leads the job queue.
func (s *Server) rescue(ctx context.Context, id string, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Duration("COUNCIL_HEARTBEAT_INTERVAL"))
	defer cancel()
	dead, err := s.db.RescueJobs(ctx, store.RescueParams{Leader: id, DeadAfter: timeout})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("rescue the jobs of dead workers", "error", err.Error())
		}
		return
	}
	for _, d := range dead {
		s.log.Warn("a worker stopped recording heartbeats: its running jobs are back in the queue",
			"worker", d.ID, "host", d.Host, "pid", d.PID, "last_heartbeat", d.Heartbeat, "requeued", d.Requeued, "discarded", d.Discarded)
	}
}
