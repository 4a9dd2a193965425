/**
 * One HTTP POST of a delivery attempt (docs/webhooks.md, "Address rules"): to the address that was checked (the
 * socket connects there whatever DNS says now; SNI and `Host` stay the URL's host), no redirects
 * followed, one deadline for the whole exchange.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export interface PostResult {
  status: number;
  /** The `Retry-After` header, when sent. */
  retryAfter: string | undefined;
}

/**
 * POSTs `body` and reads the whole answer within `timeoutMs`.
 * @throws Error (message for the delivery log) on a network error or the deadline.
 */
export function postTo(
  url: URL,
  address: { address: string; family: number },
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<PostResult> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve, reject) => {
    let done = false;
    const finish = (err: Error | undefined, result?: PostResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(result!);
    };
    const req = mod.request({
      protocol: url.protocol,
      hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      agent: false,
      headers: { ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
      ...(net.isIP(hostname) ? {} : { servername: hostname }),
      // Connect to the checked address only (no second resolution: no DNS rebinding).
      lookup: ((_name, opts, cb) => {
        if (opts?.all) cb(null, [{ address: address.address, family: address.family }]);
        else cb(null, address.address, address.family);
      }) satisfies net.LookupFunction,
    });
    const timer = setTimeout(() => {
      finish(new Error(`no answer in time (timeout)`));
      req.destroy();
    }, timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => finish(new Error(e.code ? `${e.code}: ${e.message}` : e.message)));
    req.on('response', (res: http.IncomingMessage) => {
      // One string: Node keeps the first of repeated Retry-After headers.
      const retryAfter = res.headers['retry-after'];
      res.on('error', (e) => finish(e));
      res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, retryAfter }));
      res.resume();
    });
    req.end(body);
  });
}

/** `Retry-After` (seconds or an HTTP-date) in seconds from now, or undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
