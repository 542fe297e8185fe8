/**
 * A claim's secret (DESIGN.md "Public data only"): verifying a claim needs the secret its creation answered, so a
 * claim id seen anywhere is worth nothing. Stored only as its SHA-256 digest (hex); a claim made before this column
 * has none and cannot be verified (a new claim can).
 */
export const up = `
ALTER TABLE claims ADD COLUMN secret_digest TEXT;
`;
