/**
 * The Style B operations of openapi/openapi.yaml and what a client calls instead in Style A: one entry
 * per operation only Style B serves (`/tables…`, `/emails/events`) and per shared-path operation when
 * answered in Style B (`{ws}/responses…`, `/api/v2/…/responses`). Static data, read from openapi/ and
 * docs/migrating-between-styles.md, "Paths" and "Parameters"; the migration report (issue 20 item 2) and
 * the request translator (src/core/migration/translate.ts) use it. The Style A filter parameters are the
 * scheme of issue 20 item 4 (`f`, `f_ne`, `f_in`, `f_contains`, `f_present`) and, for answers, issue 29 item 1's
 * keyed `answer…` parameters (docs/api-rules.md, "Filters on answers").
 *
 * Path templates are the document's (`/api/v1/workspaces/{workspace_id}/…`). tests/unit/operation-map.test.ts
 * checks that every Style B operation of the document has an entry and every equivalent is a real
 * Style A operation of it.
 */

/** How one Style B parameter maps; `a` null: Style A has no such parameter (`how` says what to do). */
export interface ParamMapping {
  b: string;
  a: string | null;
  how: string;
}

export interface StyleAEquivalent {
  operation: string;
  method: string;
  path: string;
  params: ParamMapping[];
}

export interface OperationMapping {
  /** The Style B operation (its operationId), method and path template as in openapi/. */
  operation: string;
  method: string;
  path: string;
  equivalent: StyleAEquivalent;
  /** Why this operation can never translate mechanically, else null (a request may still be refused for a part). */
  attention: string | null;
}

const WS = '/api/v1/workspaces/{workspace_id}';

const STYLE_HEADER: ParamMapping = { b: 'X-API-Style: B', a: 'X-API-Style: A', how: 'send X-API-Style: A on the shared path' };

const PAGE: ParamMapping = {
  b: 'page',
  a: 'cursor',
  how: 'no page numbers in Style A: fetch the first page, then follow links.next (page-1) × (B limit / A limit) times',
};
const LIMIT: ParamMapping = {
  b: 'limit',
  a: 'limit',
  how: 'Style A takes 1..100: a B limit up to 100 is kept; a larger one is read as several A pages of the largest size ≤ 100 dividing it',
};
const SORT: ParamMapping = {
  b: 'sort',
  a: 'sort',
  how: 'same field:dir spelling, snake_case field names (relevance:desc stays relevance:desc, with q); Style A sorts by one field (several B fields cannot translate)',
};
const SEARCH: ParamMapping = {
  b: 'q',
  a: 'q',
  how: 'unchanged: the same search in both styles (docs/api-rules.md, "Searching text answers"); searchExcerpt becomes search_excerpt',
};
const START: ParamMapping = { b: 'start_date', a: 'created_after', how: 'same instant; both include it' };
const END: ParamMapping = {
  b: 'end_date',
  a: 'created_before',
  how: 'a date D becomes created_before=D+1 day (B includes the whole day); a date-time T becomes created_before=T+1 µs (B includes the instant; instants are stored to the microsecond)',
};
const RESPONSE_FILTER: ParamMapping = {
  b: 'filter',
  a: 'id, form_id, score, email_id, row_id, respondent_email (+ _ne, _in, _contains, _present; score_gte/score_lte); sentiment (+ _ne, _in, _present); topic (+ _ne, _in, _present); answer (+ _ne, _in, _contains, _present, _gt, _gte, _lt, _lte)',
  how: 'each condition becomes one typed parameter: f = v → f=v, f != v → f_ne=v, f in [..] → f_in=.. (repeated), f ~ v → f_contains=v, f = null / f != null → f_present=false/true (sentiment = positive → sentiment=positive, sentiment in [negative, neutral] → sentiment_in=negative&sentiment_in=neutral; labels negative, neutral, positive; topic = pricing → topic=pricing, by a topic id or name); on answers (with form_id) answers.q OP v → answer…=q:v (= answer, != answer_ne, ~ answer_contains, > answer_gt, >= answer_gte, < answer_lt, <= answer_lte), answers.q in [v, null] → answer_in=q:v&answer_in=q, answers.q = null / != null → answer_present=q:false/true',
};
const INCLUDE_TABLE: ParamMapping = { b: 'include_table_data', a: 'include_table_data', how: 'unchanged' };
const INCLUDE_ACTIONLIST: ParamMapping = {
  b: 'include_actionlist_data',
  a: null,
  how: 'Style A has no action-list data: true cannot translate; false is dropped',
};

