import { listChanges } from '../../data/changes.ts';
import { getService } from '../../data/service-read.ts';
import type { ChangeList, ChangeType } from '../../domain/schemas.ts';
import { listChangesDeclaration, listServiceChangesDeclaration } from '../declarations/changes.ts';
import { apiError } from '../errors.ts';
import { defineOperation } from '../operation.ts';

/** The change log (DESIGN.md "Changes, feeds, webhooks, badges"): what the index saw change, oldest first, by cursor. */

interface PageInput { after?: string; service?: string; type?: ChangeType[]; limit: number }

function toPage(deps: { db: Parameters<typeof listChanges>[0]; now: () => Date }, query: PageInput): ChangeList {
  const page = listChanges(deps.db, { after: query.after, service: query.service, types: query.type, limit: query.limit });
  return { generated_at: deps.now().toISOString(), ...page };
}

export const listChangesOperation = defineOperation(listChangesDeclaration, ({ query }, { deps }) => toPage(deps, query));

export const listServiceChangesOperation = defineOperation(listServiceChangesDeclaration, ({ path, query }, { deps }) => {
  const id = path.id.toLowerCase();
  if (!getService(deps.db, id)) throw apiError(404, 'not_found', `No service with id "${id.slice(0, 100)}". Find ids at /api/v1/services.`);
  return toPage(deps, { ...query, service: id });
});
