export { ANTHROPIC_LEADING_USER_TEXT, renderAnthropic, renderGeneric, renderHistory, renderOpenAI } from './providers';
export type {
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicRendering,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
  GenericMessage,
  OpenAIChatMessage,
  OpenAIToolCall,
  RenderFormat,
  RenderOptions,
} from './providers';