const RESPONSE_LIST_PARAMS: ParamMapping[] = [
  STYLE_HEADER,
  PAGE,
  LIMIT,
  SORT,
  SEARCH,
  RESPONSE_FILTER,
  START,
  END,
  { b: 'form_id', a: 'form_id', how: 'unchanged' },
  INCLUDE_TABLE,
  INCLUDE_ACTIONLIST,
];

const ROW_LIST_PARAMS: ParamMapping[] = [
  PAGE,
  LIMIT,
  SORT,
  { b: 'filter', a: 'filter', how: 'Style A row lists take the same filter language: passed through unchanged' },
  { b: 'start_date', a: null, how: 'Style A row lists have no date parameters: cannot translate' },
  { b: 'end_date', a: null, how: 'Style A row lists have no date parameters: cannot translate' },
  { b: 'include_metadata', a: null, how: 'Style A rows always carry created_at and updated_at: dropped' },
];

const ROW_PATH = `${WS}/datatables/{datatable_id}/rows`;
const TABLE_TO_DATATABLE: ParamMapping = { b: 'table_id', a: 'datatable_id', how: 'same id' };

/** Every Style B operation of openapi/openapi.yaml with its Style A equivalent. */
export const STYLE_B_OPERATIONS: readonly OperationMapping[] = [
  {
    operation: 'listResponses',
    method: 'GET',
    path: `${WS}/responses`,
    equivalent: { operation: 'listResponses', method: 'GET', path: `${WS}/responses`, params: RESPONSE_LIST_PARAMS },
    attention: null,
  },
  {
    operation: 'listResponsesV2',
    method: 'GET',
    path: '/api/v2/workspaces/{workspace_id}/responses',
    equivalent: {
      operation: 'listResponsesV2',
      method: 'GET',
      path: '/api/v2/workspaces/{workspace_id}/responses',
      params: RESPONSE_LIST_PARAMS,
    },
    attention: null,
  },
  {
    operation: 'exportResponses',
    method: 'GET',
    path: `${WS}/responses/export`,
    equivalent: {
      operation: 'exportResponses',
      method: 'GET',
      path: `${WS}/responses/export`,
      params: [{ b: 'format', a: 'format', how: 'unchanged' }, ...RESPONSE_LIST_PARAMS.filter((p) => p !== PAGE && p !== LIMIT)],
    },
    attention: null,
  },
  // Before getResponse: its `{response_id}` would take "stream" for an id (the translator takes the first path that matches).
  {
    operation: 'streamResponses',
    method: 'GET',
    path: `${WS}/responses/stream`,
    equivalent: {
      operation: 'streamResponses',
      method: 'GET',
      path: `${WS}/responses/stream`,
      params: [
        { b: 'after, Last-Event-ID', a: 'after, Last-Event-ID', how: 'unchanged: the same positions in both styles' },
        ...RESPONSE_LIST_PARAMS.filter((p) => ![PAGE, LIMIT, SORT, SEARCH, INCLUDE_TABLE, INCLUDE_ACTIONLIST].includes(p)),
      ],
    },
    attention: null,
  },
  {
    operation: 'getResponse',
    method: 'GET',
    path: `${WS}/responses/{response_id}`,
    equivalent: {
      operation: 'getResponse',
      method: 'GET',
      path: `${WS}/responses/{response_id}`,
      params: [STYLE_HEADER, INCLUDE_TABLE, INCLUDE_ACTIONLIST],
    },
    attention: null,
  },
  {
    operation: 'exportRespondentData',
    method: 'GET',
    path: `${WS}/respondents/export`,
    equivalent: {
      operation: 'exportRespondentData',
      method: 'GET',
      path: `${WS}/respondents/export`,
      params: [STYLE_HEADER, { b: 'email', a: 'email', how: 'unchanged' }],
    },
    attention: null,
  },
  {
    operation: 'createErasureRequest',
    method: 'POST',
    path: `${WS}/erasure-requests`,
    equivalent: {
      operation: 'createErasureRequest',
      method: 'POST',
      path: `${WS}/erasure-requests`,
      params: [
        STYLE_HEADER,
        { b: 'dryRun (body)', a: 'dry_run (body)', how: 'renamed' },
        { b: 'includeRows (body)', a: 'include_rows (body)', how: 'renamed' },
      ],
    },
    attention: null,
  },
  {
    operation: 'getErasureRequest',
    method: 'GET',
    path: `${WS}/erasure-requests/{erasure_id}`,
    equivalent: {
      operation: 'getErasureRequest',
      method: 'GET',
      path: `${WS}/erasure-requests/{erasure_id}`,
      params: [STYLE_HEADER],
    },
    attention: null,
  },
  {
    operation: 'liftErasureSuppression',
    method: 'DELETE',
    path: `${WS}/erasure-requests/{erasure_id}/suppression`,
    equivalent: {
      operation: 'liftErasureSuppression',
      method: 'DELETE',
      path: `${WS}/erasure-requests/{erasure_id}/suppression`,
      params: [STYLE_HEADER],
    },
    attention: null,
  },
  {
    operation: 'createResponse',
    method: 'POST',
    path: `${WS}/responses`,
    equivalent: {
      operation: 'createResponse',
      method: 'POST',
      path: `${WS}/responses`,
      params: [STYLE_HEADER, { b: 'createdAt (body)', a: 'created_at (body)', how: 'renamed; same instant' }],
    },
    attention: null,
  },
  ...dashboardLinkMappings(),
  ...topicMappings(),
  ...responseDeletionMappings(),
  ...webhookRecoveryMappings(),
  {
    operation: 'listAuditEvents',
    method: 'GET',
    path: `${WS}/audit-events`,
    equivalent: {
      operation: 'listAuditEvents',
      method: 'GET',
      path: `${WS}/audit-events`,
      params: [
        STYLE_HEADER,
        PAGE,
        LIMIT,
        START,
        END,
        { b: 'actor, action, target_type, target_id', a: 'actor, action, target_type, target_id', how: 'unchanged' },
        {
          b: 'filter',
          a: 'actor, action, target_type, target_id',
          how: 'Style A has no filter on this list: send each condition field = v as its exact parameter instead (no !=, ~, in or request_id)',
        },
      ],
    },
    attention: null,
  },
  {
    operation: 'listEvents',
    method: 'GET',
    path: `${WS}/events`,
    equivalent: {
      operation: 'listEvents',
      method: 'GET',
      path: `${WS}/events`,
      params: [
        STYLE_HEADER,
        PAGE,
        LIMIT,
        START,
        END,
        { b: 'type', a: 'type', how: 'unchanged' },
        {
          b: 'filter',
          a: 'type',
          how: 'Style A has no filter on this list: send type=… for each type (any of); the cursor is an event position (the last event you have)',
        },
      ],
    },
    attention: null,
  },
  {
    operation: 'streamEvents',
    method: 'GET',
    path: `${WS}/events/stream`,
    equivalent: {
      operation: 'streamEvents',
      method: 'GET',
      path: `${WS}/events/stream`,
      params: [
        STYLE_HEADER,
        START,
        END,
        { b: 'type', a: 'type', how: 'unchanged' },
        { b: 'after, Last-Event-ID', a: 'after, Last-Event-ID', how: 'unchanged: the same positions in both styles' },
        { b: 'filter', a: 'type', how: 'Style A has no filter on this stream: send type=… for each type (any of)' },
      ],
    },
    attention: null,
  },
  {
    operation: 'listTablesB',
    method: 'GET',
    path: `${WS}/tables`,
    equivalent: {
      operation: 'listDatatables',
      method: 'GET',
      path: `${WS}/datatables`,
      params: [{ b: '(no paging: every table)', a: 'limit, sort', how: 'sort=name:asc&limit=100, then follow links.next until it is null' }],
    },
    attention: null,
  },
  ...rowListMappings(),
  {
    operation: 'listTableFieldsB',
    method: 'GET',
    path: `${WS}/tables/{table_id}/fields`,
    equivalent: {
      operation: 'getDatatable',
      method: 'GET',
      path: `${WS}/datatables/{datatable_id}`,
      params: [TABLE_TO_DATATABLE, { b: '(the /fields path)', a: 'include', how: 'include=fields; read the names from fields[].name' }],
    },
    attention: null,
  },
  {
    operation: 'upsertTableEntryB',
    method: 'POST',
    path: `${WS}/tables/{table_id}/entries`,
    equivalent: {
      operation: 'upsertDatatableRows',
      method: 'POST',
      path: ROW_PATH,
      params: [TABLE_TO_DATATABLE, { b: 'data (one row, data.id required)', a: 'data', how: 'same body; Style A upserts on data.id' }],
    },
    attention: null,
  },
  {
    operation: 'bulkUpsertTableEntriesB',
    method: 'POST',
    path: `${WS}/tables/{table_id}/bulk-entries`,
    equivalent: {
      operation: 'upsertDatatableRows',
      method: 'POST',
      path: ROW_PATH,
      params: [TABLE_TO_DATATABLE, { b: 'data (array)', a: 'data (array)', how: 'same body' }],
    },
    attention: null,
  },
  ...rowItemMappings(),
  {
    operation: 'listEmailEventsB',
    method: 'GET',
    path: `${WS}/emails/events`,
    equivalent: {
      operation: 'listEmailEvents',
      method: 'GET',
      path: `${WS}/email-events`,
      params: [
        PAGE,
        LIMIT,
        SORT,
        START,
        END,
        { b: 'type', a: 'type', how: 'unchanged' },
        { b: 'email_id', a: 'email_id', how: 'unchanged' },
        { b: 'recipient', a: 'recipient', how: 'unchanged' },
        {
          b: 'filter',
          a: 'type, email_id, recipient',
          how: 'only = conditions on event_type (→ type), email_id and email (→ recipient) translate; any other condition cannot',
        },
      ],
    },
    attention: null,
  },
];

