/**
 * The words for a check's result, declared once: the listing page, the home rows and the client script all
 * show these. The meaning follows the spec's liveness rule (a 402, a payment-challenge header or body).
 */
export type ResultKind = 'ok' | 'bad' | 'none';

export interface CheckResult {
  kind: ResultKind;
  text: 'Challenge detected' | 'No challenge detected' | 'Not checked yet';
}

export const CHALLENGE_DETECTED: CheckResult = { kind: 'ok', text: 'Challenge detected' };
export const NO_CHALLENGE: CheckResult = { kind: 'bad', text: 'No challenge detected' };
export const NOT_CHECKED: CheckResult = { kind: 'none', text: 'Not checked yet' };

/**
 * The result of the last check from a service's `live` (true, false, or null when not yet probed).
 * @example toCheckResult(null).text // 'Not checked yet'
 */
export function toCheckResult(live: boolean | null): CheckResult {
  if (live === null) return NOT_CHECKED;
  return live ? CHALLENGE_DETECTED : NO_CHALLENGE;
}
