import { IndexStatus } from '../../domain/schemas.ts';
import { declareOperation } from '../declaration.ts';

/** The crawler's own status: what its last passes did, and whether this machine reaches the services at all. */
export const getStatusDeclaration = declareOperation({
  id: 'getStatus',
  method: 'GET',
  path: '/api/v1/status',
  group: 'index',
  summary: 'The last probe and discovery passes (when, how long, counts by outcome), each directory read (endpoints, error), and offline: true when the last probe pass reached none of the services.',
  input: {},
  output: IndexStatus,
  errors: {},
  tool: { name: 'get_status', title: 'Status of the crawler', readOnly: true },
  examples: () => [{}],
});
