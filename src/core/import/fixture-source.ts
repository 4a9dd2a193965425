/**
 * A fixture document (docs/import.md, "Streaming, reading and writing") as a sequence of entries, read as often as the importer
 * needs (it reads in passes: small collections first, then rows, then responses and email events).
 * Two sources give the same entries: a document already in memory (documentSource) and the bytes of a
 * JSON text, parsed one item at a time (jsonSource in json-scanner.ts), so memory stays flat in the
 * document's size.
 */
import { isPlainObject } from '../plain-object';

/** The top-level arrays whose items are entries of their own; other keys arrive whole. */
export const COLLECTIONS = ['workspaces', 'api_keys', 'forms', 'datatables', 'responses', 'email_events', 'webhook_endpoints'] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** What one reading parses: item collections, and `rows` for the rows of datatables. */
export type Part = Collection | 'rows';

export function isCollection(key: string): key is Collection {
  return (COLLECTIONS as readonly string[]).includes(key);
}

/**
 * One entry, in document order:
 * - `key`: a top-level key starts; `array` tells whether its value is an array;
 * - `item`: an element of a top-level collection (`responses[12]`). A datatable comes after its rows,
 *   with `rows` emptied (`[]`) when they were an array: each row is a `row` entry of its own;
 * - `row`: `datatables[index].rows[row]`;
 * - `end`: a top-level array ended after `length` elements (also for collections not read);
 * - `value`: a top-level value that is not a collection's array (wrong type, or an unknown key);
 * - `document`: the document is not an object (its value, for the message).
 */
export type FixtureEntry =
  | { kind: 'key'; key: string; array: boolean }
  | { kind: 'item'; collection: Collection; index: number; value: unknown }
  | { kind: 'row'; index: number; row: number; value: unknown }
  | { kind: 'end'; key: string; length: number }
  | { kind: 'value'; key: string; value: unknown }
  | { kind: 'document'; value: unknown };

/** A document that can be read more than once. */
export interface FixtureSource {
  /**
   * Reads the document from its start. Items and rows of parts not in `parts` are skipped (not
   * parsed, no entry); `key`, `end`, `value` and `document` entries always come.
   * @throws ImportError at `$` when the text is not well-formed JSON.
   */
  entries(parts: ReadonlySet<Part>): AsyncIterable<FixtureEntry>;
}

/** A document already in memory (`importFixture(db, doc)`), read like a JSON text. */
export function documentSource(doc: unknown): FixtureSource {
  return {
    async *entries(parts) {
      if (!isPlainObject(doc)) {
        yield { kind: 'document', value: doc };
        return;
      }
      for (const key of Object.keys(doc)) {
        const value = doc[key];
        yield { kind: 'key', key, array: Array.isArray(value) };
        if (!Array.isArray(value) || !isCollection(key)) {
          yield { kind: 'value', key, value };
          continue;
        }
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (key === 'datatables' && isPlainObject(item) && Array.isArray(item.rows)) {
            if (parts.has('rows')) {
              for (let r = 0; r < item.rows.length; r++) yield { kind: 'row', index: i, row: r, value: item.rows[r] };
            }
            if (parts.has(key)) yield { kind: 'item', collection: key, index: i, value: { ...item, rows: [] } };
          } else if (parts.has(key)) {
            yield { kind: 'item', collection: key, index: i, value: item };
          }
        }
        yield { kind: 'end', key, length: value.length };
      }
    },
  };
}
