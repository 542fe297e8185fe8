import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readMppChallenges, readX402Body, readX402Header } from './challenge.ts';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/challenges/${name}`, import.meta.url), 'utf8').trim();
const V2_HEADER = fixture('x402-v2-payment-required-header.l402-space-x402-ping.txt');
const MPP_STRIPE = fixture('mpp-stripe-charge-www-authenticate.governance-taskhawktech-com.txt');
const MPP_TEMPO_SESSION = fixture('mpp-tempo-session-www-authenticate.openai-mpp-tempo-xyz.txt');
const request = Buffer.from(JSON.stringify({ amount: '10000', currency: 'usd' })).toString('base64url');

describe('readX402Header', () => {
  it('reads every accepts entry of the real header as an offer', () => {
    expect(readX402Header(V2_HEADER)).toEqual({
      valid: true,
      signal: 'x402-v2-header',
      notes: [],
      // The accepts as stated, for the index's Bazaar (/x402/discovery).
      x402: { x402Version: 2, accepts: [expect.objectContaining({ network: 'eip155:8453' }), expect.objectContaining({ scheme: 'exact' })] },
      offers: [
        {
          rail: 'x402',
          scheme: 'exact',
          chain: 'base',
          asset: 'USDC',
          price: { usd: 0.01, display: '$0.01 / call' },
          payTo: '0x85BdB78Ad4C39565F767da6733a071F86BAEDb6b',
          offer: expect.objectContaining({
            rail: 'x402', scheme: 'exact', method: null, network: 'eip155:8453', chain: 'base',
            amount: { atomic: '10000', decimal: '0.01' }, usd: 0.01, unit: 'call', is_maximum: false,
            pay_to: '0x85BdB78Ad4C39565F767da6733a071F86BAEDb6b', seen_in: 'challenge',
          }),
        },
        {
          rail: 'x402',
          scheme: 'exact',
          chain: 'solana',
          asset: 'USDC',
          price: { usd: 0.01, display: '$0.01 / call' },
          payTo: 'Bo4pBpFK9q897sH49ygiQz5HYywUfVpJMqP3vjwiJnv6',
          offer: expect.objectContaining({ chain: 'solana', asset: expect.objectContaining({ symbol: 'USDC' }), usd: 0.01 }),
        },
      ],
    });
  });

  it('drops whitespace around and inside the value (a folded header) and flags it', () => {
    expect(readX402Header(` ${V2_HEADER}\t`)).toMatchObject({ valid: true, notes: ['non-canonical base64'] });
    const folded = `${V2_HEADER.slice(0, 40)} ${V2_HEADER.slice(40, 80)}\r\n ${V2_HEADER.slice(80)}`;
    expect(readX402Header(folded)).toMatchObject({ valid: true, notes: ['non-canonical base64'] });
  });

  it.each([['a'], ['abcde'], ['ab$cd'], ['']])('refuses %j as unreadable', (value) => {
    expect(readX402Header(value)).toEqual({ valid: false, problem: 'unreadable-header' });
  });
});

describe('readX402Body', () => {
  it.each([[null], [[]], ['text'], [{ accepts: [{}] }], [{ x402Version: 3, accepts: [] }]])('%j says nothing of x402', (json) => {
    expect(readX402Body(json)).toEqual({ valid: false, problem: 'absent' });
  });

  it('keeps an unknown asset contract verbatim, with no price', () => {
    const accept = { scheme: 'exact', network: 'base', maxAmountRequired: '1', payTo: '0x1', asset: '0xdead' };
    expect(readX402Body({ x402Version: 1, accepts: [accept] })).toMatchObject({
      valid: true,
      offers: [{ chain: 'base', asset: '0xdead', price: { usd: null, display: null } }],
    });
  });
});

describe('readMppChallenges', () => {
  it('reads the real tempo session challenge', () => {
    expect(readMppChallenges(MPP_TEMPO_SESSION)).toEqual({
      valid: true,
      signal: 'mpp-header',
      notes: [],
      offers: [
        {
          rail: 'mpp',
          method: 'tempo',
          intent: 'session',
          chain: 'tempo',
          asset: 'USDC',
          price: { usd: 0.01, display: '$0.01 / call' },
          payTo: '0xca4e835F803cB0b7C428222B3A3B98518d4779Fe',
          // A session's amount is its price per unit, never a ceiling.
          offer: expect.objectContaining({ rail: 'mpp', scheme: 'session', method: 'tempo', usd: 0.01, is_maximum: false, seen_in: 'challenge' }),
        },
      ],
    });
  });

  /** The real tempo challenge with its decoded `request` edited, re-encoded as it was (base64url, no padding). */
  const withMethodDetails = (edit: (details: Record<string, unknown>) => void): string =>
    MPP_TEMPO_SESSION.replace(/request="([^"]+)"/, (_all, encoded: string) => {
      const decoded = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
      edit(decoded.methodDetails);
      return `request="${Buffer.from(JSON.stringify(decoded)).toString('base64url')}"`;
    });

  it('records no chain, asset symbol or price for a tempo challenge without chainId: it does not say which network', () => {
    const read = readMppChallenges(withMethodDetails((details) => delete details.chainId));
    expect(read).toMatchObject({ valid: true, offers: [{ rail: 'mpp', method: 'tempo', chain: null, asset: '0x20c000000000000000000000b9537d11c60e8b50', price: { usd: null } }] });
  });

  it('reads the tempo testnet from its chainId', () => {
    const read = readMppChallenges(withMethodDetails((details) => (details.chainId = 42431)));
    expect(read).toMatchObject({ valid: true, offers: [{ chain: 'tempo-testnet' }] });
  });

  it('splits joined challenges outside quoted strings, next to other schemes', () => {
    const tricky = `Payment id="x, Payment id=y", realm="a.test", method="stripe", intent="charge", description="say \\"Payment \\" here", request="${request}"`;
    const value = `Basic realm="x", ${tricky}, Bearer error="invalid_token", ${MPP_STRIPE}`;
    const read = readMppChallenges(value);
    expect(read).toMatchObject({ valid: true, notes: [] });
    expect(read.valid && read.offers.map((offer) => offer.price.usd)).toEqual([100, 0.5]);
  });

  it('keeps the valid challenges when one is malformed', () => {
    const read = readMppChallenges(`Payment id="a", realm="a.test", method="Tempo", intent="charge", request="${request}", ${MPP_STRIPE}`);
    expect(read).toMatchObject({ valid: true, notes: ['some Payment challenges are malformed'] });
    expect(read.valid && read.offers).toHaveLength(1);
  });

  it.each([['Bearer realm="a"'], ['PaymentRequired x=1'], ['Basic x="Payment id=1"']])('%s has no Payment challenge', (value) => {
    expect(readMppChallenges(value)).toEqual({ valid: false, problem: 'absent' });
  });
});
