"use strict";
/**
 * A fixture document (CONTRACT section 9) as a sequence of entries, read as often as the importer
 * needs (it reads in passes: small collections first, then rows, then responses and email events).
 * Two sources give the same entries: a document already in memory (documentSource) and the bytes of a
 * JSON text, parsed one item at a time (jsonSource in json-scanner.ts), so memory stays flat in the
 * document's size.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.COLLECTIONS = void 0;
exports.isCollection = isCollection;
exports.documentSource = documentSource;
/** The top-level arrays whose items are entries of their own; other keys arrive whole. */
exports.COLLECTIONS = [
    'workspaces',
    'api_keys',
    'forms',
    'datatables',
    'responses',
    'email_events',
    'webhook_endpoints',
];
function isCollection(key) {
    return exports.COLLECTIONS.includes(key);
}
function isPlainObject(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}
/** A document already in memory (`importFixture(db, doc)`), read like a JSON text. */
function documentSource(doc) {
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
                    const item = value[i];
                    if (key === 'datatables' && isPlainObject(item) && Array.isArray(item.rows)) {
                        if (parts.has('rows')) {
                            for (let r = 0; r < item.rows.length; r++)
                                yield { kind: 'row', index: i, row: r, value: item.rows[r] };
                        }
                        if (parts.has(key))
                            yield { kind: 'item', collection: key, index: i, value: { ...item, rows: [] } };
                    }
                    else if (parts.has(key)) {
                        yield { kind: 'item', collection: key, index: i, value: item };
                    }
                }
                yield { kind: 'end', key, length: value.length };
            }
        },
    };
}
//# sourceMappingURL=fixture-source.js.map