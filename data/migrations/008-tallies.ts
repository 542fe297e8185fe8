/**
 * Running tallies kept by triggers, so the census (`/api/v1/stats`, the home page), the filter sizes the list
 * planner reads and the asset labels cost an indexed read instead of a scan of every service, on every request.
 * Each tally moves in the same transaction as the row it counts, whichever process writes it.
 *
 * `last_probe_at` only moves forward: a deleted service's last probe still happened.
 */
export const up = `
CREATE TABLE service_tallies (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  total         INTEGER NOT NULL,
  live          INTEGER NOT NULL,
  probed        INTEGER NOT NULL,
  dual_rail     INTEGER NOT NULL,
  last_probe_at TEXT
);
INSERT INTO service_tallies (id, total, live, probed, dual_rail, last_probe_at)
  SELECT 1, count(*), count(*) FILTER (WHERE live = 1), count(live), coalesce(sum(dual_rail), 0), max(last_probe_at)
  FROM services;

CREATE TRIGGER services_tally_insert AFTER INSERT ON services BEGIN
  UPDATE service_tallies SET total = total + 1, live = live + (NEW.live IS 1),
    probed = probed + (NEW.live IS NOT NULL), dual_rail = dual_rail + NEW.dual_rail,
    last_probe_at = CASE WHEN NEW.last_probe_at > coalesce(last_probe_at, '') THEN NEW.last_probe_at
      ELSE last_probe_at END WHERE id = 1;
END;
CREATE TRIGGER services_tally_delete AFTER DELETE ON services BEGIN
  UPDATE service_tallies SET total = total - 1, live = live - (OLD.live IS 1),
    probed = probed - (OLD.live IS NOT NULL), dual_rail = dual_rail - OLD.dual_rail WHERE id = 1;
END;
CREATE TRIGGER services_tally_update AFTER UPDATE OF live, dual_rail, last_probe_at ON services
  WHEN NEW.live IS NOT OLD.live OR NEW.dual_rail <> OLD.dual_rail OR NEW.last_probe_at IS NOT OLD.last_probe_at
BEGIN
  UPDATE service_tallies SET live = live + (NEW.live IS 1) - (OLD.live IS 1),
    probed = probed + (NEW.live IS NOT NULL) - (OLD.live IS NOT NULL),
    dual_rail = dual_rail + NEW.dual_rail - OLD.dual_rail,
    last_probe_at = CASE WHEN NEW.last_probe_at > coalesce(last_probe_at, '') THEN NEW.last_probe_at
      ELSE last_probe_at END WHERE id = 1;
END;

-- Services per filter value ('rail:x402'), and how many of them are live; a value no service has is absent.
CREATE TABLE facet_tallies (
  facet TEXT PRIMARY KEY,
  size  INTEGER NOT NULL,
  live  INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO facet_tallies (facet, size, live)
  SELECT facet, count(*), coalesce(sum(live_rank = 0), 0) FROM service_facets GROUP BY facet;

CREATE TRIGGER service_facets_tally_insert AFTER INSERT ON service_facets BEGIN
  INSERT INTO facet_tallies (facet, size, live) VALUES (NEW.facet, 1, NEW.live_rank = 0)
    ON CONFLICT (facet) DO UPDATE SET size = size + 1, live = live + excluded.live;
END;
CREATE TRIGGER service_facets_tally_delete AFTER DELETE ON service_facets BEGIN
  UPDATE facet_tallies SET size = size - 1, live = live - (OLD.live_rank = 0) WHERE facet = OLD.facet;
  DELETE FROM facet_tallies WHERE facet = OLD.facet AND size = 0;
END;
CREATE TRIGGER service_facets_tally_update AFTER UPDATE OF facet, live_rank ON service_facets
  WHEN NEW.facet IS NOT OLD.facet OR (NEW.live_rank = 0) IS NOT (OLD.live_rank = 0)
BEGIN
  UPDATE facet_tallies SET size = size - 1, live = live - (OLD.live_rank = 0) WHERE facet = OLD.facet;
  DELETE FROM facet_tallies WHERE facet = OLD.facet AND size = 0;
  INSERT INTO facet_tallies (facet, size, live) VALUES (NEW.facet, 1, NEW.live_rank = 0)
    ON CONFLICT (facet) DO UPDATE SET size = size + 1, live = live + excluded.live;
END;

-- How each asset was first written ('pathUSD'), to label the lower-cased filter values; never pruned, since a label
-- is only looked up for a value some service has.
CREATE TABLE asset_symbols (
  key    TEXT PRIMARY KEY,   -- lower-cased, as in 'asset:' filter values
  symbol TEXT NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO asset_symbols (key, symbol)
  SELECT lower(a.value), a.value FROM services s, json_each(s.assets) a ORDER BY s.rowid;

CREATE TRIGGER services_asset_symbols_insert AFTER INSERT ON services BEGIN
  INSERT INTO asset_symbols (key, symbol) SELECT lower(value), value FROM json_each(NEW.assets) WHERE true
    ON CONFLICT (key) DO NOTHING;
END;
CREATE TRIGGER services_asset_symbols_update AFTER UPDATE OF assets ON services WHEN NEW.assets IS NOT OLD.assets BEGIN
  INSERT INTO asset_symbols (key, symbol) SELECT lower(value), value FROM json_each(NEW.assets) WHERE true
    ON CONFLICT (key) DO NOTHING;
END;
`;
