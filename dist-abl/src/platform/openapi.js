"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.loadOpenApiDocument = loadOpenApiDocument;
exports.canonicalContentType = canonicalContentType;
exports.openApiValidator = openApiValidator;
/**
 * The OpenAPI description (openapi/openapi.yaml, the source of truth for the wire format): loaded
 * once, served raw at `/api/v1/openapi` and `/openapi.json`, and used by express-openapi-validator
 * to validate every request (and, when configured, every response).
 */
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
const OpenApiValidator = __importStar(require("express-openapi-validator"));
const js_yaml_1 = __importDefault(require("js-yaml"));
const paths_1 = require("./paths");
let cached;
function loadOpenApiDocument() {
    if (!cached) {
        const file = node_path_1.default.join((0, paths_1.projectRoot)(), 'openapi', 'openapi.yaml');
        cached = js_yaml_1.default.load(node_fs_1.default.readFileSync(file, 'utf8'));
    }
    return cached;
}
/**
 * express-openapi-validator 5 finds a request's operation by compiling every documented path with
 * path-to-regexp's `pathToRegexp` anew on each request (middlewares/openapi.metadata.js, lookupRoute):
 * about 5 % of a list request's CPU. The compiled form depends only on the arguments, so it is
 * memoized (a fixed set: the document's paths × the app's two routing flags). Express's own router
 * uses `match`, not this function, and is unaffected.
 */
function memoizePathToRegexp() {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const p2r = require('path-to-regexp');
    if (p2r.__memoized)
        return;
    const compile = p2r.pathToRegexp;
    const memo = new Map();
    p2r.pathToRegexp = (path, opts) => {
        if (typeof path !== 'string')
            return compile(path, opts);
        const key = `${path}\n${JSON.stringify(opts ?? null)}`;
        let compiled = memo.get(key);
        if (compiled === undefined) {
            compiled = compile(path, opts);
            memo.set(key, compiled);
        }
        return compiled;
    };
    p2r.__memoized = true;
}
const KNOWN_MEDIA_TYPES = new Set(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
/**
 * The validator compiles and caches one middleware per method, route and Content-Type header, so
 * arbitrary Content-Type values would grow that cache without bound (and cost a compile each).
 * The header is reduced to a few media types first: JSON bodies are already parsed (as UTF-8) by
 * express.json; any other type becomes `application/octet-stream` (a 415 where a body is expected).
 */
function canonicalContentType() {
    return (req, _res, next) => {
        const raw = req.headers['content-type'];
        if (raw !== undefined) {
            const media = raw.split(';')[0].trim().toLowerCase();
            const json = media === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(media);
            req.headers['content-type'] = json ? 'application/json' : KNOWN_MEDIA_TYPES.has(media) ? media : 'application/octet-stream';
        }
        next();
    };
}
/** Request (and optionally response) validation against the document; security is checked by platform/auth. */
function openApiValidator(doc, validateResponses) {
    return [canonicalContentType(), ...openApiMiddleware(doc, validateResponses)];
}
function openApiMiddleware(doc, validateResponses) {
    memoizePathToRegexp();
    return OpenApiValidator.middleware({
        // The validator mutates the spec it is given; keep ours pristine for serving.
        apiSpec: structuredClone(doc),
        // coerceTypes false: bodies keep their JSON types (`"name": 12345` is a 400, CONTRACT section 7). The
        // validator still coerces query, path and header parameters to their documented types: it always
        // validates those with a second, coercing Ajv (express-openapi-validator RequestValidator).
        validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
        validateResponses: validateResponses ? { removeAdditional: false } : false,
        validateSecurity: false,
        validateFormats: true,
    });
}
//# sourceMappingURL=openapi.js.map