/**
 * `/sitemap.xml`: the home page, the documents and every listing page, as absolute URLs.
 * @example toSitemapXml('https://index.example', ['api-example-com'])
 */
export function toSitemapXml(siteUrl: string, serviceIds: readonly string[]): string {
  const paths = ['/', '/docs', '/pricing', '/docs/purchase', '/submit', '/owners', '/pricing.md', '/docs/purchase.md', '/llms.txt', ...serviceIds.map((id) => `/services/${id}`)];
  const urls = paths.map((path) => `  <url><loc>${escapeXml(`${siteUrl}${path}`)}</loc></url>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`;
}

/** Text safe inside XML element content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (char) => `&#${char.charCodeAt(0)};`);
}
