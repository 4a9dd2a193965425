/**
 * `POST /api/v1/translate` (docs/migrating-between-styles.md, "Translating a request"): the request translator
 * of src/core/migration/translate.ts over HTTP. Any valid key; reads no data. The body was validated
 * against openapi/ (TranslateRequest) and is checked against the translator's limits (400 beyond); the answer
 * is the Style A envelope of the translation, or 422 `unprocessable` naming the part with no Style A equivalent.
 */
import { Router, type Request, type Response } from 'express';
import { errors } from '../core/errors';
import { checkTranslateInput, translateStyleB, type StyleBRequest } from '../core/migration/translate';
import { single } from './envelope';
import { bodyOf } from './query-values';
import type { TranslateRequest } from '../wire/types.gen';

/** Mounted at `/api/v1`. */
export function translateRouter(): Router {
  const r = Router();
  r.post('/translate', (req: Request, res: Response) => {
    const input: StyleBRequest = bodyOf<TranslateRequest>(req);
    checkTranslateInput(input);
    const result = translateStyleB(input);
    if (!result.ok) throw errors.unprocessable(result.part, result.reason);
    const { ok: _ok, ...translation } = result;
    res.json(single(req, translation));
  });
  return r;
}
