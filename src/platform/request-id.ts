/** Gives every request a unique id (`req_…`), sent back as `X-Request-Id` (CONTRACT section 7). */
import type { RequestHandler } from 'express';
import { nanoid } from 'nanoid';

export function requestId(): RequestHandler {
  return (req, res, next) => {
    req.requestId = `req_${nanoid(20)}`;
    req.style = 'A';
    res.setHeader('X-Request-Id', req.requestId);
    next();
  };
}
