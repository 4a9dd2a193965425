"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.pageParams = pageParams;
const query_values_1 = require("../query-values");
/** Style B page parameters as a core pagination. */
function pageParams(req) {
    return {
        kind: 'page',
        page: (0, query_values_1.int)(req, 'page', 1, Number.MAX_SAFE_INTEGER, 1),
        limit: (0, query_values_1.int)(req, 'limit', 1, 1000, 50),
    };
}
//# sourceMappingURL=params.js.map