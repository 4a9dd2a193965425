"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.postTo = postTo;
exports.retryAfterSeconds = retryAfterSeconds;
/**
 * One HTTP POST of a delivery attempt (CONTRACT section 13): to the address that was checked (the
 * socket connects there whatever DNS says now; SNI and `Host` stay the URL's host), no redirects
 * followed, one deadline for the whole exchange.
 */
const node_http_1 = __importDefault(require("node:http"));
const node_https_1 = __importDefault(require("node:https"));
const node_net_1 = __importDefault(require("node:net"));
/**
 * POSTs `body` and reads the whole answer within `timeoutMs`.
 * @throws Error (message for the delivery log) on a network error or the deadline.
 */
function postTo(url, address, body, headers, timeoutMs) {
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const mod = url.protocol === 'https:' ? node_https_1.default : node_http_1.default;
    return new Promise((resolve, reject) => {
        let done = false;
        const finish = (err, result) => {
            if (done)
                return;
            done = true;
            clearTimeout(timer);
            if (err)
                reject(err);
            else
                resolve(result);
        };
        const req = mod.request({
            protocol: url.protocol,
            hostname,
            port: url.port === '' ? undefined : Number(url.port),
            path: `${url.pathname}${url.search}`,
            method: 'POST',
            agent: false,
            headers: { ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
            ...(node_net_1.default.isIP(hostname) ? {} : { servername: hostname }),
            // Connect to the checked address only (no second resolution: no DNS rebinding).
            lookup: ((_name, opts, cb) => {
                if (opts?.all)
                    cb(null, [{ address: address.address, family: address.family }]);
                else
                    cb(null, address.address, address.family);
            }),
        });
        const timer = setTimeout(() => {
            finish(new Error(`no answer in time (timeout)`));
            req.destroy();
        }, timeoutMs);
        req.on('error', (e) => finish(new Error(e.code ? `${e.code}: ${e.message}` : e.message)));
        req.on('response', (res) => {
            const retryAfter = res.headers['retry-after'];
            res.on('error', (e) => finish(e));
            res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter }));
            res.resume();
        });
        req.end(body);
    });
}
/** `Retry-After` (seconds or an HTTP-date) in seconds from now, or undefined when absent or unreadable. */
function retryAfterSeconds(value, now = Date.now()) {
    if (value === undefined)
        return undefined;
    const v = value.trim();
    if (/^\d+$/.test(v))
        return Number(v);
    const at = Date.parse(v);
    return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
//# sourceMappingURL=http-post.js.map