/** Gives every request a unique id (`req_…`), sent back as `X-Request-Id` (docs/api-rules.md, "Errors"). */
import type { RequestHandler } from 'express';
import { nanoid } from 'nanoid';

/** A fresh request id (`req_` + 20 URL-safe characters). */
export const newRequestId = () => `req_${nanoid(20)}`;

export function requestId(): RequestHandler {
  return (req, res, next) => {
    req.requestId = newRequestId();
    req.style = 'A';
    res.setHeader('X-Request-Id', req.requestId);
    next();
  };
}
