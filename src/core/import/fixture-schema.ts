/**
 * The fixture document of `import` and `seed` (docs/import.md, "The fixture document"): its TypeScript shape and the
 * JSON Schema (draft-07, for ajv with ajv-formats and allErrors) that checks its structure.
 * Cross-references, duplicates and answers are checked by the importer, not here.
 */
import { QUESTION_TYPES, type QuestionType } from '../forms/form-model';
import { ALL_SCOPES, type Scope } from '../scopes';
// The event types an endpoint subscribes to: the one list (docs/webhooks.md, "Events and payloads").
import { WEBHOOK_EVENT_TYPES } from '../webhooks/webhooks.store';

export const DATATABLE_FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'json'] as const;
export type DatatableFieldType = (typeof DATATABLE_FIELD_TYPES)[number];

export const EMAIL_EVENT_TYPES = ['send', 'delivery', 'open', 'click', 'bounce', 'complaint', 'unsubscribe'] as const;
export type EmailEventType = (typeof EMAIL_EVENT_TYPES)[number];

/** ISO 8601 date-time with an offset, e.g. `2026-11-22T10:15:30.123Z`. */
export type IsoDateTime = string;

export interface FixtureWorkspace {
  id?: string;
  name: string;
  /** Unique slug; default: derived from the name. */
  link?: string;
  created_at?: IsoDateTime;
}

export interface FixtureApiKey {
  id?: string;
  name: string;
  /** Must start with `fa_`; default: generated and printed in the summary. */
  secret?: string;
  workspace_ids: string[];
  /** Default: every scope. */
  scopes?: Scope[];
  expires_at?: IsoDateTime | null;
  revoked_at?: IsoDateTime | null;
  style?: 'A' | 'B';
  rate_limit_per_minute?: number | null;
  created_at?: IsoDateTime;
}

export interface FixtureQuestion {
  id?: string;
  type: QuestionType;
  title: string;
  required?: boolean;
  /** Choice questions only, at least one. */
  options?: { id: string; value: string }[];
  /** Default by type: nps {min:0,max:10}, rating {min:1,max:5}, email {format:"email"}, else {}. */
  validation?: { min?: number; max?: number; format?: 'email' };
}

export interface FixtureForm {
  id?: string;
  workspace_id: string;
  name: string;
  /** Default `en`. */
  default_language?: string;
  created_at?: IsoDateTime;
  updated_at?: IsoDateTime;
  questions?: FixtureQuestion[];
  translations?: Record<string, Record<string, { title?: string; options?: Record<string, string> }>>;
  /** The question whose answer is the score (an nps, rating or number question); absent or null: the default rule. */
  score_question_id?: string | null;
}

export interface FixtureRow {
  row_id?: string;
  data: Record<string, unknown>;
  created_at?: IsoDateTime;
  updated_at?: IsoDateTime;
}

export interface FixtureDatatable {
  id?: string;
  workspace_id: string;
  name: string;
  fields?: { name: string; type: DatatableFieldType }[];
  rows?: FixtureRow[];
  created_at?: IsoDateTime;
  updated_at?: IsoDateTime;
}

export interface FixtureActionlist {
  actionlist_id: string;
  triggered_score: number;
  triggers: string[];
}

export interface FixtureResponse {
  id?: string;
  form_id: string;
  score: number;
  /** Default 1. */
  version?: number;
  /** Default: the form's default language. */
  language?: string;
  created_at?: IsoDateTime;
  row_id?: string | null;
  /** The row's columns as captured; default: the row's data at import when `row_id` is set. */
  table_data?: Record<string, unknown> | null;
  respondent_email?: string | null;
  email_id?: string | null;
  answers?: { question_id: string; value: unknown }[];
  actionlists?: FixtureActionlist[];
}

export interface FixtureEmailEvent {
  id?: string;
  workspace_id: string;
  email_id: string;
  email: string;
  type: EmailEventType;
  created_at?: IsoDateTime;
  row_id?: string | null;
  form_id?: string | null;
  flow_id?: string | null;
}

export interface FixtureWebhookEndpoint {
  id?: string;
  workspace_id: string;
  url: string;
  events: string[];
  description?: string | null;
  enabled?: boolean;
  /** Must start with `whsec_`; default: generated. */
  secret?: string;
  created_at?: IsoDateTime;
  updated_at?: IsoDateTime;
}

/** The whole document: every array optional (docs/import.md, "The fixture document"). */
export interface FixtureDocument {
  workspaces?: FixtureWorkspace[];
  api_keys?: FixtureApiKey[];
  forms?: FixtureForm[];
  datatables?: FixtureDatatable[];
  responses?: FixtureResponse[];
  email_events?: FixtureEmailEvent[];
  webhook_endpoints?: FixtureWebhookEndpoint[];
}

// Ids end up in URL paths: no whitespace, `/`, `?` or `#`.
const id = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\s/?#]+$' } as const;
const text = { type: 'string', minLength: 1 } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
// `type: [T, 'null']` rather than anyOf: one error per bad value instead of one per branch.
const nullable = <T extends { type: string }>(s: T) => ({ ...s, type: [s.type, 'null'] });

const question = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'title'],
  properties: {
    id,
    type: { enum: [...QUESTION_TYPES] },
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
} as const;

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
} as const;

/**
 * The schema of a list of named things that live in a workspace (forms, datatables): `workspace_id` and
 * `name` required, `id` and the timestamps optional, plus each one's own `properties`.
 */
const workspaceItems = <P extends Record<string, unknown>>(properties: P) =>
  ({
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['workspace_id', 'name'],
      properties: { id, workspace_id: id, name: text, created_at: dateTime, updated_at: dateTime, ...properties },
    },
  }) as const;

/** JSON Schema (draft-07) of FixtureDocument; compile with `new Ajv({allErrors: true})` + ajv-formats. */
export const FIXTURE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://feedback-service.local/schemas/fixture.json',
  title: 'feedback-service fixture document (docs/import.md, "The fixture document")',
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
          scopes: { type: 'array', items: { enum: [...ALL_SCOPES] } },
          expires_at: nullable(dateTime),
          revoked_at: nullable(dateTime),
          style: { enum: ['A', 'B'] },
          rate_limit_per_minute: nullable({ type: 'integer', minimum: 1 }),
          created_at: dateTime,
        },
      },
    },
    forms: workspaceItems({
      default_language: { type: 'string', minLength: 1, maxLength: 35 },
      questions: { type: 'array', items: question },
      translations,
      score_question_id: nullable(id),
    }),
    datatables: workspaceItems({
      fields: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'type'],
          properties: { name: text, type: { enum: [...DATATABLE_FIELD_TYPES] } },
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
    }),
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
          type: { enum: [...EMAIL_EVENT_TYPES] },
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
          events: { type: 'array', minItems: 1, items: { enum: [...WEBHOOK_EVENT_TYPES] } },
          description: nullable({ type: 'string' }),
          enabled: { type: 'boolean' },
          secret: { type: 'string', minLength: 1 },
          created_at: dateTime,
          updated_at: dateTime,
        },
      },
    },
  },
} as const;
