import { FacilitatorList } from '../../domain/facilitators.ts';
import { declareOperation } from '../declaration.ts';

/** The facilitator directory: every facilitator the index has seen, what its `/supported` answered, who names it. */
export const listFacilitatorsDeclaration = declareOperation({
  id: 'listFacilitators',
  method: 'GET',
  path: '/api/v1/facilitators',
  group: 'index',
  summary: 'Every facilitator the index has seen (in challenges, directories or its configuration), checked at most hourly at GET {url}/supported: whether it answered, its kinds (x402Version, scheme, network), extensions, and how many listed services name it.',
  input: {},
  output: FacilitatorList,
  errors: {},
  examples: () => [{}],
});
