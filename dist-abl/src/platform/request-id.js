"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.newRequestId = void 0;
exports.requestId = requestId;
const nanoid_1 = require("nanoid");
/** A fresh request id (`req_` + 20 URL-safe characters). */
const newRequestId = () => `req_${(0, nanoid_1.nanoid)(20)}`;
exports.newRequestId = newRequestId;
function requestId() {
    return (req, res, next) => {
        req.requestId = (0, exports.newRequestId)();
        req.style = 'A';
        res.setHeader('X-Request-Id', req.requestId);
        next();
    };
}
//# sourceMappingURL=request-id.js.map