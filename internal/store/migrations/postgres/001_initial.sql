CREATE TABLE installations (
    id        bigint      PRIMARY KEY,
    account   text        NOT NULL DEFAULT '',
    suspended boolean     NOT NULL DEFAULT false,
    settings  text        NOT NULL DEFAULT '{}', -- JSON of store.Settings
    created   timestamptz NOT NULL,
    updated   timestamptz NOT NULL
);

-- No foreign key to installations: GitHub may announce repositories before the installation.
CREATE TABLE installation_repositories (
    installation_id bigint NOT NULL,
    repo_key        text   NOT NULL, -- lower case: GitHub names are case-insensitive
    repo            text   NOT NULL, -- as GitHub spells it
    PRIMARY KEY (installation_id, repo_key)
);

CREATE TABLE deliveries (
    id       text        PRIMARY KEY,
    event    text        NOT NULL,
    received timestamptz NOT NULL
);

CREATE TABLE paused_pulls (
    repo_key text    NOT NULL,
    number   integer NOT NULL,
    PRIMARY KEY (repo_key, number)
);

CREATE TABLE runs (
    id              bigint           GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    installation_id bigint           NOT NULL,
    repo            text             NOT NULL,
    repo_key        text             NOT NULL,
    number          integer          NOT NULL,
    head            text             NOT NULL DEFAULT '',
    trigger_name    text             NOT NULL DEFAULT '',
    delivery_id     text             NOT NULL DEFAULT '',
    job_id          bigint           NOT NULL DEFAULT 0,
    attempt         integer          NOT NULL DEFAULT 0,
    status          text             NOT NULL,
    started         timestamptz      NOT NULL,
    finished        timestamptz, -- NULL while running
    findings        integer          NOT NULL DEFAULT 0,
    posted          integer          NOT NULL DEFAULT 0,
    input_tokens    bigint           NOT NULL DEFAULT 0,
    output_tokens   bigint           NOT NULL DEFAULT 0,
    cost_usd        double precision NOT NULL DEFAULT 0,
    error           text             NOT NULL DEFAULT ''
);
CREATE INDEX runs_repo_started ON runs (repo_key, number, started);
CREATE INDEX runs_installation_started ON runs (installation_id, started);
CREATE INDEX runs_started ON runs (started);

-- seq keeps the order the run recorded them in.
CREATE TABLE findings (
    run_id      bigint  NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq         integer NOT NULL,
    fingerprint text    NOT NULL,
    reviewer    text    NOT NULL,
    status      text    NOT NULL,
    severity    text    NOT NULL,
    category    text    NOT NULL,
    path        text    NOT NULL,
    line        integer NOT NULL,
    title       text    NOT NULL,
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE ledger (
    run_id             bigint           NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                integer          NOT NULL,
    reviewer           text             NOT NULL,
    model              text             NOT NULL,
    requests           integer          NOT NULL,
    input_tokens       bigint           NOT NULL,
    output_tokens      bigint           NOT NULL,
    cache_read_tokens  bigint           NOT NULL,
    cache_write_tokens bigint           NOT NULL,
    cost_usd           double precision NOT NULL,
    seconds            double precision NOT NULL,
    PRIMARY KEY (run_id, seq)
);
