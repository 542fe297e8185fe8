/**
 * `/robots.txt`: pages are open to crawlers; the API (JSON for agents) and purchase approval pages are not,
 * and the sitemap is named.
 * @example toRobotsTxt('https://index.example')
 */
export function toRobotsTxt(siteUrl: string): string {
  return ['User-agent: *', 'Allow: /', 'Disallow: /api/', 'Disallow: /purchase/', '', `Sitemap: ${siteUrl}/sitemap.xml`, ''].join('\n');
}
