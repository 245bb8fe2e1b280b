import type { ChatMessage, ToolCall } from '../model/message';
import { parseArguments } from './tool-activity';

/**
 * The agent's own plan, as its plan tool last wrote it: Claude Code's `TodoWrite` (`todos: [{content, status}]`),
 * Codex's `update_plan` (`plan: [{step, status}]`) and the like — any call whose arguments hold a list of items
 * each with a `status` and a text. What is still to do is the most direct statement of where the work stands, so a
 * working state keeps its open items however the conversation around them is condensed.
 */
export interface PlanItem {
  readonly text: string;
  readonly status: 'pending' | 'in_progress' | 'completed' | 'other';
}

const TEXT_KEYS = ['content', 'step', 'title', 'task', 'description', 'text', 'name'] as const;
const DONE = /^(?:completed?|done|finished|cancell?ed|skipped)$/i;
const ACTIVE = /^(?:in[_ -]?progress|active|doing|started|running)$/i;
const OPEN = /^(?:pending|todo|to[_ -]do|open|not[_ -]started|planned)$/i;

/** The plan a call writes, or undefined when its arguments hold no list of items with a status and a text. */
export function planOfCall(call: ToolCall): PlanItem[] | undefined {
  const args = parseArguments(call.arguments);
  if (!args) return undefined;
  for (const value of Object.values(args)) {
    if (!Array.isArray(value) || value.length === 0) continue;
    const items: PlanItem[] = [];
    for (const raw of value) {
      if (typeof raw !== 'object' || raw === null) break;
      const item = raw as Record<string, unknown>;
      const status = item['status'];
      const text = TEXT_KEYS.map((k) => item[k]).find((v): v is string => typeof v === 'string' && v.trim() !== '');
      if (typeof status !== 'string' || text === undefined) break;
      items.push({ text: text.trim(), status: statusOf(status) });
    }
    if (items.length === value.length) return items;
  }
  return undefined;
}

/** The plan the last plan-writing call of `messages` wrote, if any call wrote one. */
export function latestPlanOf(messages: readonly ChatMessage[]): PlanItem[] | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const calls = messages[i]!.toolCalls ?? [];
    for (let k = calls.length - 1; k >= 0; k--) {
      const plan = planOfCall(calls[k]!);
      if (plan) return plan;
    }
  }
  return undefined;
}

const statusOf = (s: string): PlanItem['status'] =>
  DONE.test(s) ? 'completed' : ACTIVE.test(s) ? 'in_progress' : OPEN.test(s) ? 'pending' : 'other';

/** What a plan line of the working state starts with (a later span without a plan of its own keeps these). */
export const PLAN_PREFIX = 'Plan';

/**
 * The plan as pending-work lines: how far it is, then its open items (the one in progress marked), in its order:
 * `Plan: 2 of 5 steps done`, `Plan [in progress]: Run the tests`, `Plan: Update the docs`.
 */
export function planLines(items: readonly PlanItem[]): string[] {
  if (items.length === 0) return [];
  const done = items.filter((i) => i.status === 'completed').length;
  const open = items.filter((i) => i.status !== 'completed');
  return [
    `${PLAN_PREFIX}: ${done} of ${items.length} steps done`,
    ...open.map((i) => `${PLAN_PREFIX}${i.status === 'in_progress' ? ' [in progress]' : ''}: ${i.text}`),
  ];
}

/** A pending-work line that came from a plan. */
export const isPlanLine = (line: string): boolean => /^Plan(?: \[in progress\])?: /.test(line);
