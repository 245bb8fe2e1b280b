/**
 * The errors the session service's use cases (commands/, queries/, inspector/) throw: what went wrong in the
 * domain's terms, with no HTTP in them. One filter (http/session-error.filter.ts) maps each to its status,
 * body and headers.
 */
export abstract class SessionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The request is refused as it is; each violation is a `path: reason` (400). Nothing was sent. */
export class InvalidRequestError extends SessionError {
  constructor(readonly violations: readonly string[]) {
    super(violations.join('; '));
  }
}

/** Something the request names does not exist for its tenant (404). */
export class NotFoundError extends SessionError {}

/** The session does not exist for the tenant (404). */
export class SessionNotFoundError extends NotFoundError {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} not found`);
  }
}

/** The session id is another tenant's session: answered as a session that does not exist (404, same text). */
export class OtherTenantSessionError extends SessionNotFoundError {}

/** The request does not fit in what one write carries (413). Nothing was sent. */
export class TooLargeError extends SessionError {}

/** The request is well-formed but cannot be acted on (422); `details` are added to the answer's body. */
export class UnprocessableError extends SessionError {
  constructor(
    message: string,
    readonly details: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** The key of a write was already used with another body (409). */
export class IdempotencyConflictError extends SessionError {
  constructor(
    message: string,
    readonly idempotencyKey: string,
  ) {
    super(message);
  }
}

/** A dependency cannot answer now; retry later (503, with `Retry-After` when `retryAfterSeconds` is known). */
export class UnavailableError extends SessionError {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * A write was handed to Kafka but not acknowledged: it may be stored or not (503, `outcome: "unknown"`), with
 * the key under which a retry is safe (null: none) and when to retry.
 */
export class OutcomeUnknownError extends UnavailableError {
  constructor(
    message: string,
    readonly idempotencyKey: string | null,
    override readonly retryAfterSeconds: number,
  ) {
    super(message, retryAfterSeconds);
  }
}

/** A read waited for its write to be projected longer than it may (504). */
export class ReadTimeoutError extends SessionError {}
