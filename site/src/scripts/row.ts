import type { HomeRowView } from '../lib/home-row.ts';

/**
 * The markup of site/src/components/ServiceRow.astro (and ResultBadge, UptimeBar), built from text nodes with
 * directory text in <bdi>s: a row from the list API reads exactly as one rendered by the server.
 * @example list.replaceChildren(...services.map((service) => toRowElement(document, toHomeRow(service))));
 */
export function toRowElement(doc: Document, row: HomeRowView): HTMLLIElement {
  const item = doc.createElement('li');
  const who = toElement(doc, 'div', 'who');
  const name = doc.createElement('a');
  name.className = 'name';
  name.href = row.href;
  if (row.nameTitle) name.title = row.nameTitle;
  name.append(toText(doc, 'bdi', row.name));
  const host = toElement(doc, 'span', 'host', row.hostTitle);
  host.append(toText(doc, 'bdi', row.host));
  who.append(name, ' ', host);
  if (row.description) {
    const description = toElement(doc, 'p', 'desc', row.descriptionTitle);
    description.append(toText(doc, 'bdi', row.description));
    who.append(description);
  }
  const result = toElement(doc, 'div', 'result');
  result.append(toText(doc, 'span', row.result.text, `badge ${row.result.kind}`));
  if (row.flags) {
    const marker = doc.createElement('a');
    marker.className = 'flag-marker';
    marker.href = `${row.href}#flags`;
    marker.title = row.flags.title;
    marker.textContent = row.flags.text;
    result.append(marker);
  }
  item.append(who, ' ', result, ' ', toFigures(doc, row), ' ', toChips(doc, row));
  return item;
}

function toFigures(doc: Document, row: HomeRowView): HTMLElement {
  const figures = toElement(doc, 'div', 'figures');
  const price = toElement(doc, 'span', 'fig fig-price');
  const priceText = toText(doc, 'span', row.price, 'price');
  if (row.priceTitle) priceText.title = row.priceTitle;
  price.append(toText(doc, 'span', 'Price ', 'label'), priceText);
  const uptime = toElement(doc, 'span', 'uptime');
  const uptimeText = doc.createElement('span');
  uptimeText.append(toText(doc, 'span', '30-day uptime ', 'label'), row.uptime?.text ?? 'no checks yet');
  if (row.uptime) uptime.append(toBar(doc, row.uptime.ratio, row.uptime.low));
  uptime.append(uptimeText);
  const latency = toElement(doc, 'span', 'fig latency');
  latency.append(toText(doc, 'span', 'Median ', 'label'), row.latency ?? '—');
  figures.append(price, ' ', uptime, ' ', latency);
  return figures;
}

function toChips(doc: Document, row: HomeRowView): HTMLElement {
  const chips = toElement(doc, 'div', 'chips');
  for (const chip of row.chips) chips.append(toText(doc, 'bdi', chip.text, `chip ${chip.kind}`, chip.title));
  return chips;
}

const SVG = 'http://www.w3.org/2000/svg';

function toBar(doc: Document, ratio: number, low: boolean): SVGSVGElement {
  const svg = doc.createElementNS(SVG, 'svg');
  for (const [name, value] of [['class', 'uptime-bar'], ['viewBox', '0 0 100 8'], ['preserveAspectRatio', 'none'], ['aria-hidden', 'true'], ['focusable', 'false']]) {
    svg.setAttribute(name!, value!);
  }
  const rect = (className: string, width: string) => {
    const element = doc.createElementNS(SVG, 'rect');
    for (const [name, value] of [['class', className], ['width', width], ['height', '8'], ['rx', '4']]) element.setAttribute(name!, value!);
    return element;
  };
  svg.append(rect('track', '100'), rect(low ? 'fill low' : 'fill', (ratio * 100).toFixed(1)));
  return svg;
}

function toElement(doc: Document, tag: string, className: string, title?: string | null): HTMLElement {
  const element = doc.createElement(tag);
  element.className = className;
  if (title) element.title = title;
  return element;
}

function toText(doc: Document, tag: string, text: string, className?: string, title?: string | null): HTMLElement {
  const element = doc.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  if (title) element.title = title;
  return element;
}