/** The dashboard links (docs/analytics.md, "Dashboard links") and the keywords: shared paths, the same operation in Style A. */
function dashboardLinkMappings(): OperationMapping[] {
  const path = `${WS}/forms/{form_id}/dashboard-links`;
  const pairs: [string, string, string, ParamMapping[]][] = [
    ['createDashboardLink', 'POST', path, [STYLE_HEADER, { b: 'expiresAt (body)', a: 'expires_at (body)', how: 'renamed; same instant' }]],
    ['listDashboardLinks', 'GET', path, [STYLE_HEADER]],
    ['revokeDashboardLink', 'DELETE', `${path}/{link_id}`, [STYLE_HEADER]],
    // Keywords (docs/analytics.md, "Keywords"): the same operation; the period's parameters as everywhere.
    ['getFormKeywords', 'GET', `${WS}/forms/{form_id}/analytics/keywords`, [STYLE_HEADER, START, END, { b: 'limit', a: 'limit', how: 'unchanged (1..50)' }]],
  ];
  return samePaths(pairs);
}

/** Topics (docs/analytics.md, "Topics"): shared paths, the same operations and body fields in Style A. */
function topicMappings(): OperationMapping[] {
  const path = `${WS}/topics`;
  const pairs: [string, string, string][] = [
    ['listTopics', 'GET', path],
    ['createTopic', 'POST', path],
    ['getTopic', 'GET', `${path}/{topic_id}`],
    ['updateTopic', 'PATCH', `${path}/{topic_id}`],
    ['deleteTopic', 'DELETE', `${path}/{topic_id}`],
  ];
  return pairs.map(([operation, method, p]) => ({
    operation,
    method,
    path: p,
    equivalent: { operation, method, path: p, params: [STYLE_HEADER] },
    attention: null,
  }));
}

