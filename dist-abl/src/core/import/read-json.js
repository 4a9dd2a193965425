"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.readJsonDocument = readJsonDocument;
/**
 * Reads a fixture document (CONTRACT sections 1 and 9) from a stream of bytes with a streaming JSON
 * parser (stream-json), so a document larger than the biggest V8 string still loads. The input is
 * any async iterable of chunks (a file or stdin stream, given by the CLI in src/cli/import-file.ts);
 * progress is reported through a callback.
 */
const node_stream_1 = require("node:stream");
const importer_1 = require("./importer");
/**
 * Builds a value from stream-json tokens (packed keys, strings and numbers), like JSON.parse:
 * a `__proto__` key becomes an own property, never the prototype.
 */
class TokenAssembler {
    stack = [];
    current;
    key = null;
    done = false;
    value;
    put(v) {
        const c = this.current;
        if (c === undefined) {
            this.value = v;
            this.done = true;
        }
        else if (Array.isArray(c)) {
            c.push(v);
        }
        else if (this.key === '__proto__') {
            Object.defineProperty(c, '__proto__', { value: v, enumerable: true, writable: true, configurable: true });
        }
        else {
            c[this.key] = v;
        }
    }
    consume(t) {
        switch (t.name) {
            case 'startObject':
            case 'startArray':
                if (this.current !== undefined)
                    this.stack.push(this.current, this.key);
                this.current = t.name === 'startObject' ? {} : [];
                this.key = null;
                break;
            case 'endObject':
            case 'endArray': {
                const finished = this.current;
                if (this.stack.length > 0) {
                    this.key = this.stack.pop();
                    this.current = this.stack.pop();
                }
                else {
                    this.current = undefined;
                }
                this.put(finished);
                break;
            }
            case 'keyValue':
                this.key = t.value;
                break;
            case 'stringValue':
                this.put(t.value);
                break;
            case 'numberValue':
                this.put(Number(t.value));
                break;
            case 'nullValue':
                this.put(null);
                break;
            case 'trueValue':
                this.put(true);
                break;
            case 'falseValue':
                this.put(false);
                break;
        }
    }
}
/**
 * Parses one JSON document from chunks of bytes without holding its text in memory.
 * @param chunks the document's bytes (Buffer/Uint8Array or string chunks), e.g. a file stream.
 * @param onBytes called with the running count of bytes read.
 * @throws ImportError at path `$` when the input is not one well-formed JSON value; the input's own
 * errors (a missing file, a closed pipe) as they are.
 */
async function readJsonDocument(chunks, onBytes) {
    const source = node_stream_1.Readable.from(chunks, { objectMode: false });
    // stream-json is an ES module: loaded on use (require(esm), Node >= 20.19) so that this CommonJS
    // module, and the Jest tests importing it, do not depend on ESM support at load time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { parser } = require('stream-json');
    const tokens = parser.asStream({ packValues: true, streamValues: false });
    const asm = new TokenAssembler();
    let bytes = 0;
    if (onBytes) {
        source.on('data', (chunk) => {
            bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
            onBytes(bytes);
        });
    }
    tokens.on('data', (t) => asm.consume(t));
    await new Promise((resolve, reject) => {
        (0, node_stream_1.pipeline)(source, tokens, (err) => {
            if (!err)
                return resolve();
            const code = err.code;
            // Errors of the source (a missing file, a closed pipe) are not problems of the document.
            if (typeof code === 'string' && code !== 'ERR_STREAM_PREMATURE_CLOSE')
                return reject(err);
            reject(new importer_1.ImportError([{ path: '$', message: `malformed JSON: ${err.message}` }]));
        });
        // pipeline resolves when the parser's writable side finishes; wait for its last tokens too.
    }).then(() => new Promise((resolve) => {
        if (tokens.readableEnded)
            resolve();
        else
            tokens.once('end', resolve);
    }));
    if (!asm.done)
        throw new importer_1.ImportError([{ path: '$', message: 'malformed JSON: the input ended before a complete JSON value' }]);
    return asm.value;
}
//# sourceMappingURL=read-json.js.map