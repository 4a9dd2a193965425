/**
 * Host name resolution for webhook URLs (docs/webhooks.md, "Address rules"): every address of the name, as
 * `dns.lookup` (the system resolver, /etc/hosts included) returns them.
 */
import { lookup } from 'node:dns/promises';
import type { Resolve } from '../core/webhooks/address-policy';

export const resolveHost: Resolve = async (hostname) => lookup(hostname, { all: true, verbatim: true });
