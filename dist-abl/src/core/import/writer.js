"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.IMPORT_TABLES = void 0;
const col = (name, type = 'text') => ({ name, type });
/** The tables an import writes, in an order that satisfies their foreign keys, and their columns. */
exports.IMPORT_TABLES = {
    workspaces: [col('id'), col('name'), col('link'), col('created_at', 'timestamptz')],
    forms: [
        col('workspace_id'), col('id'), col('name'), col('default_language'), col('translations', 'jsonb'),
        col('score_question_id'), col('created_at', 'timestamptz'), col('updated_at', 'timestamptz'),
    ],
    questions: [
        col('workspace_id'), col('form_id'), col('id'), col('position', 'integer'), col('type'), col('title'),
        col('required', 'boolean'), col('options', 'jsonb'), col('validation', 'jsonb'),
    ],
    datatables: [col('workspace_id'), col('id'), col('name'), col('created_at', 'timestamptz'), col('updated_at', 'timestamptz')],
    datatable_fields: [col('workspace_id'), col('datatable_id'), col('name'), col('type'), col('position', 'integer')],
    datatable_rows: [
        col('workspace_id'), col('datatable_id'), col('row_id'), col('data', 'jsonb'),
        col('created_at', 'timestamptz'), col('updated_at', 'timestamptz'),
    ],
    webhook_endpoints: [
        col('workspace_id'), col('id'), col('url'), col('events', 'text[]'), col('description'), col('enabled', 'boolean'),
        col('secret'), col('created_at', 'timestamptz'), col('updated_at', 'timestamptz'),
    ],
    responses: [
        col('workspace_id'), col('id'), col('form_id'), col('score', 'double precision'), col('version', 'integer'),
        col('language'), col('answers', 'jsonb'), col('respondent_email'), col('email_id'), col('row_id'),
        col('table_data', 'jsonb'), col('table_data_captured_at', 'timestamptz'), col('actionlists', 'jsonb'),
        col('created_at', 'timestamptz'),
    ],
    email_events: [
        col('workspace_id'), col('id'), col('email_id'), col('email'), col('type'), col('row_id'), col('form_id'),
        col('flow_id'), col('created_at', 'timestamptz'),
    ],
};
//# sourceMappingURL=writer.js.map