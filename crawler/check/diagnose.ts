/**
 * A check's verdict on one answer: every challenge it carries (x402 header, x402 body, each MPP Payment challenge),
 * decoded with its offers, and every problem found, each where it was found. Pure; `live` is the crawler's own
 * classifier (crawler/classify.ts), so a check and the index never disagree on whether an endpoint is live.
 */
import type { CheckChallenge, Problem } from '../../domain/check.ts';
import { classifyProbe, readHeader, type ProbeFacts } from '../classify.ts';
import { isTestnetOnly } from '../flags.ts';
import { diagnoseMpp } from './mpp.ts';
import { toProblem } from '../../domain/problems.ts';
import { diagnoseX402Body, diagnoseX402Header, type Diagnosis } from './x402.ts';

export interface AnswerDiagnosis {
  live: boolean;
  challenges: CheckChallenge[];
  problems: Problem[];
}

/**
 * Diagnoses what a probe of `requestedUrl` observed.
 * @example diagnoseAnswer({ outcome: 'answered', status: 200, headers: {}, body: '', truncatedAtBytes: null }, url, now).problems[0].code // 'no_challenge'
 */
export function diagnoseAnswer(facts: ProbeFacts, requestedUrl: string, now: Date): AnswerDiagnosis {
  const result = classifyProbe(facts);
  const diagnoses: Diagnosis[] = [];
  if (facts.outcome === 'answered' && facts.status === 402) {
    const paymentRequired = readHeader(facts.headers, 'payment-required');
    const wwwAuthenticate = readHeader(facts.headers, 'www-authenticate');
    if (paymentRequired !== null) diagnoses.push(diagnoseX402Header(paymentRequired, requestedUrl));
    diagnoses.push(diagnoseX402Body(facts.body, facts.truncatedAtBytes !== null, requestedUrl));
    if (wwwAuthenticate !== null) diagnoses.push(...diagnoseMpp(wwwAuthenticate, now));
  }
  const challenges = diagnoses.flatMap((diagnosis) => (diagnosis.challenge ? [diagnosis.challenge] : []));
  const problems = diagnoses.flatMap((diagnosis) => diagnosis.problems);
  if (!result.ok && !problems.some((problem) => problem.severity === 'error')) {
    const where = facts.outcome === 'answered' ? `status ${facts.status}` : 'connection';
    problems.unshift(toProblem('no_challenge', where, `No payment challenge: ${result.reason}.`));
  }
  if (result.ok) problems.push(...diagnoseLiveTerms(diagnoses));
  return { live: result.ok, challenges, problems };
}

/** What only a challenge the index accepts can show: test money only, or a challenge strict clients cannot read. */
function diagnoseLiveTerms(diagnoses: Diagnosis[]): Problem[] {
  const accepted = diagnoses.filter((diagnosis) => diagnosis.challenge?.valid);
  const problems: Problem[] = [];
  const chains = accepted.flatMap((diagnosis) => diagnosis.challenge!.offers.flatMap((offer) => (offer.chain === null ? [] : [offer.chain])));
  if (isTestnetOnly(chains)) {
    problems.push(toProblem('testnet_only', 'offers', `Every network offered is a testnet (${[...new Set(chains)].join(', ')}): nobody can pay real money.`));
  }
  if (accepted.length > 0 && accepted.every((diagnosis) => diagnosis.lenient)) {
    const where = accepted.map((diagnosis) => diagnosis.challenge!.signal).join(', ');
    problems.push(toProblem('lenient_only', where, 'The challenge decodes only leniently (base64 not canonical, x402Version as a string, or x402 v2 in the body only): strict clients such as @x402/core will not read it.'));
  }
  return problems;
}
