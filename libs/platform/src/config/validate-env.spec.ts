import { BaseServiceEnv } from './base-env';
import { validateEnv } from './validate-env';

class TestEnv extends BaseServiceEnv {
  override PORT = 3000;
}
const validate = validateEnv(TestEnv);

describe('validateEnv', () => {
  it('applies defaults and converts types', () => {
    const env = validate({ PORT: '4000', KAFKA_BROKERS: 'a:9092, b:9093' });
    expect(env.PORT).toBe(4000);
    expect(env.KAFKA_BROKERS).toEqual(['a:9092', 'b:9093']);
    expect(env.MONGODB_URI).toBe('mongodb://127.0.0.1:27017/ctxledger');
    expect(env.TOPIC_PREFIX).toBe('ctxledger');
  });

  it.each([
    [{ KAFKA_BROKERS: 'localhost' }, /KAFKA_BROKERS: each broker must be host:port \(got \["localhost"\]\)/],
    [{ MONGODB_URI: 'postgres://x' }, /MONGODB_URI: must be a mongodb:\/\/ or mongodb\+srv:\/\/ URI/],
    [{ PORT: 'eighty' }, /PORT: .*integer/],
    [{ PORT: '70000' }, /PORT: .*65535/],
    [{ TOPIC_PREFIX: 'bad prefix!' }, /TOPIC_PREFIX: must be 1-100 of/],
    [{ LOG_FORMAT: 'xml' }, /LOG_FORMAT: .*text, json/],
  ])('names the bad variable in %j', (raw, message) => {
    expect(() => validate(raw)).toThrow(message);
  });

  it('lists every bad variable at once', () => {
    expect(() => validate({ PORT: 'x', MONGODB_URI: 'y' })).toThrow(/PORT[\s\S]*MONGODB_URI|MONGODB_URI[\s\S]*PORT/);
  });
});
