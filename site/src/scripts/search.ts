import type { ServiceList } from '../../../domain/schemas.ts';
import {
  HOME_PAGE_SIZE, isFilteredQuery, readHomeQuery, SELECT_FACETS, toCountsText, toHomeHref, toHomePager, toHomeTitle, toListParams, toStatus,
  type Facet, type HomeQuery,
} from '../lib/home-query.ts';
import { toHomeRow } from '../lib/home-row.ts';
import { toPageTitle } from '../lib/site.ts';
import { toRowElement } from './row.ts';

/**
 * The home page's enhancement: the form, the filter links and the pager load results from
 * `GET /api/v1/services` instead of a new page, and the address bar and the title follow, so the back button and
 * a reload give the same view (rendered by the server). Every value from the API goes in as text, never as markup.
 */
const DEBOUNCE_MS = 250;

export function enhanceSearch(doc: Document = document): void {
  const form = doc.querySelector<HTMLFormElement>('form.search');
  const list = doc.getElementById('results');
  const status = doc.getElementById('results-status');
  const pager = doc.getElementById('results-pager');
  if (!form || !list || !status || !pager) return;
  const pageSize = Number(form.dataset.pageSize) || HOME_PAGE_SIZE;
  let inFlight: AbortController | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** A load that should add a history entry and was superseded before it answered passes that on. */
  let pushPending = false;

  /** The form read as its submission is, by the same lenient rules (a negative or unreadable price is no limit). */
  const readForm = (offset = 0): HomeQuery => {
    const params = new URLSearchParams();
    new FormData(form).forEach((value, name) => {
      if (typeof value === 'string') params.append(name, value);
    });
    return { ...readHomeQuery(params), offset };
  };

  const writeForm = (query: HomeQuery) => {
    const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
    const q = field('q');
    if (q) q.value = query.q;
    for (const name of SELECT_FACETS) {
      const select = field(name) as HTMLSelectElement | null;
      if (select) select.value = query[name];
    }
    const price = field('max_price_usd');
    if (price) price.value = query.max_price_usd === null ? '' : String(query.max_price_usd);
    const sort = field('sort');
    if (sort) sort.value = query.sort;
    const live = field('live') as HTMLInputElement | null;
    if (live) live.checked = query.live;
  };

  const load = async (query: HomeQuery, history: 'push' | 'replace' | 'none') => {
    // Every load reads the whole form, so a search still waiting for the typing to pause is part of this one.
    clearTimeout(timer);
    pushPending = history === 'none' ? false : pushPending || history === 'push';
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    const params = toListParams(query, pageSize);
    form.setAttribute('aria-busy', 'true');
    try {
      const response = await fetch(`/api/v1/services?${params}`, { signal: controller.signal, headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`the list API answered HTTP ${response.status}`);
      const body = (await response.json()) as ServiceList;
      render(query, body);
      const href = toHomeHref(query);
      if (pushPending) window.history.pushState(null, '', href);
      else if (history === 'replace') window.history.replaceState(null, '', href);
      pushPending = false;
    } catch (error) {
      if (controller.signal.aborted) return;
      setStatus(`Could not load results: ${error instanceof Error ? error.message : 'network error'}. Press Search to load the page instead.`, '');
      form.dataset.enhanced = 'off';
    } finally {
      if (inFlight === controller) form.removeAttribute('aria-busy');
    }
  };

  const setStatus = (line: string, counts: string) => {
    const [first, second] = status.querySelectorAll('p');
    if (first) first.textContent = line;
    if (second) second.textContent = counts;
  };

  /** A filter value as its facet link labels it, as the server's title does. */
  const labelOf = (facet: Facet, value: string) =>
    [...form.querySelectorAll<HTMLAnchorElement>('a[data-facet]')]
      .find((link) => link.dataset.facet === facet && link.dataset.value === value)?.textContent ?? undefined;

  const render = (query: HomeQuery, body: ServiceList) => {
    const filtered = isFilteredQuery({ ...query, offset: 0 });
    doc.title = toPageTitle(toHomeTitle({ ...query, offset: body.page.offset }, labelOf));
    const from = body.page.offset + 1;
    const to = body.page.offset + body.services.length;
    setStatus(toStatus(body.counts.total, from, to, filtered), `${toCountsText(body.counts)}${filtered ? ' match' : ' in the index'}`);
    list.replaceChildren(...body.services.map((service) => toRowElement(doc, toHomeRow(service))));
    const listed = { total: body.counts.total, more: body.page.next_offset !== null, shown: body.services.length, sort: body.page.sort };
    pager.replaceChildren(...toHomePager({ ...query, offset: body.page.offset }, listed, pageSize)
      .map((item) => (item.href ? toLink(doc, item.href, item.text, item.rel ?? undefined) : toText(doc, 'span', item.text))));
    for (const link of form.querySelectorAll<HTMLAnchorElement>('a[data-facet]')) {
      const name = link.dataset.facet as Facet;
      const selected = query[name] === link.dataset.value;
      if (selected) link.setAttribute('aria-current', 'true');
      else link.removeAttribute('aria-current');
      link.href = toHomeHref({ ...query, offset: 0, [name]: selected ? '' : link.dataset.value });
    }
  };

  const enhanced = () => form.dataset.enhanced !== 'off';

  form.addEventListener('submit', (event) => {
    if (!enhanced()) return;
    event.preventDefault();
    void load(readForm(), 'push');
  });
  form.addEventListener('change', (event) => {
    if (!enhanced() || (event.target as HTMLElement).getAttribute('name') === 'q') return;
    void load(readForm(), 'push');
  });
  form.addEventListener('input', (event) => {
    if (!enhanced() || (event.target as HTMLElement).getAttribute('name') !== 'q') return;
    clearTimeout(timer);
    timer = setTimeout(() => void load(readForm(), 'replace'), DEBOUNCE_MS);
  });
  doc.addEventListener('click', (event) => {
    const link = (event.target as HTMLElement).closest?.('a');
    if (!link || !enhanced() || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    const inForm = form.contains(link) && link.dataset.facet !== undefined;
    const inPager = pager.contains(link) || link.classList.contains('clear');
    if (!inForm && !inPager) return;
    const url = new URL(link.href, window.location.href);
    if (url.origin !== window.location.origin || url.pathname !== '/') return;
    event.preventDefault();
    const query = readHomeQuery(url.searchParams);
    writeForm(query);
    void load(query, 'push');
  });
  window.addEventListener('popstate', () => {
    const query = readHomeQuery(new URLSearchParams(window.location.search));
    writeForm(query);
    void load(query, 'none');
  });
  form.dataset.enhanced = 'on';
}

function toText(doc: Document, tag: string, text: string, className?: string): HTMLElement {
  const element = doc.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  return element;
}

function toLink(doc: Document, href: string, text: string, rel?: string): HTMLAnchorElement {
  const link = doc.createElement('a');
  link.href = href;
  link.textContent = text;
  if (rel) link.rel = rel;
  return link;
}
