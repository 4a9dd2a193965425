/**
 * @feedback-service/client: a typed client of feedback-service in either style (docs/typescript-client.md).
 *
 * `createClient({ baseUrl, apiKey, style })` returns the generated fetch client (`client`, to pass to any
 * function of `sdk`) with `X-API-Key` and `X-API-Style` set on every request and 429s retried after
 * `Retry-After`, plus the lists and writes that differ between the styles: Style A iterates items across
 * cursor pages, Style B yields numbered pages with totals; writes take an `idempotencyKey`. Every type
 * comes from the code generated from openapi/openapi.yaml (src/generated, `npm run generate`).
 */
import { createClient as createFetchClient, type Client } from './generated/client';
import * as sdk from './generated/sdk.gen';
import type {
  EntryUpsertRequestB,
  EventA,
  EventB,
  StreamEventsData,
  StreamResponsesData,
  ListDatatableRowsData,
  ListResponsesData,
  ListTableEntriesBData,
  ResponseA,
  ResponseB,
  ResponseEnvelopeA,
  ResponseEnvelopeB,
  ResponseListEnvelopeA,
  ResponseListEnvelopeB,
  RowA,
  RowB,
  RowBUpsertResult,
  RowsUpsertRequestA,
  RowsWriteEnvelopeA,
} from './generated/types.gen';
import { eachItem, eachPage, type PageB } from './paging';
import { retryingFetch, type RetryOptions } from './retry';
import { ApiError } from './api-error';
import { followStream, type FollowOptions, type StreamEvent } from './stream';

export * from './generated/types.gen';
export { sdk };
export type { Client };
export { eachItem, eachPage, nextCursor, type CursorPage, type NumberedPage, type PageB } from './paging';
export { retryAfterSeconds, type RetryInfo, type RetryOptions, type Sleep } from './retry';
export { ApiError } from './api-error';
export { followStream, parseEventStream, type FollowOptions, type ReconnectInfo, type StreamEvent } from './stream';

export type Style = 'A' | 'B';

