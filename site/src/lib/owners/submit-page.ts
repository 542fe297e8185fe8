import type { SubmitResult } from '../../../../domain/schemas.ts';

/**
 * The /submit page's script: the form is sent to POST /api/v1/submit as JSON, and the answer links the submission's
 * status page. Every value shown is set as text, never as markup.
 * @example startSubmitPage(document, window.fetch.bind(window));
 */
export function startSubmitPage(document: Document, fetchFn: typeof fetch): void {
  const form = document.querySelector<HTMLFormElement>('#submit-form');
  const result = document.querySelector<HTMLElement>('#submit-result');
  if (!form || !result) return;
  form.hidden = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { endpoint: String(data.get('endpoint') ?? ''), name: String(data.get('name') ?? '') || null, contact: String(data.get('contact') ?? '') || null };
    const button = form.querySelector<HTMLButtonElement>('button');
    if (button) button.disabled = true;
    result.textContent = 'Sending…';
    void send(fetchFn, body).then((answer) => show(document, result, answer)).finally(() => {
      if (button) button.disabled = false;
    });
  });
}

type Answer = { ok: true; result: SubmitResult } | { ok: false; message: string };

async function send(fetchFn: typeof fetch, body: Record<string, string | null>): Promise<Answer> {
  try {
    const response = await fetchFn('/api/v1/submit', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await response.json();
    if (!response.ok) return { ok: false, message: json?.error?.message ?? `The index answered HTTP ${response.status}.` };
    return { ok: true, result: json as SubmitResult };
  } catch {
    return { ok: false, message: 'The index could not be reached. Try again in a moment.' };
  }
}

function show(document: Document, result: HTMLElement, answer: Answer): void {
  result.replaceChildren();
  const line = document.createElement('p');
  if (!answer.ok) {
    line.className = 'problem';
    line.setAttribute('role', 'alert');
    line.textContent = answer.message;
    result.append(line);
    return;
  }
  const { id, deduplicated, message } = answer.result;
  line.textContent = deduplicated ? 'This endpoint was submitted already; here is that submission. ' : 'Submitted. ';
  const link = document.createElement('a');
  link.href = `/submissions/${encodeURIComponent(id)}`;
  link.textContent = `Follow submission ${id}`;
  line.append(link);
  result.append(line);
  if (message) {
    const note = document.createElement('p');
    note.className = 'muted';
    note.textContent = message;
    result.append(note);
  }
}
