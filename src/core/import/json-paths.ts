/**
 * JSON paths of a fixture document as problems name them (docs/import.md, "Running an import": `responses[12].form_id`):
 * identifiers joined with dots, indexes in brackets, other keys as quoted brackets; `$` is the document.
 */

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The path of property `key` of the value at `path`: `prop('forms[0]', 'id')` → `forms[0].id`. */
export function prop(path: string, key: string): string {
  const base = path === '$' ? '' : path;
  if (IDENT.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base === '' ? '$' : base}[${JSON.stringify(key)}]`;
}

/** The path of element `i` of the array at `path`: `idx('responses', 3)` → `responses[3]`. */
export function idx(path: string, i: number): string {
  return `${path}[${i}]`;
}

/**
 * A JSON pointer (as ajv reports it) below `base`: `pointerToPath('/answers/0', 'responses[12]')` →
 * `responses[12].answers[0]`; numeric segments become indexes.
 */
export function pointerToPath(pointer: string, base = '$'): string {
  if (pointer === '') return base;
  let path = base;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path = /^(0|[1-9]\d*)$/.test(seg) ? idx(path === '$' ? '' : path, Number(seg)) : prop(path, seg);
  }
  return path;
}
