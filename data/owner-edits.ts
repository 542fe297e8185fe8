import type { OwnerView } from '../domain/schemas.ts';
import { preparedOnce, type DB } from './db.ts';
import type { ServiceInput } from './types.ts';

/*
 * Reads of what owners set and which services are delisted, for the writers (data/services.ts) and the detail answer
 * (data/service-detail.ts). This module imports no writer, so no writer reads back through one that imports it.
 */

/** The fields an owner may set; each one set wins over directory data. */
export const OWNER_FIELDS = ['name', 'description', 'category', 'main_endpoint', 'docs_url'] as const;
export type OwnerField = (typeof OWNER_FIELDS)[number];
export type OwnerEdits = { [K in OwnerField]: string | null };

const statements = preparedOnce({
  edits: `SELECT name, description, category, main_endpoint, docs_url FROM owner_edits WHERE service_id = ?`,
  verifiedAt: `SELECT verified_at FROM owner_keys WHERE service_id = ?`,
  delisted: `SELECT 1 FROM delisted_services WHERE service_id = ?`,
});

/** What the owner of a service set (a field never set is null), or null when they set nothing. */
export function getOwnerEdits(db: DB, id: string): OwnerEdits | null {
  return (statements(db).edits.get(id) as OwnerEdits | undefined) ?? null;
}

/** Whether the service was delisted by its owner or an operator (and not relisted since). */
export function isDelisted(db: DB, id: string): boolean {
  return statements(db).delisted.get(id) !== undefined;
}

/**
 * A service as directories describe it, with what its owner set in their place: name, description and category, and
 * the main endpoint while it is still one of the listed endpoints (its price with it).
 * @example upsertService(db, withOwnerEdits(db, found), now)
 */
export function withOwnerEdits(db: DB, input: ServiceInput): ServiceInput {
  const edits = getOwnerEdits(db, input.id);
  if (!edits) return input;
  const main = edits.main_endpoint === null ? undefined : input.endpoints.find((e) => e.url === edits.main_endpoint);
  return {
    ...input,
    name: edits.name ?? input.name,
    description: edits.description ?? input.description,
    category: edits.category ?? input.category,
    ...(main ? { endpoint: main.url, price: main.price } : {}),
  };
}

/**
 * What the detail answer says of the owner: when they verified control of the host, the docs link they gave, and the
 * fields they set; null when no owner ever verified.
 */
export function getOwnerView(db: DB, id: string): OwnerView | null {
  const verified = statements(db).verifiedAt.get(id) as { verified_at: string } | undefined;
  if (!verified) return null;
  const edits = getOwnerEdits(db, id);
  return {
    verified_at: verified.verified_at,
    docs_url: edits?.docs_url ?? null,
    edited: edits ? OWNER_FIELDS.filter((field) => edits[field] !== null) : [],
  };
}
