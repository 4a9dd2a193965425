"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ID_PREFIX = void 0;
exports.newId = newId;
/**
 * Identifiers: a type prefix and 16 random characters from [0-9A-Za-z] (about 95 bits).
 * Prefixes make ids self-describing in logs and support tickets.
 */
const nanoid_1 = require("nanoid");
const random = (0, nanoid_1.customAlphabet)('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 16);
exports.ID_PREFIX = {
    workspace: 'ws',
    apiKey: 'key',
    form: 'frm',
    question: 'q',
    response: 'rsp',
    datatable: 'tbl',
    row: 'row',
    emailEvent: 'ev',
    webhookEndpoint: 'we',
    webhookEvent: 'evt',
    webhookDelivery: 'dlv',
};
/** A new id such as `rsp_4fZ0c1H2kLmN8pQr`. */
function newId(kind) {
    return `${exports.ID_PREFIX[kind]}_${random()}`;
}
//# sourceMappingURL=ids.js.map