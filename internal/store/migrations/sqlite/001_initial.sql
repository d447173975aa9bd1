-- Times are INTEGER microseconds since the Unix epoch (UTC): they compare and sort exactly,
-- unlike text timestamps whose format and offset vary with the writer.

CREATE TABLE installations (
    id        INTEGER PRIMARY KEY,
    account   TEXT    NOT NULL DEFAULT '',
    suspended INTEGER NOT NULL DEFAULT 0,
    settings  TEXT    NOT NULL DEFAULT '{}', -- JSON of store.Settings
    created   INTEGER NOT NULL,
    updated   INTEGER NOT NULL
);

-- No foreign key to installations: GitHub may announce repositories before the installation.
CREATE TABLE installation_repositories (
    installation_id INTEGER NOT NULL,
    repo_key        TEXT    NOT NULL, -- lower case: GitHub names are case-insensitive
    repo            TEXT    NOT NULL, -- as GitHub spells it
    PRIMARY KEY (installation_id, repo_key)
);

CREATE TABLE deliveries (
    id       TEXT    PRIMARY KEY,
    event    TEXT    NOT NULL,
    received INTEGER NOT NULL
);

CREATE TABLE paused_pulls (
    repo_key TEXT    NOT NULL,
    number   INTEGER NOT NULL,
    PRIMARY KEY (repo_key, number)
);

-- AUTOINCREMENT so that a run id is never reused, even after the newest run is deleted.
CREATE TABLE runs (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    installation_id INTEGER NOT NULL,
    repo            TEXT    NOT NULL,
    repo_key        TEXT    NOT NULL,
    number          INTEGER NOT NULL,
    head            TEXT    NOT NULL DEFAULT '',
    trigger_name    TEXT    NOT NULL DEFAULT '',
    delivery_id     TEXT    NOT NULL DEFAULT '',
    job_id          INTEGER NOT NULL DEFAULT 0,
    attempt         INTEGER NOT NULL DEFAULT 0,
    status          TEXT    NOT NULL,
    started         INTEGER NOT NULL,
    finished        INTEGER, -- NULL while running
    findings        INTEGER NOT NULL DEFAULT 0,
    posted          INTEGER NOT NULL DEFAULT 0,
    input_tokens    INTEGER NOT NULL DEFAULT 0,
    output_tokens   INTEGER NOT NULL DEFAULT 0,
    cost_usd        REAL    NOT NULL DEFAULT 0,
    error           TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX runs_repo_started ON runs (repo_key, number, started);
CREATE INDEX runs_installation_started ON runs (installation_id, started);
CREATE INDEX runs_started ON runs (started);

-- seq keeps the order the run recorded them in.
CREATE TABLE findings (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    fingerprint TEXT    NOT NULL,
    reviewer    TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    severity    TEXT    NOT NULL,
    category    TEXT    NOT NULL,
    path        TEXT    NOT NULL,
    line        INTEGER NOT NULL,
    title       TEXT    NOT NULL,
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE ledger (
    run_id             INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                INTEGER NOT NULL,
    reviewer           TEXT    NOT NULL,
    model              TEXT    NOT NULL,
    requests           INTEGER NOT NULL,
    input_tokens       INTEGER NOT NULL,
    output_tokens      INTEGER NOT NULL,
    cache_read_tokens  INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cost_usd           REAL    NOT NULL,
    seconds            REAL    NOT NULL,
    PRIMARY KEY (run_id, seq)
);
