import { request, type Dispatcher } from 'undici';

/** Directory documents are read whole, up to this size. */
export const MAX_DIRECTORY_BYTES = 32 * 1024 * 1024;
/** A directory request gives up after this long. */
export const DIRECTORY_TIMEOUT_MS = 30_000;

/** Why a directory could not be read, in words a person understands. */
export class DirectoryError extends Error {
  override readonly name = 'DirectoryError';
  constructor(readonly url: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface FetchJsonOptions {
  dispatcher?: Dispatcher;
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * GETs a JSON document with a time limit and a size limit; throws a `DirectoryError` saying what went wrong.
 * @example const page = await fetchJson('https://mpp.dev/api/services');
 */
export async function fetchJson(url: string, options: FetchJsonOptions = {}): Promise<unknown> {
  const { timeoutMs = DIRECTORY_TIMEOUT_MS, maxBytes = MAX_DIRECTORY_BYTES } = options;
  const chunks: Buffer[] = [];
  try {
    const response = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'payable-service-index-crawler/1.0' },
      dispatcher: options.dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new DirectoryError(url, `answered ${response.statusCode}`);
    }
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        response.body.destroy();
        throw new DirectoryError(url, `document over ${Math.round(maxBytes / 1024 / 1024)} MiB`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof DirectoryError) throw error;
    const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
    throw new DirectoryError(url, timedOut ? `timed out after ${timeoutMs / 1000} s` : `unreachable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error });
  }
  try {
    // Decoded once: a character split between two chunks would otherwise turn into two replacement characters.
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (cause) {
    throw new DirectoryError(url, 'not JSON', { cause });
  }
}
