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

/** An argument that holds a plan as a Markdown checklist (Roo Code's `todos`, Cline's `task_progress`). */
const CHECKLIST_KEY = /todo|task_progress|plan|checklist|progress/i;
/** One checklist line: `- [x] Set up`, `[-] Implement` (Roo's in progress), `* [ ] Test`. */
const CHECKLIST_LINE = /^\s*(?:[-*]\s+)?\[([ xX~-])\]\s+(\S.*)$/;

/** A Markdown checklist's items, when every non-blank line of `text` is one (and there are any). */
function checklistOf(text: string): PlanItem[] | undefined {
  const items: PlanItem[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const m = CHECKLIST_LINE.exec(line);
    if (!m) return undefined;
    const mark = m[1]!.toLowerCase();
    items.push({ text: m[2]!.trim(), status: mark === 'x' ? 'completed' : mark === ' ' ? 'pending' : 'in_progress' });
  }
  return items.length > 0 ? items : undefined;
}

/**
 * The plan a call writes, or undefined when its arguments hold no list of items with a status and a text, nor a
 * Markdown checklist under a plan's name (Roo Code's `update_todo_list`, the `task_progress` Cline adds to any call).
 */
export function planOfCall(call: ToolCall): PlanItem[] | undefined {
  const args = parseArguments(call.arguments);
  if (!args) return undefined;
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === 'string' && CHECKLIST_KEY.test(key)) {
      const items = checklistOf(value);
      if (items) return items;
    }
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
