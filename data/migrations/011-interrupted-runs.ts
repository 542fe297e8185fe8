/**
 * A crawl killed before it could close its run (kill -9, a power cut) left the run 'running' forever. Runs now
 * record the process that runs them (`pid`), and the next run marks those whose process is gone `interrupted`
 * (data/crawl.ts `closeInterruptedCrawlRuns`). SQLite cannot alter a CHECK constraint, so the table is rebuilt
 * (new table, copy, drop, rename; it has no indexes or triggers) in the migration's transaction.
 */
export const up = `
CREATE TABLE crawl_runs_next (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('discovery', 'probe', 'full')),
  started_at  TEXT NOT NULL,
  finished_at TEXT,
  status      TEXT NOT NULL CHECK (status IN ('running', 'finished', 'failed', 'interrupted')),
  counts      TEXT NOT NULL DEFAULT '{}',  -- JSON: per source and per outcome
  errors      TEXT NOT NULL DEFAULT '[]',  -- JSON: what failed, in words
  pid         INTEGER                      -- the process running it; null for runs recorded before this migration
);

INSERT INTO crawl_runs_next (id, kind, started_at, finished_at, status, counts, errors)
  SELECT id, kind, started_at, finished_at, status, counts, errors FROM crawl_runs;
DROP TABLE crawl_runs;
ALTER TABLE crawl_runs_next RENAME TO crawl_runs;
`;