export interface CreateClientOptions extends RetryOptions {
  /** The service's origin, e.g. `https://feedback.example.com` (paths start with `/api/v1`). */
  baseUrl: string;
  apiKey: string;
  style: Style;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/** Options of a write. */
export interface WriteOptions {
  /** Sent as `Idempotency-Key`: the same key, method, path and body within 24 hours replays the first answer. */
  idempotencyKey?: string;
}

/** The answer of a write. */
export interface WriteResult<T> {
  data: T;
  status: number;
  /** True when the service replayed a stored answer (`Idempotent-Replayed: true`). */
  replayed: boolean;
  response: Response;
}

type Query<D extends { query?: unknown }> = NonNullable<D['query']>;
type ResponsesQuery = Query<ListResponsesData>;
/**
 * Parameters of the shared responses list only Style B knows; the other parameters, but for `cursor` and
 * BOTH_STYLES, are Style A's (docs/migrating-between-styles.md, "How the style is chosen"). A request with
 * parameters of the other style is a 400, so each style's query type refuses them.
 */
type StyleBOnly = 'page' | 'filter' | 'start_date' | 'end_date' | 'include_actionlist_data';
type BothStyles = 'limit' | 'sort' | 'form_id' | 'include_table_data';
type StyleAOnly = Exclude<keyof ResponsesQuery, StyleBOnly | BothStyles | 'cursor'>;
/** The server reads a repeatable parameter given once (`score_ne=5`) as a list of one. */
type OneOrMany<T> = T extends ReadonlyArray<infer U> ? U | U[] : T;
/** Style A query of the shared responses list: no cursor (the iterator follows it) and no Style B parameter; a typed filter takes one value or a list. */
export type ResponsesQueryA = { [K in StyleAOnly | BothStyles]?: OneOrMany<ResponsesQuery[K]> } & { [K in StyleBOnly]?: never };
/** Style B query of the shared responses list: no Style A parameter (filter with `filter`); `page` is the first page yielded. */
export type ResponsesQueryB = Pick<ResponsesQuery, StyleBOnly | BothStyles> & { [K in StyleAOnly]?: never };

/** Query of `GET {ws}/responses/stream` (the list's filters of the client's style; the position goes in FollowOptions). */
export type ResponsesStreamQuery = Omit<Query<StreamResponsesData>, 'after'>;
/** Query of `GET {ws}/events/stream`. */
export type EventsStreamQuery = Omit<Query<StreamEventsData>, 'after'>;

/** Follows a live stream of the client's style: the query's parameters, reconnecting with `Last-Event-ID`. */
type Follow = <T>(path: string, query: Record<string, unknown>, options: FollowOptions | undefined) => AsyncGenerator<StreamEvent<T>, void, undefined>;

export interface StyleAClient {
  readonly style: 'A';
  /** The generated client: `sdk.listForms({ client, path: { workspace_id } })`. */
  readonly client: Client;
  responses: {
    /** Every response of the workspace, newest first unless `sort` says otherwise, across cursor pages. */
    list(workspaceId: string, query?: ResponsesQueryA): AsyncGenerator<ResponseA, void, undefined>;
    get(workspaceId: string, responseId: string): Promise<ResponseA>;
    /** New responses as they are created (`GET {ws}/responses/stream`), resuming after each reconnect (followStream). */
    follow(workspaceId: string, query?: ResponsesStreamQuery, options?: FollowOptions): AsyncGenerator<StreamEvent<ResponseA>, void, undefined>;
  };
  events: {
    /** New events of the log as they are committed (`GET {ws}/events/stream`), resuming after each reconnect. */
    follow(workspaceId: string, query?: EventsStreamQuery, options?: FollowOptions): AsyncGenerator<StreamEvent<EventA>, void, undefined>;
  };
  rows: {
    /** Every row of a datatable, across cursor pages. */
    list(workspaceId: string, datatableId: string, query?: Omit<Query<ListDatatableRowsData>, 'cursor'>): AsyncGenerator<RowA, void, undefined>;
    /** Adds or updates rows (upsert on `data.id`); status 201 when every row was new, 200 otherwise. */
    upsert(workspaceId: string, datatableId: string, body: RowsUpsertRequestA, options?: WriteOptions): Promise<WriteResult<RowsWriteEnvelopeA>>;
  };
}

export interface StyleBClient {
  readonly style: 'B';
  /** The generated client: `sdk.listTablesB({ client, path: { workspace_id } })`. */
  readonly client: Client;
  responses: {
    /** The pages of the workspace's responses with totals (`filter`, `sort`, dates narrow them). */
    pages(workspaceId: string, query?: ResponsesQueryB): AsyncGenerator<PageB<ResponseB>, void, undefined>;
    get(workspaceId: string, responseId: string): Promise<ResponseB>;
    /** New responses as they are created (`GET {ws}/responses/stream`), resuming after each reconnect (followStream). */
    follow(workspaceId: string, query?: ResponsesStreamQuery, options?: FollowOptions): AsyncGenerator<StreamEvent<ResponseB>, void, undefined>;
  };
  events: {
    /** New events of the log as they are committed (`GET {ws}/events/stream`), resuming after each reconnect. */
    follow(workspaceId: string, query?: EventsStreamQuery, options?: FollowOptions): AsyncGenerator<StreamEvent<EventB>, void, undefined>;
  };
  entries: {
    /** The pages of a table's entries with totals. */
    pages(workspaceId: string, tableId: string, query?: Query<ListTableEntriesBData>): AsyncGenerator<PageB<RowB>, void, undefined>;
    /** Creates or updates the entry whose `data.id` is given (answers 201 either way). */
    upsert(workspaceId: string, tableId: string, body: EntryUpsertRequestB, options?: WriteOptions): Promise<WriteResult<RowBUpsertResult>>;
  };
}

type Fields<T> = { data?: T; error?: unknown; response?: Response };

/** The body of a 2xx answer; an ApiError otherwise (a network failure is thrown as fetch threw it). */
async function ok<T>(call: Promise<Fields<T>>): Promise<{ data: T; response: Response }> {
  const { data, error, response } = await call;
  if (response === undefined) throw error;
  if (!response.ok) throw new ApiError(response.status, error, response);
  return { data: data as T, response };
}

function written<T>({ data, response }: { data: T; response: Response }): WriteResult<T> {
  return { data, status: response.status, replayed: response.headers.get('Idempotent-Replayed') === 'true', response };
}

const idempotency = (options: WriteOptions | undefined) => (options?.idempotencyKey === undefined ? undefined : { 'Idempotency-Key': options.idempotencyKey });

const streamPath = (workspaceId: string, what: 'responses' | 'events') => `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/${what}/stream`;

function styleA(client: Client, follow: Follow): StyleAClient {
  return {
    style: 'A',
    client,
    responses: {
      list: (workspace_id, query = {}) =>
        // A single value is serialized as `name=value`, a list as the parameter repeated: both are what the generated type's arrays mean.
        eachItem(
          async (cursor) =>
            (await ok(sdk.listResponses({ client, path: { workspace_id }, query: { ...(query as ResponsesQuery), cursor } }))).data as ResponseListEnvelopeA,
        ),
      get: async (workspace_id, response_id) => ((await ok(sdk.getResponse({ client, path: { workspace_id, response_id } }))).data as ResponseEnvelopeA).data,
      follow: (workspace_id, query = {}, options) => follow<ResponseA>(streamPath(workspace_id, 'responses'), query, options),
    },
    events: { follow: (workspace_id, query = {}, options) => follow<EventA>(streamPath(workspace_id, 'events'), query, options) },
    rows: {
      list: (workspace_id, datatable_id, query = {}) =>
        eachItem(async (cursor) => (await ok(sdk.listDatatableRows({ client, path: { workspace_id, datatable_id }, query: { ...query, cursor } }))).data),
      upsert: async (workspace_id, datatable_id, body, options) =>
        written(await ok(sdk.upsertDatatableRows({ client, path: { workspace_id, datatable_id }, body, headers: idempotency(options) }))),
    },
  };
}

function styleB(client: Client, follow: Follow): StyleBClient {
  return {
    style: 'B',
    client,
    responses: {
      pages: (workspace_id, query = {}) =>
        eachPage(
          async (page) => (await ok(sdk.listResponses({ client, path: { workspace_id }, query: { ...query, page } }))).data as ResponseListEnvelopeB,
          query.page,
        ),
      get: async (workspace_id, response_id) => ((await ok(sdk.getResponse({ client, path: { workspace_id, response_id } }))).data as ResponseEnvelopeB).data,
      follow: (workspace_id, query = {}, options) => follow<ResponseB>(streamPath(workspace_id, 'responses'), query, options),
    },
    events: { follow: (workspace_id, query = {}, options) => follow<EventB>(streamPath(workspace_id, 'events'), query, options) },
    entries: {
      pages: (workspace_id, table_id, query = {}) =>
        eachPage(async (page) => (await ok(sdk.listTableEntriesB({ client, path: { workspace_id, table_id }, query: { ...query, page } }))).data, query.page),
      upsert: async (workspace_id, table_id, body, options) =>
        written(await ok(sdk.upsertTableEntryB({ client, path: { workspace_id, table_id }, body, headers: idempotency(options) }))),
    },
  };
}

/**
 * A client of one style. Every request carries `X-API-Key` and `X-API-Style` (the shared paths answer in
 * that style; the others answer in their own); a 429 is retried after `Retry-After` (see RetryOptions).
 */
export function createClient(options: CreateClientOptions & { style: 'A' }): StyleAClient;
export function createClient(options: CreateClientOptions & { style: 'B' }): StyleBClient;
export function createClient(options: CreateClientOptions): StyleAClient | StyleBClient;
export function createClient(options: CreateClientOptions): StyleAClient | StyleBClient {
  const send = retryingFetch(options.fetch ?? ((input, init) => fetch(input, init)), options);
  const client = createFetchClient({ baseUrl: options.baseUrl, auth: options.apiKey, headers: { 'X-API-Style': options.style }, fetch: send });
  const follow: Follow = (path, query, followOptions) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) search.append(name, String(v));
    }
    const url = `${options.baseUrl.replace(/\/$/, '')}${path}${search.size > 0 ? `?${search.toString()}` : ''}`;
    return followStream(send, url, { 'X-API-Key': options.apiKey, 'X-API-Style': options.style }, followOptions);
  };
  return options.style === 'A' ? styleA(client, follow) : styleB(client, follow);
}
