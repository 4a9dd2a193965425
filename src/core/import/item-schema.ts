/**
 * The JSON Schema of the fixture document (fixture-schema.ts) applied one item at a time, as the
 * document is read in pieces: the document's own rules (an object, known keys, arrays) here, each
 * item's rules by its collection's item schema, each datatable row by the row schema. Problems carry
 * the item's path in the document, as if the whole document had been validated at once.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { isDateTimeWithOffset } from '../query/dates';
import { FIXTURE_SCHEMA } from './fixture-schema';
import { isCollection, type Part } from './fixture-source';
import { pointerToPath, prop } from './json-paths';
import type { ProblemList } from './problems';

let validators: Map<Part, ValidateFunction> | undefined;

function compile(): Map<Part, ValidateFunction> {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  // The one date parser of the API (query/dates.ts): its range and rules, not ajv-formats' (leap seconds, year 0000).
  ajv.addFormat('date-time', { type: 'string', validate: isDateTimeWithOffset });
  const props = FIXTURE_SCHEMA.properties;
  const map = new Map<Part, ValidateFunction>();
  for (const [name, schema] of Object.entries(props)) {
    if (isCollection(name)) map.set(name, ajv.compile(schema.items));
  }
  map.set('rows', ajv.compile(props.datatables.items.properties.rows.items));
  return map;
}

function problemOf(e: ErrorObject, base: string): { path: string; message: string } {
  const path = pointerToPath(e.instancePath, base);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { path: prop(path, String(p.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { path: prop(path, String(p.additionalProperty)), message: 'is not an allowed property' };
    case 'enum':
      return { path, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'format':
      return {
        path,
        message: p.format === 'date-time' ? 'must be an ISO 8601 date-time with an offset, e.g. "2026-11-22T10:15:30Z"' : `must be a valid ${String(p.format)}`,
      };
    case 'pattern':
      return { path, message: `must match ${String(p.pattern)}` };
    case 'propertyNames':
      return { path: prop(path, String(p.propertyName)), message: 'is not an allowed property name' };
    default:
      return { path, message: e.message ?? `fails ${e.keyword}` };
  }
}

/**
 * Checks one item (`part` rows: a datatable row) against its schema and adds its problems at `path`.
 * @returns true when the item fits (its content can be checked further).
 */
export function checkItemSchema(part: Part, value: unknown, path: string, problems: ProblemList): boolean {
  validators ??= compile();
  const validate = validators.get(part)!;
  if (validate(value)) return true;
  for (const e of validate.errors ?? []) {
    const p = problemOf(e, path);
    problems.add(p.path, p.message);
  }
  return false;
}

/**
 * The document's own rules for a top-level key: a known collection holding an array.
 * @returns true when the key is a collection and its value an array.
 */
export function checkTopLevel(key: string, array: boolean, problems: ProblemList): boolean {
  if (!isCollection(key)) {
    problems.add(prop('$', key), 'is not an allowed property');
    return false;
  }
  if (!array) problems.add(prop('$', key), 'must be array');
  return array;
}
