import type { Submission } from '../../../../domain/schemas.ts';
import { formatUtc } from '../format.ts';

/** What happens next, for each status, in words. */
const NEXT: Record<Submission['status'], string> = {
  queued: 'The next crawl probes the endpoint (every few minutes while the index runs). A valid payment challenge lists it; after three failed crawls over at least a day it is rejected, with the reason.',
  listed: 'It is in the index. Its owner can claim it to edit or delist it: see /owners.',
  rejected: 'It was not listed. Fix what the reason says and submit it again.',
};

/**
 * The /submissions/{id} page's script: the submission is read from the API in the browser (it changes with every
 * crawl) and shown as text, never as markup.
 * @example startSubmissionPage(document, window.location, window.fetch.bind(window));
 */
export async function startSubmissionPage(document: Document, location: Location, fetchFn: typeof fetch): Promise<void> {
  const facts = document.querySelector<HTMLElement>('#submission-facts');
  const problem = document.querySelector<HTMLElement>('#submission-problem');
  if (!facts || !problem) return;
  const id = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] ?? '');
  if (!id) {
    problem.textContent = 'No submission id in the address: it looks like /submissions/sub_….';
    return;
  }
  try {
    const response = await fetchFn(`/api/v1/submissions/${encodeURIComponent(id)}`, { headers: { accept: 'application/json' } });
    const json = await response.json();
    if (!response.ok) {
      problem.textContent = json?.error?.message ?? `The index answered HTTP ${response.status}.`;
      return;
    }
    show(document, facts, json as Submission);
  } catch {
    problem.textContent = 'The index could not be reached. Reload the page in a moment.';
  }
}

function show(document: Document, facts: HTMLElement, submission: Submission): void {
  const rows: Array<[string, string | HTMLElement]> = [
    ['Endpoint', submission.endpoint],
    ['Status', submission.status],
    ['Crawls that probed it', String(submission.attempts)],
    ['Reason', submission.reason ?? '—'],
    ['Submitted', formatUtc(submission.created_at) ?? submission.created_at],
    ['Last change', formatUtc(submission.updated_at) ?? submission.updated_at],
  ];
  if (submission.service_id) {
    const link = document.createElement('a');
    link.href = `/services/${encodeURIComponent(submission.service_id)}`;
    link.textContent = submission.service_id;
    rows.push(['Listed as', link]);
  }
  rows.push(['What happens next', NEXT[submission.status]]);
  facts.replaceChildren(...rows.flatMap(([term, value]) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.className = 'break';
    if (typeof value === 'string') dd.textContent = value;
    else dd.append(value);
    return [dt, dd];
  }));
  facts.hidden = false;
}
