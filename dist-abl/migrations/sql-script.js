"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.splitSqlScript = splitSqlScript;
exports.runSqlScript = runSqlScript;
function splitSqlScript(sql) {
    const statements = [];
    let current = [];
    let inBody = false;
    for (const line of sql.split('\n')) {
        current.push(line);
        if ((line.match(/\$fn\$/g) ?? []).length % 2 === 1)
            inBody = !inBody;
        if (!inBody && /;\s*$/.test(line)) {
            const stmt = current.join('\n').trim();
            if (stmt.replace(/--.*$/gm, '').trim())
                statements.push(stmt);
            current = [];
        }
    }
    const rest = current.join('\n').replace(/--.*$/gm, '').trim();
    if (rest)
        statements.push(rest);
    return statements;
}
async function runSqlScript(knex, sql) {
    for (const stmt of splitSqlScript(sql))
        await knex.raw(stmt);
}
//# sourceMappingURL=sql-script.js.map