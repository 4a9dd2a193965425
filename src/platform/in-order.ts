/**
 * Steps of the pipeline that always follow one another, run as ONE layer of Express's router (issue 28): the router
 * spends about a microsecond on each layer of each request (matching its path, a params object, its promise check),
 * for nothing when the next step is always the same. The steps keep their own factories and files; app.ts lists them
 * in order here instead of one `app.use` each.
 */
import type { NextFunction, RequestHandler } from 'express';

/**
 * One handler that runs `steps` in order, as consecutive `app.use(step)` layers would: a step's `next()` runs the
 * following step, `next(err)` (or a throw, or a rejected promise) skips the rest and passes the error on, and the last
 * step's `next()` leaves this layer. `next('route')` and `next('router')` are not supported (no step here uses them).
 */
export function inOrder(...steps: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const after: NextFunction = (err?: unknown) => {
      if (err) return next(err);
      const step = steps[i++];
      if (step === undefined) return next();
      try {
        const ret: unknown = step(req, res, after);
        // As Express 5 does with a handler's promise.
        if (ret instanceof Promise) ret.then(undefined, (e: unknown) => next(e ?? new Error('Rejected promise')));
      } catch (e) {
        next(e);
      }
    };
    after();
  };
}
