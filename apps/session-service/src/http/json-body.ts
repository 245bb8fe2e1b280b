import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import { refuseDeepJson } from './json-depth';
import { invalidUtf8Reason } from './utf8-body';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Express's request: `is(type)` matches the Content-Type (null when there is no body, false for another type). */
type ExpressRequest = IncomingMessage & { is(type: string): string | false | null };

/**
 * 415 for a request body that is not `application/json` (text/plain, a form, no Content-Type at all): the JSON
 * parser would skip it and the validation would answer a misleading 400 about missing fields. A request
 * without a body (POST …/compactions) needs no type.
 */
export function requireJsonBodies() {
  return (req: ExpressRequest, _res: ServerResponse, next: (error?: unknown) => void): void => {
    // `is` answers null when the request has no body, false when its type is another one; an empty body
    // (Content-Length: 0, as clients send a POST without one) is no body either.
    const empty = req.headers['content-length'] === '0' && req.headers['transfer-encoding'] === undefined;
    if (!BODY_METHODS.has(req.method ?? '') || empty || req.is('application/json') !== false) return next();
    const type = req.headers['content-type'];
    next(
      new UnsupportedMediaTypeException(
        `the body must be JSON sent as Content-Type: application/json (${type ? `got ${type}` : 'no Content-Type was sent'})`,
      ),
    );
  };
}

/** The charset a Content-Type names, lower case; undefined when it names none. */
function charsetOf(req: IncomingMessage): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '');
  return match?.[1]?.toLowerCase();
}

/**
 * body-parser `verify` hook of JSON bodies: 400 for a body nested too deep (see refuseDeepJson) and for one that
 * is not UTF-8, naming where, instead of the decoder's silent U+FFFD (nothing accepted is altered).
 */
export function verifyJsonBody() {
  const deep = refuseDeepJson();
  return (req: IncomingMessage, res: unknown, body: Buffer): void => {
    deep(req, res, body);
    const charset = charsetOf(req);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return; // decoded as declared
    const reason = invalidUtf8Reason(body);
    if (reason) throw new BadRequestException([reason]);
  };
}
