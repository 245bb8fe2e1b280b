/**
 * Secrets a log message must never carry, even when an error message from a client library quotes them:
 * credentials in connection URIs, bearer tokens, API keys (by their well-known shapes and by their names).
 */
const RULES: ReadonlyArray<readonly [RegExp, string]> = [
  // scheme://user:password@host → scheme://[redacted]@host
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, '$1[redacted]@'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, '$1 [redacted]'],
  // OpenAI / Anthropic style keys, Google API keys
  [/\bsk-[A-Za-z0-9_-]{12,}/g, '[redacted]'],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, '[redacted]'],
  // api_key=…, "apiKey": "…", x-api-key: …, password=…, secret: …, authorization: …
  [
    /\b((?:x-)?api[_-]?key|password|passwd|secret|client[_-]?secret|authorization)(["']?\s*[:=]\s*["']?)[^\s"',;}&]+/gi,
    '$1$2[redacted]',
  ],
];

export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
