import type { IndexStatus } from '../../domain/schemas.ts';
import { getIndexStatus } from '../../data/crawl-status.ts';
import { getStatusDeclaration } from '../declarations/status.ts';
import { defineOperation } from '../operation.ts';

/** The crawler's own status: what its last passes did, and whether this machine reaches the services at all. */
export const getStatusOperation = defineOperation(getStatusDeclaration, (_input, { deps }) => getIndexStatus(deps.db, deps.now()) satisfies IndexStatus);
