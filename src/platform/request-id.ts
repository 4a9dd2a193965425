/** Request ids (`req_…`, docs/api-rules.md, "Errors"): made by the request context (request-context.ts) and for answers written outside Express (http-server.ts). */
import { nanoid } from 'nanoid';

/** A fresh request id (`req_` + 20 URL-safe characters). */
export const newRequestId = () => `req_${nanoid(20)}`;
