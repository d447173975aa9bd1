-- The processes that run jobs, by their job queue client's id (the id River records in a
-- job's attempted_by). Each records a heartbeat every COUNCIL_HEARTBEAT_INTERVAL; the queue's
-- elected leader puts back the running jobs of one whose heartbeat is older than
-- COUNCIL_HEARTBEAT_TIMEOUT, and forgets it. A worker that stops cleanly removes itself.
-- Times are INTEGER microseconds since the Unix epoch (UTC), as in 001.
CREATE TABLE workers (
    id        TEXT    PRIMARY KEY,
    host      TEXT    NOT NULL DEFAULT '',
    pid       INTEGER NOT NULL DEFAULT 0,
    started   INTEGER NOT NULL,
    heartbeat INTEGER NOT NULL
);
