-- The processes that run jobs, by their job queue client's id (the id River records in a
-- job's attempted_by). Each records a heartbeat every COUNCIL_HEARTBEAT_INTERVAL; the queue's
-- elected leader puts back the running jobs of one whose heartbeat is older than
-- COUNCIL_HEARTBEAT_TIMEOUT, and forgets it. A worker that stops cleanly removes itself.
CREATE TABLE workers (
    id        text        PRIMARY KEY,
    host      text        NOT NULL DEFAULT '',
    pid       integer     NOT NULL DEFAULT 0,
    started   timestamptz NOT NULL,
    heartbeat timestamptz NOT NULL
);
