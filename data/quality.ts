/**
 * The quality order (DESIGN "Honest, ranked answers"), the default of every list and the tie-break of `relevance`:
 * live first; then services without flags; then 30-day uptime, highest first, unknown last; then how many kinds of
 * directory list the service, most first; then the list's own id. Migration 018 indexes these keys over `services`
 * exactly as written here, so the services list reads a page in this order without a sort.
 */

/**
 * The ORDER BY of the quality keys over the services row `service`, ending in `id` (another list's own id, such
 * as an endpoint's, after its service's keys).
 * @example toQualityOrder('s') // "s.live_rank, s.flags <> '[]', s.uptime_30d IS NULL, s.uptime_30d DESC, json_array_length(s.sources) DESC, s.id"
 */
export function toQualityOrder(service: string, id = `${service}.id`): string {
  return `${service}.live_rank, ${service}.flags <> '[]', ${service}.uptime_30d IS NULL, ${service}.uptime_30d DESC, `
    + `json_array_length(${service}.sources) DESC, ${id}`;
}
