import type { ChatMessage } from '../model/message';
import { answer, newCall, say } from '../testing/fixtures';
import { summarizeDeterministic } from './deterministic-summarizer';
import { isPlanLine, planLines, planOfCall } from './plan';

const todoWrite = (todos: { content: string; status: string }[]) =>
  newCall('TodoWrite', { todos: todos.map((t) => ({ ...t, activeForm: `Doing: ${t.content}` })) });

describe("planOfCall: the agent's own plan", () => {
  it("reads Claude Code's TodoWrite and Codex's update_plan, whatever the statuses are called", () => {
    expect(
      planOfCall(
        todoWrite([
          { content: 'Reproduce the rounding bug', status: 'completed' },
          { content: 'Fix TimeDelta._serialize', status: 'in_progress' },
          { content: 'Run the field tests', status: 'pending' },
        ]),
      ),
    ).toEqual([
      { text: 'Reproduce the rounding bug', status: 'completed' },
      { text: 'Fix TimeDelta._serialize', status: 'in_progress' },
      { text: 'Run the field tests', status: 'pending' },
    ]);
    const codex = newCall('update_plan', {
      explanation: 'tests next',
      plan: [
        { step: 'Add the parser', status: 'done' },
        { step: 'Wire it in', status: 'in-progress' },
      ],
    });
    expect(planOfCall(codex)).toEqual([
      { text: 'Add the parser', status: 'completed' },
      { text: 'Wire it in', status: 'in_progress' },
    ]);
  });

  it("reads a plan written as a Markdown checklist: Roo Code's update_todo_list, the task_progress Cline adds to a call", () => {
    expect(
      planOfCall(newCall('update_todo_list', { todos: '[x] Analyze\n[-] Implement the parser\n[ ] Write tests' })),
    ).toEqual([
      { text: 'Analyze', status: 'completed' },
      { text: 'Implement the parser', status: 'in_progress' },
      { text: 'Write tests', status: 'pending' },
    ]);
    const cline = newCall('execute_command', {
      command: 'npm test',
      requires_approval: false,
      task_progress: '- [x] Set up the project\n- [ ] Add the endpoint\n',
    });
    expect(planOfCall(cline)).toEqual([
      { text: 'Set up the project', status: 'completed' },
      { text: 'Add the endpoint', status: 'pending' },
    ]);
    // A file written with a checklist in it is a file, not the agent's plan; nor is a list with other lines.
    expect(planOfCall(newCall('write_to_file', { path: 'TODO.md', content: '- [ ] ship it' }))).toBeUndefined();
    expect(planOfCall(newCall('update_todo_list', { todos: 'Plan:\n[ ] ship it' }))).toBeUndefined();
  });

  it('is no plan when the list is not one of items with a status and a text', () => {
    expect(planOfCall(newCall('bash', { command: 'ls' }))).toBeUndefined();
    expect(planOfCall(newCall('edit', { edits: [{ oldText: 'a', newText: 'b' }] }))).toBeUndefined();
    expect(planOfCall(newCall('x', { items: [{ content: 'a', status: 'pending' }, 'loose'] }))).toBeUndefined();
    expect(planOfCall(newCall('x', { todos: [] }))).toBeUndefined();
  });

  it('lists how far it is, then its open items in order, the one in progress marked', () => {
    const lines = planLines([
      { text: 'A', status: 'completed' },
      { text: 'B', status: 'in_progress' },
      { text: 'C', status: 'pending' },
    ]);
    expect(lines).toEqual(['Plan: 1 of 3 steps done', 'Plan [in progress]: B', 'Plan: C']);
    expect(lines.every(isPlanLine)).toBe(true);
    expect(isPlanLine('Planning the release')).toBe(false);
  });
});

describe('a working state keeps the plan', () => {
  const first: ChatMessage[] = [
    { role: 'user', content: 'Fix the TimeDelta rounding and add a test.' },
    say(
      'I will plan this.',
      todoWrite([
        { content: 'Reproduce the rounding bug', status: 'completed' },
        { content: 'Fix TimeDelta._serialize', status: 'in_progress' },
        { content: 'Add a test for 345 ms', status: 'pending' },
      ]),
    ),
    { role: 'assistant', content: 'Now the fix.' },
  ];
  const firstSummary = () => summarizeDeterministic({ messages: first, maxChars: 4000 });

  it('lists its open items under pending work, first, however little room there is', () => {
    const roomy = firstSummary();
    expect(roomy.sections.pendingWork.slice(0, 3)).toEqual([
      'Plan: 1 of 3 steps done',
      'Plan [in progress]: Fix TimeDelta._serialize',
      'Plan: Add a test for 345 ms',
    ]);
    // Other pending work competing for little room: the plan's open item stays.
    const todos = Array.from({ length: 10 }, (_, k) => `- [ ] follow-up number ${k} with a long description`);
    const busy = [...first, { role: 'assistant' as const, content: `Next:\n${todos.join('\n')}` }];
    const tight = summarizeDeterministic({ messages: busy, maxChars: 600 });
    expect(tight.sections.pendingWork).toContain('Plan [in progress]: Fix TimeDelta._serialize');
    expect(tight.sections.pendingWork.some((l) => l.startsWith('follow-up'))).toBe(true);
  });

  it('carries it into the next summary until the agent writes a new one', () => {
    const later: ChatMessage[] = [
      { role: 'user', content: 'Also keep the public API unchanged.' },
      { role: 'assistant', content: 'Understood, the signature stays.' },
    ];
    const carried = summarizeDeterministic({ messages: later, previousSummary: firstSummary().text, maxChars: 4000 });
    expect(carried.sections.pendingWork).toEqual(
      expect.arrayContaining(['Plan [in progress]: Fix TimeDelta._serialize', 'Plan: Add a test for 345 ms']),
    );
    const update = todoWrite([
      { content: 'Reproduce the rounding bug', status: 'completed' },
      { content: 'Fix TimeDelta._serialize', status: 'completed' },
      { content: 'Add a test for 345 ms', status: 'in_progress' },
    ]);
    const replanned = summarizeDeterministic({
      messages: [
        ...later,
        say('Fixed; the test next.', update),
        answer(update, 'Todos have been modified successfully.'),
      ],
      previousSummary: firstSummary().text,
      maxChars: 4000,
    });
    const plan = replanned.sections.pendingWork.filter(isPlanLine);
    expect(plan).toEqual(['Plan: 2 of 3 steps done', 'Plan [in progress]: Add a test for 345 ms']);
  });
});
