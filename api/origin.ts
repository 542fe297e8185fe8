import { isIPv6 } from 'node:net';
import type { H3Event } from 'h3';
import type { Config } from './config.ts';

/**
 * The origin the links an answer carries are built on (the purchase catalog, a purchase's approve_url): STAGING_URL,
 * else BASE_URL, else the address this server listens on, read from the socket's local end. Never the request's
 * Host header: those answers are cacheable (`Cache-Control: public`), so a forged Host would hand a shared cache
 * links to another site. A request made in process (no socket) gets the configured HOST and PORT.
 * @example toOwnOrigin(event, config) // 'http://127.0.0.1:4321'
 */
export function toOwnOrigin(event: H3Event, config: Config): string {
  const configured = config.stagingUrl ?? config.baseUrl;
  if (configured) return configured.replace(/\/+$/, '');
  const socket = event.req.runtime?.node?.req.socket;
  const address = (socket?.localAddress ?? config.host).replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return `http://${isIPv6(address) ? `[${address}]` : address}:${socket?.localPort ?? config.port}`;
}
