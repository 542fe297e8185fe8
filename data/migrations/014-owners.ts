/**
 * Owners and operators (DESIGN.md "Owners and operators").
 * - `claims`: a request to prove control of a service's host, with the token to serve, until it expires.
 * - `owner_keys`: the one key of a service's verified owner, as a SHA-256 hash (the key itself is shown once).
 * - `owner_edits`: what the owner set; each field wins over directory data in every later write (data/owners.ts).
 * - `delisted_services`: services their owner or an operator took out of the index, with what they were, so a relist
 *   brings them back and discovery never lists them meanwhile. The service row itself is deleted, so lists, counts,
 *   tallies, facets, pages and snapshots lose it by the paths they already have.
 * - `detail_tombstones`: a deleted service's detail answer takes a revision too, so a process holding answers in
 *   memory (data/detail-cache.ts) forgets it as it forgets a rewritten one.
 * None of these reference `services`: they outlive a delisted service's row.
 */
export const up = `
CREATE TABLE claims (
  id          TEXT PRIMARY KEY,
  service_id  TEXT NOT NULL,
  token       TEXT NOT NULL,
  client      TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('pending', 'verified')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  last_result TEXT,
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL,
  verified_at TEXT
);
CREATE INDEX claims_service ON claims (service_id, created_at);

CREATE TABLE owner_keys (
  service_id  TEXT PRIMARY KEY,
  key_hash    TEXT NOT NULL,
  claim_id    TEXT NOT NULL,
  verified_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE owner_edits (
  service_id    TEXT PRIMARY KEY,
  name          TEXT,
  description   TEXT,
  category      TEXT,
  main_endpoint TEXT,
  docs_url      TEXT,
  updated_at    TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE delisted_services (
  service_id    TEXT PRIMARY KEY,
  reason        TEXT,
  by            TEXT NOT NULL CHECK (by IN ('owner', 'operator')),
  delisted_at   TEXT NOT NULL,
  service       TEXT NOT NULL,   -- JSON: the ServiceInput it was listed as
  first_indexed TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE detail_tombstones (
  service_id TEXT NOT NULL,
  revision   INTEGER NOT NULL
);
CREATE INDEX detail_tombstones_revision ON detail_tombstones (revision);
CREATE TRIGGER service_details_tombstone AFTER DELETE ON service_details BEGIN
  UPDATE detail_revision SET value = value + 1;
  INSERT INTO detail_tombstones (service_id, revision) SELECT OLD.service_id, value FROM detail_revision;
END;
`;
