"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.FIXTURE_SCHEMA = exports.WEBHOOK_EVENT_TYPES = exports.EMAIL_EVENT_TYPES = exports.DATATABLE_FIELD_TYPES = void 0;
/**
 * The fixture document of `import` and `seed` (CONTRACT section 9): its TypeScript shape and the
 * JSON Schema (draft-07, for ajv with ajv-formats and allErrors) that checks its structure.
 * Cross-references, duplicates and answers are checked by the importer, not here.
 */
const answers_1 = require("../responses/answers");
const scopes_1 = require("../scopes");
exports.DATATABLE_FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'json'];
exports.EMAIL_EVENT_TYPES = ['send', 'delivery', 'open', 'click', 'bounce', 'complaint', 'unsubscribe'];
/** CONTRACT section 8 (suggested event types). */
exports.WEBHOOK_EVENT_TYPES = [
    'response.created',
    'row.created',
    'row.updated',
    'row.deleted',
    'email_event.created',
];
// Ids end up in URL paths: no whitespace, `/`, `?` or `#`.
const id = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\s/?#]+$' };
const text = { type: 'string', minLength: 1 };
const dateTime = { type: 'string', format: 'date-time' };
// `type: [T, 'null']` rather than anyOf: one error per bad value instead of one per branch.
const nullable = (s) => ({ ...s, type: [s.type, 'null'] });
const question = {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'title'],
    properties: {
        id,
        type: { enum: [...answers_1.QUESTION_TYPES] },
        title: text,
        required: { type: 'boolean' },
        options: {
            type: 'array',
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['id', 'value'],
                properties: { id, value: text },
            },
        },
        validation: {
            type: 'object',
            additionalProperties: false,
            properties: {
                min: { type: 'number' },
                max: { type: 'number' },
                format: { enum: ['email'] },
            },
        },
    },
};
const translations = {
    type: 'object',
    propertyNames: { minLength: 1 },
    additionalProperties: {
        type: 'object',
        additionalProperties: {
            type: 'object',
            additionalProperties: false,
            properties: {
                title: text,
                options: { type: 'object', additionalProperties: text },
            },
        },
    },
};
/** JSON Schema (draft-07) of FixtureDocument; compile with `new Ajv({allErrors: true})` + ajv-formats. */
exports.FIXTURE_SCHEMA = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://feedback-service.local/schemas/fixture.json',
    title: 'feedback-service fixture document (CONTRACT section 9)',
    type: 'object',
    additionalProperties: false,
    properties: {
        workspaces: {
            type: 'array',
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['name'],
                properties: {
                    id,
                    name: text,
                    link: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[a-z0-9][a-z0-9-]*$' },
                    created_at: dateTime,
                },
            },
        },
        api_keys: {
            type: 'array',
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['name', 'workspace_ids'],
                properties: {
                    id,
                    name: text,
                    secret: { type: 'string', minLength: 1 },
                    workspace_ids: { type: 'array', minItems: 1, items: id },
                    scopes: { type: 'array', items: { enum: [...scopes_1.ALL_SCOPES] } },
                    expires_at: nullable(dateTime),
                    revoked_at: nullable(dateTime),
                    style: { enum: ['A', 'B'] },
                    rate_limit_per_minute: nullable({ type: 'integer', minimum: 1 }),
                    created_at: dateTime,
                },
            },
        },
        forms: {
            type: 'array',
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['workspace_id', 'name'],
                properties: {
                    id,
                    workspace_id: id,
                    name: text,
                    default_language: { type: 'string', minLength: 1, maxLength: 35 },
                    created_at: dateTime,
                    updated_at: dateTime,
                    questions: { type: 'array', items: question },
                    translations,
                    score_question_id: nullable(id),
                },
            },
        },
        datatables: {
            type: 'array',
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['workspace_id', 'name'],
                properties: {
                    id,
                    workspace_id: id,
                    name: text,
                    created_at: dateTime,
                    updated_at: dateTime,
                    fields: {
                        type: 'array',
                        items: {
                            type: 'object',
                            additionalProperties: false,
                            required: ['name', 'type'],
                            properties: { name: text, type: { enum: [...exports.DATATABLE_FIELD_TYPES] } },
                        },
                    },
                    rows: {
                        type: 'array',
                        items: {
                            type: 'object',
                            additionalProperties: false,
                            required: ['data'],
                            properties: {
                                row_id: id,
                                data: { type: 'object' },
                                created_at: dateTime,
                                updated_at: dateTime,
                            },
                        },
                    },
                },
            },
        },
        responses: {
            type: 'array',
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['form_id', 'score'],
                properties: {
                    id,
                    form_id: id,
                    score: { type: 'number' },
                    version: { type: 'integer', minimum: 1 },
                    language: { type: 'string', minLength: 1, maxLength: 35 },
                    created_at: dateTime,
                    row_id: nullable(id),
                    table_data: nullable({ type: 'object' }),
                    respondent_email: nullable(text),
                    email_id: nullable(text),
                    answers: {
                        type: 'array',
                        items: {
                            type: 'object',
                            additionalProperties: false,
                            required: ['question_id', 'value'],
                            properties: { question_id: text, value: {} },
                        },
                    },
                    actionlists: {
                        type: 'array',
                        items: {
                            type: 'object',
                            additionalProperties: false,
                            required: ['actionlist_id', 'triggered_score', 'triggers'],
                            properties: {
                                actionlist_id: text,
                                triggered_score: { type: 'number' },
                                triggers: { type: 'array', items: { type: 'string' } },
                            },
                        },
                    },
                },
            },
        },
        email_events: {
            type: 'array',
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['workspace_id', 'email_id', 'email', 'type'],
                properties: {
                    id,
                    workspace_id: id,
                    email_id: text,
                    email: text,
                    type: { enum: [...exports.EMAIL_EVENT_TYPES] },
                    created_at: dateTime,
                    row_id: nullable(text),
                    form_id: nullable(text),
                    flow_id: nullable(text),
                },
            },
        },
        webhook_endpoints: {
            type: 'array',
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['workspace_id', 'url', 'events'],
                properties: {
                    id,
                    workspace_id: id,
                    url: { type: 'string', format: 'uri', pattern: '^https?://' },
                    events: { type: 'array', minItems: 1, items: { enum: [...exports.WEBHOOK_EVENT_TYPES] } },
                    description: nullable({ type: 'string' }),
                    enabled: { type: 'boolean' },
                    secret: { type: 'string', minLength: 1 },
                    created_at: dateTime,
                    updated_at: dateTime,
                },
            },
        },
    },
};
//# sourceMappingURL=fixture-schema.js.map