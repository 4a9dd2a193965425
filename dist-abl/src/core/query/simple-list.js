"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.listByCreatedOrName = listByCreatedOrName;
const fields_1 = require("./fields");
const list_1 = require("./list");
const sort_1 = require("./sort");
const sql_1 = require("./sql");
const col = (name, type) => ({ name, expr: (0, sql_1.sql)('??', name), type, nullable: false });
const SORT_FIELDS = (0, fields_1.fieldMap)([col('created_at', 'timestamp'), col('name', 'text')]);
const ID = col('id', 'text');
async function listByCreatedOrName(db, query, listId, params) {
    const keys = (0, sort_1.parseSort)(params.sort, {
        fields: SORT_FIELDS,
        tieBreaker: ID,
        defaultSort: [{ field: SORT_FIELDS.get('created_at'), dir: 'desc' }],
        multi: false,
    });
    const page = await (0, list_1.fetchKeysetPage)(db, query, keys, params.limit, params.cursor, listId);
    return { kind: 'keyset', items: page.rows, limit: params.limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}
//# sourceMappingURL=simple-list.js.map