/**
 * `services.input_digest`: the digest of what the directories and the owner last said of a service (its input as
 * upserted, data/services.ts), so a discovery that finds a service as it stored it writes nothing. A discovery reads
 * every directory in full each time, and writing every service anew moved every `updated_at` (every listing page
 * touched), gave every endpoint a new `search_rowid` (its full-text row, kept texts and search keys written again)
 * and re-stored every detail answer: a replica copied most of the database after each one. Existing services have
 * none until their next write.
 */
export const up = `
ALTER TABLE services ADD COLUMN input_digest TEXT;
`;
