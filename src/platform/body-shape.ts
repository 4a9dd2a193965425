/**
 * The shape checks of a parsed JSON body that come before validation (docs/writes-keys-limits.md,
 * "Request bodies"): at most MAX_BODY_DEPTH levels of arrays and objects, and valid Unicode in every
 * key and string. One walk on an explicit stack, so a body nested 10,000 levels deep costs a loop,
 * not the JS stack (the validator, the idempotency fingerprint and the database would each recurse).
 */

/** Levels of arrays and objects a JSON body may nest (the body itself is level 1). */
export const MAX_BODY_DEPTH = 32;

export interface BodyProblem {
  kind: 'depth' | 'unicode';
  /** The member as a field path (`answers[0].value`, `data.plan`), `body` for the body itself. */
  field: string;
}

interface Node {
  value: unknown;
  parent: Node | undefined;
  /** Key in the parent object or index in the parent array; undefined for the body. */
  key: string | number | undefined;
  depth: number;
}

/** A string holds a lone surrogate (not valid Unicode; PostgreSQL refuses it in jsonb). */
const illFormed = (s: string) => !s.isWellFormed();

/** `data[0].plan` from a node's chain; `dropIndexes` leaves out trailing array indexes (names the member). */
function fieldOf(node: Node, dropIndexes = false): string {
  const keys: Array<string | number> = [];
  for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) keys.push(n.key);
  keys.reverse();
  if (dropIndexes) while (typeof keys[keys.length - 1] === 'number') keys.pop();
  let field = '';
  for (const k of keys) field += typeof k === 'number' ? `[${k}]` : field ? `.${k}` : k;
  return field || 'body';
}

/**
 * The first problem of a parsed JSON body in document order, or undefined: a container deeper than
 * MAX_BODY_DEPTH (`field` names the member holding it: the path without the array indexes that end it,
 * so `{"answers":[{"value":[[[…]]]}]}` gives `answers[0].value`), or a key or string that is not valid
 * Unicode (`field` is its path).
 */
export function bodyProblem(body: unknown): BodyProblem | undefined {
  const stack: Node[] = [{ value: body, parent: undefined, key: undefined, depth: 1 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value } = node;
    if (typeof node.key === 'string' && illFormed(node.key)) return { kind: 'unicode', field: fieldOf(node) };
    if (typeof value === 'string') {
      if (illFormed(value)) return { kind: 'unicode', field: fieldOf(node) };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (node.depth > MAX_BODY_DEPTH) return { kind: 'depth', field: fieldOf(node, true) };
    // Children pushed last to first, so they are visited in document order.
    const depth = node.depth + 1;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: node, key: i, depth });
    } else {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (value as Record<string, unknown>)[keys[i]!], parent: node, key: keys[i], depth });
    }
  }
  return undefined;
}
