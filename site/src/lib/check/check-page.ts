import type { CheckResult } from '../../../../domain/check.ts';
import type { Offer } from '../../../../domain/schemas.ts';

/**
 * The /check page's script: the form is sent to POST /api/v1/check as JSON, and the answer is shown as lists of
 * problems (with where and fix), challenges with their offers, discovery documents, and the listing. Every value
 * shown is third-party text set as text, never as markup.
 * @example startCheckPage(document, window.fetch.bind(window));
 */
export function startCheckPage(document: Document, fetchFn: typeof fetch): void {
  const form = document.querySelector<HTMLFormElement>('#check-form');
  const result = document.querySelector<HTMLElement>('#check-result');
  if (!form || !result) return;
  form.hidden = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const method = String(data.get('method') ?? '');
    const body = { url: String(data.get('url') ?? ''), ...(method ? { method } : {}) };
    const button = form.querySelector<HTMLButtonElement>('button');
    if (button) button.disabled = true;
    result.textContent = 'Checking…';
    void send(fetchFn, body).then((answer) => show(document, result, answer)).finally(() => {
      if (button) button.disabled = false;
    });
  });
}

type Answer = { ok: true; result: CheckResult } | { ok: false; message: string };

async function send(fetchFn: typeof fetch, body: Record<string, string>): Promise<Answer> {
  try {
    const response = await fetchFn('/api/v1/check', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await response.json();
    if (!response.ok) return { ok: false, message: json?.error?.message ?? `The index answered HTTP ${response.status}.` };
    return { ok: true, result: json as CheckResult };
  } catch {
    return { ok: false, message: 'The index could not be reached. Try again in a moment.' };
  }
}

/** An element with its text, children appended. */
function make(document: Document, tag: string, text?: string, ...children: Node[]): HTMLElement {
  const element = document.createElement(tag);
  if (text !== undefined) element.textContent = text;
  element.append(...children);
  return element;
}

function toOfferText(offer: Offer): string {
  const price = offer.amount.decimal === null ? 'price unknown' : `${offer.is_maximum ? 'up to ' : ''}${offer.usd === null ? offer.amount.decimal : `$${offer.usd}`} / ${offer.unit}`;
  const terms = [offer.scheme, offer.method, offer.asset.symbol, offer.chain ? `on ${offer.chain}` : null].filter(Boolean).join(' ');
  return `${offer.rail}: ${price} (${terms})${offer.pay_to ? `, paid to ${offer.pay_to}` : ''}`;
}

function show(document: Document, result: HTMLElement, answer: Answer): void {
  result.replaceChildren();
  if (!answer.ok) {
    const line = make(document, 'p', answer.message);
    line.className = 'problem';
    line.setAttribute('role', 'alert');
    result.append(line);
    return;
  }
  const check = answer.result;
  const status = check.status_code === null ? 'no HTTP answer' : `HTTP ${check.status_code} in ${check.latency_ms} ms`;
  const verdict = check.live ? 'Live: it answers a payment challenge the index accepts.' : 'Not live: the index finds no challenge it accepts.';
  result.append(make(document, 'h2', 'Result'), make(document, 'p', `${check.url}: ${status}. ${verdict}`));
  result.append(make(document, 'h3', `Problems (${check.problems.length})`));
  result.append(check.problems.length === 0 ? make(document, 'p', 'None found.') : make(document, 'ul', undefined, ...check.problems.map((problem) =>
    make(document, 'li', undefined, make(document, 'strong', `${problem.severity}: ${problem.code}`), make(document, 'span', ` at ${problem.where}. ${problem.message} Fix: ${problem.fix}`)))));
  result.append(make(document, 'h3', `Challenges (${check.challenges.length})`));
  result.append(make(document, 'ul', undefined, ...check.challenges.map((challenge) =>
    make(document, 'li', `${challenge.signal}, ${challenge.valid ? 'valid' : 'not valid'}`, make(document, 'ul', undefined, ...challenge.offers.map((offer) => make(document, 'li', toOfferText(offer))))))));
  result.append(make(document, 'h3', 'Discovery documents'));
  result.append(make(document, 'ul', undefined, ...Object.values(check.discovery).map((doc) =>
    make(document, 'li', `${doc.url}: ${doc.found ? (doc.valid ? `valid, ${doc.offers.length} prices` : `not valid (${doc.detail})`) : `not found (${doc.detail})`}`))));
  const listing = make(document, 'p');
  if (check.listed) {
    const link = make(document, 'a', check.listed.service_id) as HTMLAnchorElement;
    link.href = `/services/${encodeURIComponent(check.listed.service_id)}`;
    listing.append('Listed as ', link, check.listed.flags.length > 0 ? `, flagged ${check.listed.flags.join(', ')}.` : '.');
  } else {
    const link = make(document, 'a', 'Submit it') as HTMLAnchorElement;
    link.href = '/submit';
    listing.append('The index does not list this host. ', link, '.');
  }
  result.append(listing);
}
