/**
 * Response bodies in the shapes the three providers send, modelled on recorded responses (ids, usage and
 * error texts as the real APIs word them). Used by the fake LLM server; the SDKs parse them for real.
 */

export type FakeProvider = 'openai' | 'anthropic' | 'google';

/** A summary with the engine's headings, as a well-behaved model writes it. */
export const RECORDED_SUMMARY = `# Summary of the earlier conversation
## User requests
- Fix the failing date parsing test in utils/dates.py without changing the public API.
## Files touched
- utils/dates.py (read, edit): parse_iso() now accepts a trailing "Z".
- tests/test_dates.py (read)
## Commands run
- \`pytest tests/test_dates.py\` — 1 failure, then all passing after the fix.
## Errors seen
- pytest — ValueError: Invalid isoformat string: '2024-01-01T00:00:00Z' [fixed later]
## Decisions
- Normalize "Z" to "+00:00" before datetime.fromisoformat instead of adding a dependency (Python 3.10 target).
## Pending work
- Add a test for negative UTC offsets.
## Current state
The fix is in place and the suite passes; next step: the negative-offset test the user asked for.`;

export function openAiCompletion(
  text: string,
  model: string,
  usage: { input: number; output: number },
  finish = 'stop',
) {
  return {
    id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
    object: 'chat.completion',
    created: 1741570283,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: finish,
      },
    ],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_06737a9306',
  };
}

export function anthropicMessage(
  text: string,
  model: string,
  usage: { input: number; output: number },
  stop = 'end_turn',
) {
  return {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: stop,
    stop_sequence: null,
    usage: {
      input_tokens: usage.input,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: usage.output,
      service_tier: 'standard',
    },
  };
}

export function geminiResponse(text: string, model: string, usage: { input: number; output: number }, finish = 'STOP') {
  return {
    candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason: finish, avgLogprobs: -0.08 }],
    usageMetadata: {
      promptTokenCount: usage.input,
      candidatesTokenCount: usage.output,
      totalTokenCount: usage.input + usage.output,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage.input }],
    },
    modelVersion: model,
    responseId: 'Hd2yaKWqLcS5nvgPs7TvmAE',
  };
}

/** An HTTP error as each provider sends it: status, headers, body. */
export interface RecordedError {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
}

export const RECORDED_ERRORS: Record<
  'rate-limit' | 'server-error' | 'overflow' | 'auth',
  (retryAfterSeconds: number) => Record<FakeProvider, RecordedError>
> = {
  'rate-limit': (s) => ({
    openai: {
      status: 429,
      headers: {
        'retry-after': String(s),
        'x-ratelimit-limit-tokens': '200000',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': `${s}s`,
      },
      body: {
        error: {
          message: `Rate limit reached for gpt-4o-mini in organization org-Xx1 on tokens per min (TPM): Limit 200000, Used 199012, Requested 3311. Please try again in ${s}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
          type: 'tokens',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
    },
    anthropic: {
      status: 429,
      headers: {
        'retry-after': String(s),
        'anthropic-ratelimit-input-tokens-limit': '50000',
        'anthropic-ratelimit-input-tokens-remaining': '0',
      },
      body: {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message:
            'This request would exceed the rate limit for your organization (3c9e4b2f) of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.',
        },
        request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy',
      },
    },
    google: {
      status: 429,
      body: {
        error: {
          code: 429,
          message: `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.5-flash\nPlease retry in ${s}s.`,
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
              violations: [
                {
                  quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
                  quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
                },
              ],
            },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${s}s` },
          ],
        },
      },
    },
  }),
  'server-error': () => ({
    openai: {
      status: 500,
      body: {
        error: {
          message: 'The server had an error while processing your request. Sorry about that!',
          type: 'server_error',
          param: null,
          code: null,
        },
      },
    },
    anthropic: {
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_011CSHp2' },
    },
    google: {
      status: 500,
      body: {
        error: {
          code: 500,
          message:
            'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
          status: 'INTERNAL',
        },
      },
    },
  }),
  overflow: () => ({
    openai: {
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
    },
    anthropic: {
      status: 400,
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'prompt is too long: 215004 tokens > 200000 maximum' },
        request_id: 'req_011CSHq9',
      },
    },
    google: {
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
          status: 'INVALID_ARGUMENT',
        },
      },
    },
  }),
  auth: () => ({
    openai: {
      status: 401,
      body: {
        error: {
          message:
            'Incorrect API key provided: sk-test-*****************3xYz. You can find your API key at https://platform.openai.com/account/api-keys.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    },
    anthropic: {
      status: 401,
      body: {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
        request_id: 'req_011CSHr1',
      },
    },
    google: {
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'API_KEY_INVALID',
              domain: 'googleapis.com',
            },
          ],
        },
      },
    },
  }),
};

/** The overflow texts of OpenAI-compatible local servers (vLLM, llama.cpp), for the `openai` route. */
export const LOCAL_SERVER_OVERFLOWS: Record<'vllm' | 'llama.cpp', RecordedError> = {
  vllm: {
    status: 400,
    body: {
      object: 'error',
      message:
        "This model's maximum context length is 8192 tokens. However, you requested 9500 tokens (8476 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
  },
  'llama.cpp': {
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 9120,
        n_ctx: 8192,
      },
    },
  },
};
