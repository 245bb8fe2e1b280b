export {
  DEFAULT_MAX_SUMMARY_CHARS,
  DEFAULT_SUMMARY_RATIO,
  SUMMARY_SECTIONS,
  SUMMARY_TITLE,
  messageChars,
  summarizeDeterministic,
} from './deterministic-summarizer';
export type { DeterministicSummary, SummarizeInput, SummarySection, SummarySections } from './deterministic-summarizer';
export { filesOfShellCommand, toolActivity } from './tool-activity';
export type { FileAction, ToolActivity } from './tool-activity';
export { callOutcome, describeArguments, describeCall, errorLineOf, failureOf, shortenPath } from './call-outcome';
export { testCountsOf } from './test-report';
export type { CallOutcome } from './call-outcome';
export { openLaunchesOf } from './background';
export type { Handle, Launch } from './background';
