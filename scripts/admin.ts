/**
 * `npm run admin -- <command>`: an operator's commands on the database itself (DATABASE_PATH; no network surface).
 *   submissions [--status queued|listed|rejected]   the moderation queue, newest first
 *   approve <submission_id>                          list the submitted endpoint now
 *   reject <submission_id> --reason R                refuse it, the reason kept for the submitter
 *   delist <service_id> --reason R                   take a service out of the index until relisted
 *   relist <service_id>                              bring it back
 *   claims [--service ID]                            claims of hosts, newest first
 * A readable table by default, `--json` for JSON; both show invisible characters (controls, bidi) as `\uXXXX`, rows
 * written before text was cleaned included. Each action on a service is a change in the log. Exits 0 when done, 1 for
 * an unknown id or a refused action, 2 for bad arguments or a database it cannot open.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readConfig } from '../api/config.ts';
import { toSubmittedService } from '../crawler/submissions.ts';
import { listClaims } from '../data/claims.ts';
import { openDatabase, type DB } from '../data/db.ts';
import { approveSubmission, delistService, getDelisting, relistService } from '../data/owners.ts';
import { getSubmission, listSubmissions, rejectSubmission } from '../data/submissions.ts';
import { cleanText } from '../domain/text.ts';
import { toJsonText, toTable, toTerminalText } from './admin/table.ts';

const USAGE = 'usage: npm run admin -- submissions [--status S] | approve <submission_id> | reject <submission_id> --reason R | delist <service_id> --reason R | relist <service_id> | claims [--service ID]  (add --json for JSON)';
const STATUSES = ['queued', 'listed', 'rejected'] as const;

class UsageError extends Error {}
class RefusedError extends Error {}

interface Arguments {
  command: string;
  id: string | undefined;
  status: string | undefined;
  reason: string | undefined;
  service: string | undefined;
  json: boolean;
}

function readArguments(argv: string[]): Arguments {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { status: { type: 'string' }, reason: { type: 'string' }, service: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  const [command, id, ...rest] = positionals;
  if (!command) throw new UsageError('no command given');
  if (rest.length > 0) throw new UsageError(`unexpected argument(s): ${rest.join(' ')}`);
  return { command, id, status: values.status, reason: cleanText(values.reason ?? '').trim() || undefined, service: values.service, json: values.json };
}

type Output = { json: unknown; text: string };

function run(db: DB, args: Arguments): Output {
  const now = new Date().toISOString();
  const needId = (what: string) => args.id ?? fail(new UsageError(`${args.command} wants a ${what} id`));
  const needReason = () => args.reason ?? fail(new UsageError(`${args.command} wants --reason "…"`));
  switch (args.command) {
    case 'submissions': {
      if (args.status !== undefined && !(STATUSES as readonly string[]).includes(args.status)) {
        throw new UsageError(`--status must be one of ${STATUSES.join(', ')}; got "${args.status}"`);
      }
      const rows = listSubmissions(db, { status: args.status as (typeof STATUSES)[number] | undefined });
      return { json: rows, text: toTable(rows, ['id', 'status', 'attempts', 'endpoint', 'name', 'reason', 'created_at']) };
    }
    case 'approve': {
      const submission = findSubmission(db, needId('submission'));
      if (submission.status === 'listed') throw new RefusedError(`${submission.id} is listed already, as ${submission.service_id}`);
      const service = toSubmittedService(submission);
      if (!approveSubmission(db, submission.id, service, now)) throw new RefusedError(`${service.id} is delisted: relist it first`);
      return done({ submission: submission.id, status: 'listed', service_id: service.id }, `${submission.id} approved: listed as ${service.id}`);
    }
    case 'reject': {
      const submission = findSubmission(db, needId('submission'));
      if (submission.status === 'listed') throw new RefusedError(`${submission.id} is listed as ${submission.service_id}: delist the service instead`);
      const reason = needReason();
      rejectSubmission(db, submission.id, reason, now);
      return done({ submission: submission.id, status: 'rejected', reason }, `${submission.id} rejected: ${reason}`);
    }
    case 'delist': {
      const id = needId('service').toLowerCase();
      const reason = needReason();
      if (!delistService(db, id, { reason, by: 'operator', now })) {
        throw new RefusedError(getDelisting(db, id) ? `${id} is delisted already` : `no listed service with id "${id}"`);
      }
      return done({ service_id: id, status: 'delisted', reason }, `${id} delisted: ${reason}`);
    }
    case 'relist': {
      const id = needId('service').toLowerCase();
      if (!relistService(db, id, { by: 'operator', now })) throw new RefusedError(`no delisted service with id "${id}"`);
      return done({ service_id: id, status: 'listed' }, `${id} relisted`);
    }
    case 'claims': {
      const rows = listClaims(db, { service: args.service?.toLowerCase() });
      return { json: rows, text: toTable(rows, ['id', 'service_id', 'status', 'attempts', 'client', 'created_at', 'expires_at', 'last_result']) };
    }
    default:
      throw new UsageError(`unknown command "${args.command}"`);
  }
}

function findSubmission(db: DB, id: string) {
  return getSubmission(db, id) ?? fail(new RefusedError(`no submission with id "${id}"`));
}

function done(json: Record<string, unknown>, text: string): Output {
  return { json, text };
}

function fail(error: Error): never {
  throw error;
}

/** Opens an existing database only: an operator's typo in DATABASE_PATH must not create an empty index. */
function openExisting(path: string): DB {
  if (path !== ':memory:' && !existsSync(path)) throw new UsageError(`cannot open the database at ${path}: no such file (set DATABASE_PATH)`);
  try {
    return openDatabase(path);
  } catch (error) {
    throw new UsageError(`cannot open the database at ${path}: ${error instanceof Error ? error.message : error}`);
  }
}

try {
  const args = readArguments(process.argv.slice(2));
  const db = openExisting(readConfig(process.env).databasePath);
  try {
    const output = run(db, args);
    console.log(args.json ? toJsonText(output.json) : toTerminalText(output.text));
  } finally {
    db.close();
  }
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RefusedError) {
    console.error(`admin: ${toTerminalText(message)}`);
    process.exitCode = 1;
  } else {
    console.error(`admin: ${toTerminalText(message)}\n${USAGE}`);
    process.exitCode = 2;
  }
}
