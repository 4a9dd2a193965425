"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.resolveHost = void 0;
/**
 * Host name resolution for webhook URLs (CONTRACT section 13): every address of the name, as
 * `dns.lookup` (the system resolver, /etc/hosts included) returns them.
 */
const promises_1 = require("node:dns/promises");
const resolveHost = async (hostname) => (0, promises_1.lookup)(hostname, { all: true, verbatim: true });
exports.resolveHost = resolveHost;
//# sourceMappingURL=resolve-host.js.map