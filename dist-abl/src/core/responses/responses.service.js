"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.listResponses = listResponses;
exports.getResponse = getResponse;
exports.openResponseExport = openResponseExport;
const errors_1 = require("../errors");
const filter_1 = require("../query/filter");
const list_1 = require("../query/list");
const keyset_1 = require("../query/keyset");
const sort_1 = require("../query/sort");
const responses_repository_1 = require("./responses.repository");
const DEFAULT_SORT = [{ field: responses_repository_1.RESPONSE_SORT_FIELDS.get('created_at'), dir: 'desc' }];
/**
 * Validates and compiles a list's filters and sort (the one narrowing/sort code of the responses
 * list and export).
 * @throws AppError validation_error for an unknown sort or filter field, a bad filter or score range.
 */
function prepareList(q) {
    const keys = (0, sort_1.parseSort)(q.sort, {
        fields: responses_repository_1.RESPONSE_SORT_FIELDS,
        tieBreaker: responses_repository_1.RESPONSE_ID_FIELD,
        defaultSort: DEFAULT_SORT,
        multi: q.multiSort ?? false,
    });
    const compiled = q.filter === undefined ? undefined : (0, filter_1.compileFilter)(q.filter, { fields: responses_repository_1.RESPONSE_FILTER_FIELDS });
    if (q.scoreGte !== undefined && q.scoreLte !== undefined && q.scoreGte > q.scoreLte) {
        throw errors_1.errors.invalid('query', 'score_gte', '`score_gte` is greater than `score_lte`.');
    }
    const narrowing = {
        formId: q.formId,
        created: q.created ?? [],
        scoreGte: q.scoreGte,
        scoreLte: q.scoreLte,
        filter: compiled?.where,
    };
    return { keys, compiled, narrowing, include: q.include ?? {} };
}
/**
 * Lists a workspace's responses (all forms, or one with `formId`).
 * @returns a keyset page (Style A) or an offset page with `total` and `filteredTotal` (Style B).
 * @throws AppError validation_error for an unknown sort or filter field, a bad filter or cursor.
 */
async function listResponses(db, workspaceId, q) {
    const { keys, compiled, narrowing, include } = prepareList(q);
    const base = (0, responses_repository_1.responsesQuery)(db, workspaceId, narrowing, include);
    const finish = async (rows) => {
        const records = rows.map((r) => (0, responses_repository_1.toRecord)(r, include));
        if (include.formName)
            await (0, responses_repository_1.attachFormNames)(db, workspaceId, records);
        return records;
    };
    if (q.pagination.kind === 'keyset') {
        const listId = `responses:${workspaceId}`;
        const page = await (0, list_1.fetchKeysetPage)(db, base, keys, q.pagination.limit, q.pagination.cursor, listId);
        return {
            kind: 'keyset',
            items: await finish(page.rows),
            limit: q.pagination.limit,
            nextCursor: page.nextCursor,
            prevCursor: page.prevCursor,
        };
    }
    const { page, limit } = q.pagination;
    const countersSuffice = (compiled?.clauses ?? []).every((c) => responses_repository_1.COUNTABLE_FILTER_FIELDS.has(c.field) && c.op !== '~' && c.values.every((v) => v.quoted || v.text !== 'null'));
    // Pages in created_at order narrowed only by form and score start at the day the counters name.
    const byDay = countersSuffice && narrowing.created.length === 0 && keys.length === 2 && keys[0].field.name === 'created_at';
    const seek = byDay ? (offset) => (0, responses_repository_1.findDayStart)(db, workspaceId, narrowing, keys[0].dir, offset) : undefined;
    const [rows, total, filteredTotal] = await Promise.all([
        (0, list_1.fetchOffsetPage)(base, keys, page, limit, ['workspace_id', 'id'], seek),
        (0, responses_repository_1.countAllResponses)(db, workspaceId),
        (0, responses_repository_1.countNarrowed)(db, workspaceId, narrowing, countersSuffice),
    ]);
    return { kind: 'page', items: await finish(rows), page, limit, total, filteredTotal };
}
/**
 * One response of the workspace.
 * @throws AppError resource_not_found when it does not exist in this workspace.
 */
async function getResponse(db, workspaceId, id, include = {}) {
    const record = await (0, responses_repository_1.findResponse)(db, workspaceId, id, include);
    if (!record)
        throw errors_1.errors.notFound('Response', id);
    if (include.formName)
        await (0, responses_repository_1.attachFormNames)(db, workspaceId, [record]);
    return record;
}
/**
 * Opens an export of every response a list with the same filters and sort would show, in list order
 * (CONTRACT section 15). Validation happens here, before anything is streamed.
 * @throws AppError validation_error as listResponses does.
 */
function openResponseExport(db, workspaceId, q) {
    const { keys, narrowing, include } = prepareList(q);
    return {
        async *batches(batchSize = 500) {
            const trx = await db.transaction(undefined, { readOnly: true });
            try {
                const order = (0, keyset_1.orderByClause)(keys);
                const query = (0, responses_repository_1.responsesQuery)(trx, workspaceId, narrowing, include).orderByRaw(order.sql, order.bindings);
                const compiled = query.toSQL();
                await trx.raw(`DECLARE response_export NO SCROLL CURSOR FOR ${compiled.sql}`, compiled.bindings);
                for (;;) {
                    const result = (await trx.raw(`FETCH ${Math.floor(batchSize)} FROM response_export`));
                    const rows = result.rows;
                    if (rows.length === 0)
                        break;
                    const records = rows.map((r) => (0, responses_repository_1.toRecord)(r, include));
                    if (include.formName)
                        await (0, responses_repository_1.attachFormNames)(trx, workspaceId, records);
                    yield records;
                }
            }
            finally {
                // Read-only: a rollback ends it as well as a commit, and also after an error or an early stop.
                if (!trx.isCompleted())
                    await trx.rollback();
            }
        },
    };
}
//# sourceMappingURL=responses.service.js.map