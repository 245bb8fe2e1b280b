import { redactSecrets } from './redact';

describe('redactSecrets', () => {
  it('removes the configured secrets and anything shaped like an API key', () => {
    const text =
      'key my-local-secret-1234 rejected; Incorrect API key provided: sk-proj-abc123def456; AIzaSyA1234567890abcdefghijklmnop; Bearer abcdefgh12345678';
    const out = redactSecrets(text, ['my-local-secret-1234']);
    expect(out).toBe('key [redacted] rejected; Incorrect API key provided: [redacted]; [redacted]; [redacted]');
  });
});
