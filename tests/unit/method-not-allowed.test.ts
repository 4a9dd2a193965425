/**
 * Every 405 carries `Allow` (issue 26 item 1; docs/api-rules.md, "HEAD and 405"): the validator's own 405, should one
 * reach the error handler, keeps the methods it names, in the order and case of the scope check's 405.
 */
import express from 'express';
import { MethodNotAllowed } from 'express-openapi-validator/dist/framework/types';
import supertest from 'supertest';
import { errorHandler } from '../../src/platform/error-handler';
import { createLogger } from '../../src/platform/logger';
import { operationIndex } from '../../src/platform/operations';
import { requestContext } from '../../src/platform/request-context';

describe('the error handler on a 405 of the validator', () => {
  it('answers method_not_allowed with Allow listing the path methods upper-case, HEAD after GET', async () => {
    const app = express();
    // The first step of every app: the request context the error handler writes the error code to.
    app.use(requestContext(app, operationIndex({ paths: {} })));
    app.use(() => {
      throw new MethodNotAllowed({ path: '/x', message: 'PUT method not allowed', headers: { Allow: 'post, get' } });
    });
    app.use(errorHandler(createLogger('silent'), { exposeInternals: false }));
    const res = await supertest(app).put('/x');
    expect([res.status, res.headers.allow, res.body.error.code, res.body.error.message]).toEqual([
      405,
      'GET, HEAD, POST',
      'method_not_allowed',
      'This method is not allowed here; use GET, HEAD, POST.',
    ]);
  });
});
