/** Style B responses (filled in by the Style B issue). */
import type { Request, Response } from 'express';
import { errors } from '../../core/errors';
import type { CoreDeps } from '../deps';

export function responsesListB(_deps: CoreDeps, _opts: { v2?: boolean } = {}) {
  return async (req: Request, _res: Response) => {
    throw errors.routeNotFound(req.method, req.path);
  };
}

export function responseGetB(_deps: CoreDeps) {
  return async (req: Request, _res: Response) => {
    throw errors.routeNotFound(req.method, req.path);
  };
}
