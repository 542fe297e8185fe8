import { Webhook } from 'standardwebhooks';
import { request, type Dispatcher } from 'undici';
import { assertPublicUrl, TargetError, type AllowList } from '../net/guard.ts';

/** A receiver has this long to answer a delivery (DESIGN.md: a 2xx within 10 s is delivered). */
export const DELIVERY_TIMEOUT_MS = 10_000;

export const DELIVERY_USER_AGENT = 'payable-service-index-webhooks/1.0';

/** One delivery as it is sent: the same message id and payload on every attempt. */
export interface Message {
  url: string;
  secret: string;
  message_id: string;
  payload: string;
}

export interface SendResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** The receiver gave no answer within DELIVERY_TIMEOUT_MS. */
  timedOut: boolean;
}

/**
 * Sends one delivery, signed as Standard Webhooks says (`webhook-id`, `webhook-timestamp`, `webhook-signature`), and
 * answers whether it was delivered (a 2xx within DELIVERY_TIMEOUT_MS). Never throws. A literal private address is
 * refused here; a host name is checked at connect time by the dispatcher's guarded lookup (net/guard.ts), so
 * a receiver whose name later resolves to a private address gets nothing. Redirects are not followed.
 * @example await sendMessage(message, { dispatcher: createProbeAgent({ allow }).dispatcher, allow })
 */
export async function sendMessage(message: Message, options: { dispatcher: Dispatcher; allow: AllowList }): Promise<SendResult> {
  try {
    await assertPublicUrl(message.url, { allow: options.allow, resolve: false });
    // Signed with the time of sending: receivers refuse a timestamp far from their own clock.
    const sentAt = new Date();
    const signature = new Webhook(message.secret).sign(message.message_id, sentAt, message.payload);
    const response = await request(message.url, {
      method: 'POST',
      dispatcher: options.dispatcher,
      headers: {
        'content-type': 'application/json',
        'user-agent': DELIVERY_USER_AGENT,
        'webhook-id': message.message_id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: message.payload,
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await response.body.dump({ limit: 64 * 1024 });
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return { ok, status: response.statusCode, error: ok ? null : `answered ${response.statusCode}`, timedOut: false };
  } catch (error) {
    const timedOut = isTimeout(error);
    return { ok: false, status: null, error: timedOut ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : describe(error), timedOut };
  }
}

const isTimeout = (error: unknown): boolean => error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');

function describe(error: unknown): string {
  if (error instanceof TargetError) return error.message;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof TargetError) return cause.message;
  const text = error instanceof Error ? (error as { code?: string }).code ?? error.message : String(error);
  return `could not connect (${text})`.slice(0, 200);
}
