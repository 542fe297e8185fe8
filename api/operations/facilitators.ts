import type { FacilitatorList } from '../../domain/facilitators.ts';
import { listFacilitators } from '../../data/facilitators.ts';
import { listFacilitatorsDeclaration } from '../declarations/facilitators.ts';
import { defineOperation } from '../operation.ts';

/** The facilitator directory: every facilitator the index has seen, what its `/supported` answered, who names it. */
export const listFacilitatorsOperation = defineOperation(listFacilitatorsDeclaration, (_input, { deps }) => ({ generated_at: deps.now().toISOString(), facilitators: listFacilitators(deps.db) }) satisfies FacilitatorList);