/** Deleting responses (docs/api-rules.md, "Deleting responses"): the same operations; the bulk delete's body renamed. */
function responseDeletionMappings(): OperationMapping[] {
  const body = (b: string, a: string, how = 'renamed; same meaning'): ParamMapping => ({ b: `${b} (body)`, a: `${a} (body)`, how });
  const pairs: [string, string, string, ParamMapping[]][] = [
    ['deleteResponse', 'DELETE', `${WS}/responses/{response_id}`, [STYLE_HEADER]],
    [
      'createResponseDeletion',
      'POST',
      `${WS}/response-deletions`,
      [
        STYLE_HEADER,
        body('formId', 'form_id'),
        body('startDate', 'created_after', 'same instant; both include it'),
        body('endDate', 'created_before', 'a date includes its whole day in Style B: send the next day to created_before'),
        body(
          'filter',
          'score_gte, score_lte, ids and answer… (body)',
          'each clause as the list parameter of the same name would take it (docs/migrating-between-styles.md, "Response filters")',
        ),
        body('dryRun', 'dry_run'),
      ],
    ],
    ['getResponseDeletion', 'GET', `${WS}/response-deletions/{deletion_id}`, [STYLE_HEADER]],
  ];
  return samePaths(pairs);
}

/** Operations served the same in both styles on one shared path: each is its own equivalent. */
function samePaths(pairs: ReadonlyArray<[string, string, string, ParamMapping[]]>): OperationMapping[] {
  return pairs.map(([operation, method, p, params]) => ({ operation, method, path: p, equivalent: { operation, method, path: p, params }, attention: null }));
}

