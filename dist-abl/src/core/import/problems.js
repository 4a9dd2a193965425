"use strict";
/**
 * Problems of a fixture document (CONTRACT sections 1 and 9): each with its JSON path, reported all at
 * once, grouped by item in document order, without repeats.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.ProblemList = exports.ImportError = void 0;
/** The document cannot be imported; nothing was written. */
class ImportError extends Error {
    problems;
    constructor(problems) {
        super(problems.length === 1
            ? `the fixture has a problem: ${problems[0].path}: ${problems[0].message}`
            : `the fixture has ${problems.length} problems; first: ${problems[0]?.path}: ${problems[0]?.message}`);
        this.problems = problems;
        this.name = 'ImportError';
    }
}
exports.ImportError = ImportError;
/** The problems found so far, in the order the checks found them. */
class ProblemList {
    list = [];
    add(path, message) {
        this.list.push({ path, message });
    }
    get count() {
        return this.list.length;
    }
    /**
     * Every problem once, items in document order (`keys`: the document's top-level keys as they came),
     * the problems of one item in the order they were found (the checks run by kind, not by item).
     */
    inDocumentOrder(keys) {
        const seen = new Set();
        const unique = this.list.filter((p) => {
            const k = `${p.path}\u0000${p.message}`;
            if (seen.has(k))
                return false;
            seen.add(k);
            return true;
        });
        const rank = (path) => {
            const m = /^([A-Za-z_$][\w$]*)(?:\[(\d+)\])?/.exec(path);
            return m ? [keys.indexOf(m[1]), m[2] === undefined ? -1 : Number(m[2])] : [-1, -1];
        };
        return unique
            .map((p, i) => ({ p, i, k: rank(p.path) }))
            .sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.i - b.i)
            .map((x) => x.p);
    }
}
exports.ProblemList = ProblemList;
//# sourceMappingURL=problems.js.map