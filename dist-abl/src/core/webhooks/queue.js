"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.PgBoss = exports.ATTEMPT_JOB_OPTIONS = exports.PGBOSS_SCHEMA = exports.DELIVERY_QUEUE = void 0;
exports.splitStatements = splitStatements;
exports.knexExecutor = knexExecutor;
exports.enqueueAttempts = enqueueAttempts;
// pg-boss 10 is CommonJS without an ESM entry; its types come with the package.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const PgBoss = require('pg-boss');
exports.PgBoss = PgBoss;
/** The pg-boss queue of delivery attempts: one job per attempt. */
exports.DELIVERY_QUEUE = 'webhook-delivery';
/** pg-boss schema name (its default). */
exports.PGBOSS_SCHEMA = 'pgboss';
/**
 * Splits a SQL script into single statements at `;` outside quotes, comments and dollar-quoted
 * bodies. Needed because PGlite (extended protocol) runs one statement per query.
 */
function splitStatements(sqlText) {
    const out = [];
    let start = 0;
    let i = 0;
    const n = sqlText.length;
    while (i < n) {
        const c = sqlText[i];
        if (c === "'" || c === '"') {
            const end = sqlText.indexOf(c, i + 1);
            i = end < 0 ? n : end + 1;
        }
        else if (c === '-' && sqlText[i + 1] === '-') {
            const end = sqlText.indexOf('\n', i);
            i = end < 0 ? n : end + 1;
        }
        else if (c === '$') {
            const m = /^\$[A-Za-z_]*\$/.exec(sqlText.slice(i));
            if (m) {
                const end = sqlText.indexOf(m[0], i + m[0].length);
                i = end < 0 ? n : end + m[0].length;
            }
            else
                i++;
        }
        else if (c === ';') {
            const stmt = sqlText.slice(start, i).trim();
            if (stmt)
                out.push(stmt);
            start = ++i;
        }
        else
            i++;
    }
    const rest = sqlText.slice(start).trim();
    if (rest)
        out.push(rest);
    return out;
}
/** A plain object (pg-boss passes serialized errors as objects) goes as JSON text, as `pg` would send it. */
function binding(v) {
    if (v === undefined)
        return null;
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !Buffer.isBuffer(v))
        return JSON.stringify(v);
    return v;
}
const TX_CONTROL = /^(BEGIN|COMMIT|START\s+TRANSACTION)$/i;
/**
 * A pg-boss `db` over knex. `$n` parameters become knex bindings (a literal `?` is escaped);
 * a multi-statement script without values (pg-boss maintenance: `BEGIN; …; COMMIT;`) runs its
 * statements one by one in one knex transaction (or the caller's).
 */
function knexExecutor(db) {
    return {
        async executeSql(text, values) {
            if (!values || values.length === 0) {
                const statements = splitStatements(text).filter((s) => !TX_CONTROL.test(s));
                if (statements.length > 1) {
                    const run = async (trx) => {
                        let last = { rows: [] };
                        for (const s of statements)
                            last = (await trx.raw(s.replace(/\?/g, '\\?')));
                        return last;
                    };
                    return db.isTransaction ? run(db) : db.transaction(run);
                }
                return (await db.raw((statements[0] ?? text).replace(/\?/g, '\\?')));
            }
            const bindings = [];
            const sqlText = text.replace(/\?/g, '\\?').replace(/\$(\d+)/g, (_m, d) => {
                bindings.push(binding(values[Number(d) - 1]));
                return '?';
            });
            return (await db.raw(sqlText, bindings));
        },
    };
}
let sender;
/** A pg-boss instance used only to insert jobs through a given executor (never started). */
function jobSender() {
    sender ??= new PgBoss({
        db: { executeSql: () => Promise.reject(new Error('jobs are inserted through an explicit executor')) },
        migrate: false,
        schedule: false,
        supervise: false,
    });
    return sender;
}
/** Options of the delivery jobs: a job lives at most a minute per fetch; a crashed worker's job comes back. */
exports.ATTEMPT_JOB_OPTIONS = { retryLimit: 5, retryDelay: 30, expireInSeconds: 60 };
/**
 * Inserts attempt jobs inside `trx` (the caller's transaction), each to start at its `startAfter`.
 * @param jobs `startAfter` undefined: at once.
 */
async function enqueueAttempts(trx, jobs) {
    if (jobs.length === 0)
        return;
    await jobSender().insert(jobs.map(({ startAfter, ...data }) => ({
        name: exports.DELIVERY_QUEUE,
        data,
        ...(startAfter ? { startAfter: startAfter.toISOString() } : {}),
        ...exports.ATTEMPT_JOB_OPTIONS,
    })), { db: knexExecutor(trx) });
}
//# sourceMappingURL=queue.js.map