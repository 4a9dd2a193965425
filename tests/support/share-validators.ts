/**
 * setupFiles of both jest projects: the openapi/ validator compiled in a worker's first test file serves the later
 * files of that worker (src/platform/openapi.ts shareCompiledValidators; the store is the worker's
 * `__workerShared`, tests/support/worker-environment.js). Compiling the same schemas again in each file was about
 * half of a component test file's CPU. The validator's steps are then those of the worker's first file's module
 * registry; they hold no state of a test but the compiled schemas.
 *
 * The response validator (tests only, `validateResponses`) also caches its compiled validators per method, route
 * and the request's Content-Type, though what it checks is the operation's responses alone: every Content-Type a
 * test sends compiled all of an operation's response schemas again. Keyed by method and route, the same validators
 * check the same answers. If a release of express-openapi-validator renames the method, this does nothing and the
 * tests are only slower.
 */
import { ResponseValidator } from 'express-openapi-validator/dist/middlewares/openapi.response.validator';
import { shareCompiledValidators, type CompiledValidators } from '../../src/platform/openapi';

interface ResponseValidatorInternals {
  validatorsCache: Record<string, unknown>;
  buildValidators(responses: unknown, key: string): unknown;
  _getOrBuildValidator?: (this: ResponseValidatorInternals, req: { method: string; openapi: { expressRoute: string } }, responses: unknown) => unknown;
}
const internals = ResponseValidator.prototype as unknown as ResponseValidatorInternals;
if (typeof internals._getOrBuildValidator === 'function') {
  internals._getOrBuildValidator = function (req, responses) {
    const key = `${req.method}-${req.openapi.expressRoute}`;
    return (this.validatorsCache[key] ??= this.buildValidators(responses, key));
  };
}

const worker = (globalThis as { __workerShared?: { validators?: CompiledValidators } }).__workerShared;
if (worker) shareCompiledValidators((worker.validators ??= new Map()));
