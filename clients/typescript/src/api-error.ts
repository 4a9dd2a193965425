/** An answer other than 2xx from a helper of this package (the generated functions return it as `error`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The error body: `{ error: { code, message, status, details? }, request_id }`. */
    readonly body: unknown,
    readonly response: Response,
  ) {
    const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    super(`${status} ${error?.code ?? 'error'}: ${error?.message ?? response.statusText}`);
    this.name = 'ApiError';
  }

  /** The service's error code (`rate_limit_exceeded`, `validation_error`, …), when the body has one. */
  get code(): string | undefined {
    return (this.body as { error?: { code?: string } } | undefined)?.error?.code;
  }
}
