import fc from 'fast-check';
import { classifyProviderError, getContextOverflowProvider, isContextOverflowError } from './index';

/** An SDK-style error: message with the status prefix, the parsed body on `.error`, like the OpenAI/Anthropic SDKs. */
const sdkError = (status: number, body: unknown, headers: Record<string, string> = {}): Error =>
  Object.assign(new Error(`${status} ${JSON.stringify(body)}`), { status, error: body, headers });

describe('classifyProviderError: overflow errors per provider (SCENARIOS #28)', () => {
  const cases: [
    string,
    unknown,
    { provider?: string; actualTokens?: number; limitTokens?: number; outputTokens?: number },
  ][] = [
    [
      'OpenAI chat completions (SDK error, rate-limit headers present)',
      sdkError(
        400,
        {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 150000 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
        { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-limit-requests': '500' },
      ),
      { provider: 'openai', limitTokens: 128000, actualTokens: 150000 },
    ],
    [
      'OpenAI with a messages/completion breakdown',
      "This model's maximum context length is 8192 tokens. However, you requested 10000 tokens (9000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      { provider: 'openai', limitTokens: 8192, actualTokens: 9000, outputTokens: 1000 },
    ],
    [
      'OpenAI Responses API',
      {
        error: {
          message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
      { provider: 'openai' },
    ],
    [
      'OpenAI configured limit',
      'Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 300000 tokens. Please reduce the length of the messages.',
      { provider: 'openai', limitTokens: 272000, actualTokens: 300000 },
    ],
    [
      'Azure OpenAI',
      { code: 'content_length_exceeded', message: 'Azure OpenAI: content_length_exceeded' },
      { provider: 'azure' },
    ],
    [
      'Anthropic prompt is too long (SDK error)',
      sdkError(400, {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'prompt is too long: 215000 tokens > 200000 maximum' },
      }),
      { provider: 'anthropic', actualTokens: 215000, limitTokens: 200000 },
    ],
    [
      'Anthropic input + max_tokens over the limit',
      {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message:
            'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again',
        },
      },
      { provider: 'anthropic', actualTokens: 188240, outputTokens: 21333, limitTokens: 200000 },
    ],
    [
      'Anthropic request too large (413)',
      {
        status: 413,
        error: { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum size' } },
      },
      { provider: 'anthropic' },
    ],
    [
      'Gemini (@google/genai error text with JSON body)',
      new Error(
        'got status: 400 Bad Request. {"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}',
      ),
      { provider: 'google', actualTokens: 1200000, limitTokens: 1048576 },
    ],
    [
      'Gemini (older SDK wording, no actual count)',
      '[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-pro:generateContent: [400 Bad Request] The input token count exceeds the maximum number of tokens allowed 1048576.',
      { provider: 'google', limitTokens: 1048576 },
    ],
    [
      'Bedrock ValidationException',
      {
        name: 'ValidationException',
        $metadata: { httpStatusCode: 400 },
        message: 'Input is too long for requested model.',
      },
      { provider: 'bedrock' },
    ],
    [
      'Bedrock wrapping Anthropic',
      'ValidationException: The model returned the following errors: prompt is too long: 210000 tokens > 200000 maximum',
      { provider: 'bedrock', actualTokens: 210000, limitTokens: 200000 },
    ],
    [
      'Mistral',
      {
        object: 'error',
        message:
          'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
        type: 'invalid_request_message_error',
        code: '3051',
      },
      { provider: 'mistral', actualTokens: 40000, limitTokens: 32768 },
    ],
    ['Mistral (short form)', 'context length exceeded', { provider: 'mistral' }],
    [
      'OpenRouter',
      {
        error: {
          message:
            'This endpoint\'s maximum context length is 128000 tokens. However, you requested about 150000 tokens (140000 of text input, 10000 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
          code: 400,
          metadata: { provider_name: 'OpenAI' },
        },
      },
      { provider: 'openrouter', limitTokens: 128000, actualTokens: 140000, outputTokens: 10000 },
    ],
    ['Ollama (runner)', { error: 'prompt too long; exceeded max context length by 4 tokens' }, { provider: 'ollama' }],
    ['Ollama (api)', { status: 400, error: 'the input length exceeds the context length' }, { provider: 'ollama' }],
    [
      'vLLM (OpenAI-compatible wording)',
      {
        object: 'error',
        type: 'BadRequestError',
        code: 400,
        message:
          "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      },
      { provider: 'openai', limitTokens: 4096, actualTokens: 4000, outputTokens: 1000 },
    ],
    [
      'vLLM (max_tokens too large)',
      "'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length is 4096 tokens and your request has 3500 input tokens (1000 > 4096 - 3500).",
      { limitTokens: 4096, actualTokens: 3500, outputTokens: 1000 },
    ],
    [
      'vLLM (decoder prompt)',
      'The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make sure that `max_model_len` is no smaller than the number of text tokens.',
      { provider: 'vllm', actualTokens: 5000, limitTokens: 4096 },
    ],
    [
      'llama.cpp server',
      {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 4229,
          n_ctx: 4096,
        },
      },
      { provider: 'llama.cpp', actualTokens: 4229, limitTokens: 4096 },
    ],
    [
      'xAI',
      "This model's maximum prompt length is 131072 but the request contains 140000 tokens.",
      { provider: 'xai', limitTokens: 131072, actualTokens: 140000 },
    ],
    [
      'Cohere',
      'too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 5000. Try using a shorter prompt, or enabling prompt truncating.',
      { provider: 'cohere', limitTokens: 4081, actualTokens: 5000 },
    ],
    [
      'LiteLLM',
      { name: 'ContextWindowExceededError', message: 'litellm.ContextWindowExceededError: too long' },
      { provider: 'litellm' },
    ],
    ['Scenario text: prompt is too long', 'prompt is too long', {}],
    ['Scenario text: exceeds the maximum number of tokens', 'Request exceeds the maximum number of tokens', {}],
    ['Scenario text: content_length_exceeded', 'content_length_exceeded', {}],
    ['Scenario text: Input is too long', 'Input is too long', {}],
    ['Scenario text: context length exceeded', 'context length exceeded', {}],
    [
      'Gemini RESOURCE_EXHAUSTED that speaks of input size',
      { status: 'RESOURCE_EXHAUSTED', message: 'Input context is too long: 2100000 tokens' },
      {},
    ],
    [
      'overflow at the end of a cause chain',
      new Error('generation failed', {
        cause: new Error('provider call failed', {
          cause: { error: { message: 'prompt is too long: 201000 tokens > 200000 maximum' } },
        }),
      }),
      { provider: 'anthropic', actualTokens: 201000, limitTokens: 200000 },
    ],
  ];

  it.each(cases)('%s', (_, error, expected) => {
    const c = classifyProviderError(error);
    expect(c).toMatchObject({ kind: 'overflow', retryable: false, ...expected });
    for (const key of ['actualTokens', 'limitTokens', 'outputTokens'] as const) {
      if (!(key in expected)) expect(c[key]).toBeUndefined();
    }
    expect(isContextOverflowError(error)).toBe(true);
    expect(getContextOverflowProvider(error)).toBe(c.provider ?? null);
  });
});

const RATE_LIMIT_ERRORS: [string, unknown, { provider?: string; retryable: boolean }][] = [
  ['plain text', 'rate limit exceeded', { retryable: true }],
  ['Gemini 429 RESOURCE_EXHAUSTED, plain', '429 RESOURCE_EXHAUSTED', { provider: 'google', retryable: true }],
  [
    'Gemini quota (SDK body)',
    {
      status: 429,
      error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' },
    },
    { provider: 'google', retryable: true },
  ],
  [
    'Gemini per-minute input-token quota (mentions input tokens and a limit)',
    {
      error: {
        code: 429,
        message:
          'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_input_token_count, limit: 250000, model: gemini-2.5-pro\nPlease retry in 31.5s.',
        status: 'RESOURCE_EXHAUSTED',
      },
    },
    { provider: 'google', retryable: true },
  ],
  [
    'OpenAI tokens-per-minute limit',
    sdkError(429, {
      message:
        'Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 28000, Requested 5000. Please try again in 6s.',
      type: 'tokens',
      code: 'rate_limit_exceeded',
    }),
    { provider: 'openai', retryable: true },
  ],
  [
    'OpenAI request larger than the TPM cap (never succeeds unchanged)',
    sdkError(429, {
      message:
        'Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 50000. The input or output tokens must be reduced in order to run successfully.',
      type: 'tokens',
      code: 'rate_limit_exceeded',
    }),
    { provider: 'openai', retryable: false },
  ],
  [
    'OpenAI insufficient quota',
    sdkError(429, {
      message: 'You exceeded your current quota, please check your plan and billing details.',
      type: 'insufficient_quota',
      code: 'insufficient_quota',
    }),
    { retryable: false },
  ],
  [
    'Anthropic per-minute token limit',
    sdkError(429, {
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message:
          'Number of request tokens has exceeded your per-minute rate limit (https://docs.anthropic.com/en/api/rate-limits)',
      },
    }),
    { provider: 'anthropic', retryable: true },
  ],
  [
    'Anthropic overloaded',
    sdkError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    { provider: 'anthropic', retryable: true },
  ],
  [
    'Bedrock throttling that says "too many tokens"',
    {
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 429 },
      message: 'Too many tokens, please wait before trying again.',
    },
    { provider: 'bedrock', retryable: true },
  ],
  [
    'Azure token rate limit',
    'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-01 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds.',
    { provider: 'azure', retryable: true },
  ],
  ['Mistral', { status: 429, message: 'Requests rate limit exceeded' }, { retryable: true }],
];

describe('classifyProviderError: rate limits and quotas are not overflows', () => {
  it.each(RATE_LIMIT_ERRORS)('%s', (_, error, expected) => {
    expect(isContextOverflowError(error)).toBe(false);
    expect(classifyProviderError(error)).toMatchObject({ kind: 'rate-limit', ...expected });
  });
});

describe('classifyProviderError: other kinds', () => {
  const cases: [string, unknown, string, boolean][] = [
    ['authentication failed', 'authentication failed', 'auth', false],
    [
      'Anthropic 401',
      sdkError(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }),
      'auth',
      false,
    ],
    [
      'OpenAI bad key',
      sdkError(401, {
        message:
          'Incorrect API key provided: sk-abc***. You can find your API key at https://platform.openai.com/account/api-keys.',
        code: 'invalid_api_key',
      }),
      'auth',
      false,
    ],
    [
      'Gemini bad key',
      { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } },
      'auth',
      false,
    ],
    [
      'Bedrock access denied',
      {
        name: 'AccessDeniedException',
        $metadata: { httpStatusCode: 403 },
        message: "You don't have access to the model",
      },
      'auth',
      false,
    ],
    ['network error', 'network error', 'network', true],
    ['ECONNRESET', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'network', true],
    [
      'undici fetch failure',
      new TypeError('fetch failed', {
        cause: Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' }),
      }),
      'network',
      true,
    ],
    ['socket hang up', new Error('socket hang up'), 'network', true],
    [
      'server error',
      sdkError(500, { message: 'The server had an error while processing your request.' }),
      'other',
      true,
    ],
    [
      'bad parameter',
      sdkError(400, { message: "Invalid value for 'temperature': must be between 0 and 2." }),
      'other',
      false,
    ],
    [
      'max_tokens too large (output, not input)',
      sdkError(400, {
        message:
          'max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.',
      }),
      'other',
      false,
    ],
    [
      'Bedrock malformed input mentioning tokens',
      'ValidationException: Malformed input request: #: extraneous key [max_tokens_to_sample] is not permitted',
      'other',
      false,
    ],
    ['null', null, 'other', false],
    ['a number', 42, 'other', false],
    ['an empty object', {}, 'other', false],
  ];
  it.each(cases)('%s', (_, error, kind, retryable) => {
    expect(classifyProviderError(error)).toMatchObject({ kind, retryable });
    expect(isContextOverflowError(error)).toBe(false);
  });

  it('reads only error fields: a request body or headers that quote overflow words decide nothing', () => {
    const error = Object.assign(new Error('429 Too Many Requests'), {
      status: 429,
      config: {
        data: JSON.stringify({ messages: [{ role: 'user', content: 'why does it say prompt is too long?' }] }),
      },
      request: { body: 'maximum context length is 128000 tokens' },
    });
    expect(classifyProviderError(error)).toMatchObject({ kind: 'rate-limit', status: 429 });
  });

  it('survives cyclic and deeply nested objects', () => {
    const a: Record<string, unknown> = { message: 'outer' };
    a.cause = a;
    a.error = { error: { error: { error: { error: { error: { error: { message: 'prompt is too long' } } } } } } };
    expect(() => classifyProviderError(a)).not.toThrow();
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties

const NEUTRAL_WORDS = [
  'the',
  'request',
  'failed',
  'while',
  'calling',
  'model',
  'at',
  'upstream',
  'id',
  'abc123',
  'please',
  'see',
  'docs',
  'for',
  'details',
  '—',
  ':',
  '.',
  'session',
  'agent',
];
const fillerArb = fc
  .array(fc.oneof(fc.constantFrom(...NEUTRAL_WORDS), fc.stringMatching(/^[a-z0-9]{1,8}$/)), { maxLength: 12 })
  .map((ws) => ws.join(' '));

/** The shapes errors arrive in: string, Error, cause chain, SDK body. */
const wrapperArb = fc.constantFrom<(t: string) => unknown>(
  (t) => t,
  (t) => new Error(t),
  (t) => ({ message: t }),
  (t) => ({ error: t }),
  (t) => ({ error: { message: t } }),
  (t) => new Error('call failed', { cause: new Error(t) }),
  (t) => ({ response: { data: { error: { message: t } } } }),
);

const rateTexts = RATE_LIMIT_ERRORS.map(([, e]) => e)
  .filter((e): e is string => typeof e === 'string')
  .concat([
    'Resource has been exhausted (e.g. check quota).',
    'Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 28000, Requested 5000. Please try again in 6s.',
    'Too many tokens, please wait before trying again.',
    'Number of request tokens has exceeded your per-minute rate limit',
    'Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_input_token_count, limit: 250000',
  ]);

describe('classifyProviderError properties', () => {
  it('a rate-limit text never becomes an overflow, whatever surrounds it and however it is wrapped', () => {
    fc.assert(
      fc.property(fc.constantFrom(...rateTexts), fillerArb, fillerArb, wrapperArb, (text, before, after, wrap) => {
        expect(classifyProviderError(wrap(`${before} ${text} ${after}`)).kind).toBe('rate-limit');
      }),
      { numRuns: 200 },
    );
  });

  it('a number of 0 around the message is not its count (found by the property below, seed 1354030526)', () => {
    const text =
      'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length is 0';
    const c = classifyProviderError(new Error(text));
    expect([c.kind, c.actualTokens, c.limitTokens]).toEqual(['overflow', 40000, 32768]);
  });

  it('an overflow text stays an overflow with the same numbers inside any wrapper and filler', () => {
    const overflowTexts = [
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 150000 tokens.",
      'prompt is too long: 215000 tokens > 200000 maximum',
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...overflowTexts), fillerArb, fillerArb, wrapperArb, (text, before, after, wrap) => {
        const plain = classifyProviderError(text);
        const c = classifyProviderError(wrap(`${before} ${text} ${after}`));
        expect(c.kind).toBe('overflow');
        expect([c.actualTokens, c.limitTokens]).toEqual([plain.actualTokens, plain.limitTokens]);
      }),
      { numRuns: 200 },
    );
  });

  it('never throws and always answers a known kind, on anything', () => {
    fc.assert(
      fc.property(fc.anything({ withBoxedValues: true, withMap: true, withSet: true }), (value) => {
        const c = classifyProviderError(value);
        expect(['overflow', 'rate-limit', 'auth', 'network', 'other']).toContain(c.kind);
        expect(isContextOverflowError(value)).toBe(c.kind === 'overflow');
      }),
      { numRuns: 200 },
    );
  });

  it('filler alone is never an overflow', () => {
    fc.assert(
      fc.property(fillerArb, (text) => expect(isContextOverflowError(text)).toBe(false)),
      { numRuns: 200 },
    );
  });
});
