/**
 * Problems of a fixture document (docs/import.md, "Running an import"): each with its JSON path, reported all at
 * once, grouped by item in document order, without repeats.
 */

export interface ImportProblem {
  /** JSON path in the document, e.g. `responses[12].form_id`; `$` for the document itself. */
  path: string;
  message: string;
}

/** The document cannot be imported; nothing was written. */
export class ImportError extends Error {
  constructor(readonly problems: ImportProblem[]) {
    super(
      problems.length === 1
        ? `the fixture has a problem: ${problems[0]!.path}: ${problems[0]!.message}`
        : `the fixture has ${problems.length} problems; first: ${problems[0]?.path}: ${problems[0]?.message}`,
    );
    this.name = 'ImportError';
  }
}

/** The problems found so far, in the order the checks found them. */
export class ProblemList {
  private readonly list: ImportProblem[] = [];

  add(path: string, message: string): void {
    this.list.push({ path, message });
  }

  get count(): number {
    return this.list.length;
  }

  /**
   * Every problem once, items in document order (`keys`: the document's top-level keys as they came),
   * the problems of one item in the order they were found (the checks run by kind, not by item).
   */
  inDocumentOrder(keys: readonly string[]): ImportProblem[] {
    const seen = new Set<string>();
    const unique = this.list.filter((p) => {
      const k = `${p.path}\u0000${p.message}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    const rank = (path: string): [number, number] => {
      const m = /^([A-Za-z_$][\w$]*)(?:\[(\d+)\])?/.exec(path);
      return m ? [keys.indexOf(m[1]!), m[2] === undefined ? -1 : Number(m[2])] : [-1, -1];
    };
    return unique
      .map((p, i) => ({ p, i, k: rank(p.path) }))
      .sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.i - b.i)
      .map((x) => x.p);
  }
}