/** Webhook recovery (docs/webhooks.md, "Recovering missed events"): the same operations and body names. */
function webhookRecoveryMappings(): OperationMapping[] {
  const until: ParamMapping = {
    b: 'until (body)',
    a: 'until (body)',
    how: 'Style B includes it (a date: its whole day), Style A excludes it: send the instant after, or the next day, to Style A',
  };
  const pairs: [string, string, string, ParamMapping[]][] = [
    ['recoverWebhookEndpoint', 'POST', `${WS}/webhook-endpoints/{endpoint_id}/recover`, [STYLE_HEADER, until]],
    ['getWebhookRecovery', 'GET', `${WS}/webhook-endpoints/{endpoint_id}/recoveries/{recovery_id}`, [STYLE_HEADER]],
  ];
  return samePaths(pairs);
}

function rowListMappings(): OperationMapping[] {
  return ['listTableRowsB', 'listTableEntriesB'].map((operation) => ({
    operation,
    method: 'GET',
    path: operation === 'listTableRowsB' ? `${WS}/tables/{table_id}` : `${WS}/tables/{table_id}/entries`,
    equivalent: { operation: 'listDatatableRows', method: 'GET', path: ROW_PATH, params: [TABLE_TO_DATATABLE, ...ROW_LIST_PARAMS] },
    attention: null,
  }));
}

function rowItemMappings(): OperationMapping[] {
  const pairs: [string, string, string][] = [
    ['getTableEntryB', 'GET', 'getDatatableRow'],
    ['updateTableEntryB', 'PATCH', 'updateDatatableRow'],
    ['deleteTableEntryB', 'DELETE', 'deleteDatatableRow'],
  ];
  return pairs.map(([operation, method, a]) => ({
    operation,
    method,
    path: `${WS}/tables/{table_id}/entries/{row_id}`,
    equivalent: { operation: a, method, path: `${ROW_PATH}/{row_id}`, params: [TABLE_TO_DATATABLE] },
    attention: null,
  }));
}

const BY_OPERATION = new Map(STYLE_B_OPERATIONS.map((m) => [m.operation, m]));

/** The mapping of a Style B operationId; undefined for an operation Style B does not serve. */
export function mappingFor(operation: string): OperationMapping | undefined {
  return BY_OPERATION.get(operation);
}
