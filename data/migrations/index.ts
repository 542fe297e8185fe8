import * as init from './001-init.ts';
import * as crawl from './002-crawl.ts';
import * as purchases from './003-purchases.ts';
import * as listIndexes from './004-list-indexes.ts';
import * as serviceDetails from './005-service-details.ts';
import * as submissionKeys from './006-submission-keys.ts';
import * as detailRevisions from './007-detail-revisions.ts';
import * as tallies from './008-tallies.ts';
import * as richerLists from './009-richer-lists.ts';
import * as changes from './010-changes.ts';
import * as interruptedRuns from './011-interrupted-runs.ts';
import * as flagsAndEndpointChecks from './012-flags-and-endpoint-checks.ts';
import * as webhooks from './013-webhooks.ts';
import * as owners from './014-owners.ts';
import * as probeTimes from './015-probe-times.ts';
import * as claimSecrets from './016-claim-secrets.ts';
import * as facilitators from './017-facilitators.ts';
import * as qualityOrder from './018-quality-order.ts';
import * as endpoints from './019-endpoints.ts';
import * as endpointSearch from './020-endpoint-search.ts';
import * as endpointKeys from './021-endpoint-keys.ts';
import * as searchTexts from './022-search-texts.ts';
import * as discoveryListing from './023-discovery-listing.ts';
import * as serviceInputDigest from './024-service-input-digest.ts';
import type { DB } from '../db.ts';

/**
 * Every migration in order; the position + 1 is the schema version it brings the database to. `backfill`, when
 * given, runs after `up` in the same transaction, for what SQL alone cannot compute.
 */
export const migrations: ReadonlyArray<{ name: string; up: string; backfill?: (db: DB) => void }> = [
  { name: '001-init', ...init },
  { name: '002-crawl', ...crawl },
  { name: '003-purchases', ...purchases },
  { name: '004-list-indexes', ...listIndexes },
  { name: '005-service-details', ...serviceDetails },
  { name: '006-submission-keys', ...submissionKeys },
  { name: '007-detail-revisions', ...detailRevisions },
  { name: '008-tallies', ...tallies },
  { name: '009-richer-lists', ...richerLists },
  { name: '010-changes', ...changes },
  { name: '011-interrupted-runs', ...interruptedRuns },
  { name: '012-flags-and-endpoint-checks', ...flagsAndEndpointChecks },
  { name: '013-webhooks', ...webhooks },
  { name: '014-owners', ...owners },
  { name: '015-probe-times', ...probeTimes },
  { name: '016-claim-secrets', ...claimSecrets },
  { name: '017-facilitators', ...facilitators },
  { name: '018-quality-order', ...qualityOrder },
  { name: '019-endpoints', ...endpoints },
  { name: '020-endpoint-search', ...endpointSearch },
  { name: '021-endpoint-keys', ...endpointKeys },
  { name: '022-search-texts', ...searchTexts },
  { name: '023-discovery-listing', ...discoveryListing },
  { name: '024-service-input-digest', ...serviceInputDigest },
];
