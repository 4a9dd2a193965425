/**
 * Sort parameters (API document "Common query parameters"; docs/api-rules.md, "Sorting"):
 * `field:direction[,field:direction…]`, direction `asc` or `desc` (default `asc` when omitted).
 * Only whitelisted fields; the order always ends with the id tie-breaker in the direction of the
 * last field, so pages never repeat or skip a row.
 */
import { errors } from '../errors';
import { lookupField, type ListField, type SortKey } from './fields';

export interface SortOptions {
  /** Sortable fields of this list. */
  fields: ReadonlyMap<string, ListField>;
  /** The unique id field appended as tie-breaker. */
  tieBreaker: ListField;
  /** Order when no `sort` is given (without tie-breaker). */
  defaultSort: readonly SortKey[];
  /** Style B accepts several comma-separated fields; Style A one. */
  multi: boolean;
}

/**
 * Parses `raw` into sort keys ending with the tie-breaker.
 * @throws AppError validation_error (location query, field `sort`) for an unknown field or direction.
 */
export function parseSort(raw: string | undefined, opts: SortOptions): SortKey[] {
  const keys: SortKey[] = [];
  if (raw === undefined || raw.trim() === '') {
    keys.push(...opts.defaultSort);
  } else {
    const parts = raw.split(',').map((p) => p.trim());
    if (!opts.multi && parts.length > 1) {
      throw errors.invalid('query', 'sort', `\`sort\` takes one field:direction here; got "${raw}".`);
    }
    for (const part of parts) {
      const [name = '', dir = 'asc', ...rest] = part.split(':').map((s) => s.trim());
      const field = name === '' ? undefined : lookupField(opts.fields, name);
      if (!field) {
        const known = [...opts.fields.keys()].join(', ');
        throw errors.invalid('query', 'sort', `\`sort\` field "${name}" is not sortable; use one of: ${known}.`);
      }
      const direction = dir.toLowerCase();
      if (rest.length > 0 || (direction !== 'asc' && direction !== 'desc')) {
        throw errors.invalid('query', 'sort', `\`sort\` direction must be asc or desc; got "${part}".`);
      }
      if (keys.some((k) => k.field.name === field.name)) {
        throw errors.invalid('query', 'sort', `\`sort\` names "${field.name}" twice.`);
      }
      keys.push({ field, dir: direction });
    }
  }
  const withoutTie = keys.filter((k) => k.field.name !== opts.tieBreaker.name);
  const lastDir = keys.length > 0 ? keys[keys.length - 1]!.dir : 'desc';
  const tie = keys.find((k) => k.field.name === opts.tieBreaker.name)?.dir ?? lastDir;
  return [...withoutTie, { field: opts.tieBreaker, dir: tie }];
}

/**
 * parseSort for a list that is newest first unless `raw` says otherwise: the default order is the
 * `created_at` field of `opts.fields`, descending (then the tie-breaker).
 */
export function parseSortNewestFirst(raw: string | undefined, opts: Omit<SortOptions, 'defaultSort'>): SortKey[] {
  const createdAt = opts.fields.get('created_at');
  if (!createdAt) throw new Error('parseSortNewestFirst: the list has no sortable created_at field');
  return parseSort(raw, { ...opts, defaultSort: [{ field: createdAt, dir: 'desc' }] });
}

/** Stable text form of an order, e.g. `created_at:desc,id:desc` (part of every cursor). */
export function sortSignature(keys: readonly SortKey[]): string {
  return keys.map((k) => `${k.field.name}:${k.dir}`).join(',');
}
