"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.up = up;
exports.down = down;
const sql_script_1 = require("./sql-script");
const SQL_UP = String.raw `
ALTER TABLE forms ADD COLUMN IF NOT EXISTS score_question_id text;
`;
const SQL_DOWN = String.raw `
ALTER TABLE forms DROP COLUMN IF EXISTS score_question_id;
`;
async function up(knex) {
    await (0, sql_script_1.runSqlScript)(knex, SQL_UP);
}
async function down(knex) {
    await (0, sql_script_1.runSqlScript)(knex, SQL_DOWN);
}
//# sourceMappingURL=20261123_002_collect.js.map