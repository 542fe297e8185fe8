/**
 * Every `Idempotency-Key` a submitter sent, with the submission it stands for: also a key whose first use was
 * answered with an earlier submission of the same endpoint, so its retry echoes that one even after 24 hours.
 * `submissions.idempotency_key` is kept as it was (a UNIQUE column cannot be dropped) and no longer written.
 */
export const up = `
CREATE TABLE submission_keys (
  idempotency_key TEXT PRIMARY KEY,
  submission_id   TEXT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE
) WITHOUT ROWID;
INSERT INTO submission_keys (idempotency_key, submission_id)
  SELECT idempotency_key, id FROM submissions WHERE idempotency_key IS NOT NULL;
`;
