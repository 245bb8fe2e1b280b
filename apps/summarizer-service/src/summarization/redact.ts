/** Shapes of API keys that must never reach a log line or an event, whoever printed them. */
const KEY_SHAPES = [
  /\bsk-[A-Za-z0-9_*-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\b(?:Bearer|x-api-key:?)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
];

/** Replaces the configured secrets and anything shaped like an API key. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  for (const shape of KEY_SHAPES) out = out.replace(shape, '[redacted]');
  return out;
}
