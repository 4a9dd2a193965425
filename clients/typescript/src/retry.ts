/**
 * Retries on 429 (docs/writes-keys-limits.md, "Rate limits"): a `fetch` that, on a 429 answer, waits the
 * `Retry-After` the service sent and sends the same request again, a bounded number of times. A 429 is
 * refused before the request runs (it takes no idempotency key), so resending a write is safe.
 */

/** Waits `ms` milliseconds; injectable so tests can check the requested wait without sleeping. */
export type Sleep = (ms: number) => Promise<void>;

/** What a retry waited for, given to `onRetry` before each wait. */
export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  /** The `Retry-After` of the 429, in seconds. */
  retryAfterSeconds: number;
  /** The method and URL of the request. */
  method: string;
  url: string;
}

export interface RetryOptions {
  /** Retries after a 429 at most this many times (default 3); then the 429 is the answer. */
  maxRetries?: number;
  /** A `Retry-After` longer than this (seconds, default 60) is not waited for: the 429 is the answer. */
  maxRetryAfterSeconds?: number;
  /** Default: a timer. */
  sleep?: Sleep;
  onRetry?: (info: RetryInfo) => void;
}

type Fetch = (input: Parameters<typeof fetch>[0], init?: RequestInit) => Promise<Response>;

const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `Retry-After` in whole seconds from now: delta-seconds or an HTTP-date (RFC 9110, section 10.2.3);
 * undefined when absent or unreadable.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** `base` wrapped so that a 429 with a usable `Retry-After` is waited for and sent again (see RetryOptions). */
export function retryingFetch(base: Fetch, options: RetryOptions = {}): Fetch {
  const maxRetries = options.maxRetries ?? 3;
  const maxWait = options.maxRetryAfterSeconds ?? 60;
  const sleep = options.sleep ?? timerSleep;
  return async (input, init) => {
    // Each attempt sends a clone: a body can be read only once.
    const request = new Request(input, init);
    for (let attempt = 1; ; attempt++) {
      const response = await base(request.clone());
      if (response.status !== 429 || attempt > maxRetries) return response;
      const wait = retryAfterSeconds(response.headers.get('Retry-After'));
      if (wait === undefined || wait > maxWait) return response;
      await response.body?.cancel();
      options.onRetry?.({ attempt, retryAfterSeconds: wait, method: request.method, url: request.url });
      await sleep(wait * 1000);
    }
  };
}
