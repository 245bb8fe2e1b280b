import fc from 'fast-check';
import { sharedSessions } from '../../../../test/support/shared-data';
import type { ChatMessage } from '../model/message';
import { answer, newCall, say } from '../testing/fixtures';
import {
  DEFAULT_MAX_SUMMARY_CHARS,
  SUMMARY_SECTIONS,
  SUMMARY_TITLE,
  filesOfShellCommand,
  summarizeDeterministic,
} from './index';
import { prunedPlaceholder } from './pruned-result';

const call = newCall;
const ask = (content: string): ChatMessage => ({ role: 'user', content });

function session(): ChatMessage[] {
  const read = call('read', { path: '/repo/src/app.ts' });
  const ccRead = call('Read', { file_path: '/repo/README.md' });
  const test1 = call('bash', { command: 'cd /repo && npm test 2>&1 | tail -20' });
  const edit = call('edit', { path: '/repo/src/app.ts', oldText: 'a', newText: 'b' });
  const test2 = call('bash', { command: 'cd /repo && npm test' });
  const py = call('bash', { command: 'python scripts/migrate.py' });
  const sed = call('bash', { command: "sed -n '1,40p' src/util.ts && cat docs/notes.md | head -5" });
  const pending = call('bash', { command: 'npm run build' });
  return [
    { role: 'system', content: 'You are a coding agent.' },
    ask('Fix the failing test in src/app.ts and keep the public API unchanged.'),
    say('Let me look at the code.', read, ccRead),
    answer(
      read,
      `export const add = (a, b) => a - b;\nthrow new Error("not an error: file content");\n${'// filler line of the file\n'.repeat(30)}`,
    ),
    answer(ccRead, '# Repo'),
    say('', test1),
    answer(test1, 'FAIL src/app.spec.ts\n  expected 3, got -1\nCommand exited with code 1'),
    say("The bug is in `add()`. I'll use a plain sum instead of the subtraction.", edit),
    answer(edit, 'Successfully replaced text in /repo/src/app.ts'),
    say('', test2),
    answer(test2, 'PASS src/app.spec.ts\nTests: 1 passed'),
    say('', py),
    answer(
      py,
      'Traceback (most recent call last):\n  File "scripts/migrate.py", line 3\nModuleNotFoundError: No module named yaml',
    ),
    say('', sed),
    answer(sed, 'export const x = 1;'),
    ask('Thanks. Next steps:\n- [ ] add a changelog entry\n1. bump the version'),
    say('The test passes now. TODO: the migration script still needs PyYAML.', pending),
  ];
}

describe('summarizeDeterministic', () => {
  it('on Windows, a file read by its relative path and edited by its absolute one is one file', () => {
    // Gemini CLI's `replace` and `write_file` take absolute paths, its `read_file` relative ones too.
    const readService = call('read_file', { file_path: 'App/SpotifyService.cs' });
    const editService = call('replace', {
      file_path: 'C:\\Repos\\A\\App\\SpotifyService.cs',
      old_string: 'Paginate(page)',
      new_string: 'Paginate(page, token)',
    });
    const readProgram = call('read_file', { file_path: 'App\\Program.cs' });
    const writeProgram = call('write_file', { file_path: 'C:\\Repos\\A\\App\\Program.cs', content: 'var x = 1;' });
    const { sections } = summarizeDeterministic({
      messages: [
        ask('Pass a cancellation token through the service.'),
        say('', readService),
        answer(readService, 'public class SpotifyService {}'),
        say('', editService),
        answer(editService, 'Successfully modified file: C:\\Repos\\A\\App\\SpotifyService.cs (1 replacements).'),
        say('', readProgram),
        answer(readProgram, 'var builder = Host.CreateApplicationBuilder(args);'),
        say('', writeProgram),
        answer(writeProgram, 'Successfully overwrote file: C:\\Repos\\A\\App\\Program.cs.'),
      ],
      maxChars: 4000,
    });
    expect(sections.filesTouched).toEqual([
      'C:\\Repos\\A\\App\\Program.cs (write, read)',
      'C:\\Repos\\A\\App\\SpotifyService.cs (edit, read)',
    ]);
  });

  it("a changed file's line names what its changes wrote, the latest three; a refused change none, listed before reads; read back", () => {
    const write = call('Write', {
      file_path: 'src/theme.ts',
      content: 'export const DEFAULT_THEME = {};\nexport function setTheme(name) {}\nfunction loadTheme() {}\n',
    });
    const edit = call('Edit', {
      file_path: 'src/theme.ts',
      old_string: 'x',
      new_string: 'export class ThemeRegistry {}',
    });
    const refused = call('Edit', {
      file_path: 'src/text.ts',
      old_string: 'y',
      new_string: 'function neverApplied() {}',
    });
    const util = call('Read', { file_path: 'src/util.ts' });
    const first = summarizeDeterministic({
      messages: [
        ask('Add themes.'),
        say('Calling `setTheme()` reloads it.', write),
        answer(write, 'File created successfully at: src/theme.ts'),
        say('', edit),
        answer(edit, 'The file src/theme.ts has been updated.'),
        say('', refused),
        answer(refused, '<tool_use_error>String to replace not found in file.</tool_use_error>'),
        say('', util),
        answer(util, 'export const clamp = 1;'),
        say('', util),
        answer(util, 'export const clamp = 1;'),
      ],
      maxChars: 4000,
    });
    // The latest three (the write's first, DEFAULT_THEME, went for the edit's class); as the text says it (`setTheme()`).
    // A file a change of failed comes before the ones read (what the work is about and is not done).
    expect(first.sections.filesTouched).toEqual([
      'src/theme.ts (write, edit; changed setTheme(), loadTheme, ThemeRegistry)',
      'src/text.ts (failed edit)',
      'src/util.ts (read×2)',
    ]);
    // Not listed again among the symbols; what the refused edit would have declared is none.
    expect(first.sections.codeSymbols).toContain('DEFAULT_THEME');
    expect(first.sections.codeSymbols).not.toContain('neverApplied');
    expect(first.sections.codeSymbols).not.toEqual(expect.arrayContaining(['setTheme()']));
    expect(first.sections.codeSymbols).not.toEqual(expect.arrayContaining(['ThemeRegistry']));
    const again = call('Edit', { file_path: 'src/theme.ts', old_string: 'z', new_string: 'function applyTheme() {}' });
    const next = summarizeDeterministic({
      messages: [say('', again), answer(again, 'The file src/theme.ts has been updated.')],
      previousSummary: first.text,
      maxChars: 4000,
    });
    expect(next.sections.filesTouched).toContain(
      'src/theme.ts (write, edit×2; changed loadTheme, ThemeRegistry, applyTheme)',
    );
  });

  it('a file a command deleted is a file touched (deleted), listed with the changed ones', () => {
    const del = call('run_shell_command', { command: 'del App\\Class1.cs' });
    const rm = call('bash', { command: 'git rm -q docs/old.md && rm -f /tmp/scratch.py' });
    const read = call('read_file', { file_path: 'App/Program.cs' });
    const { sections } = summarizeDeterministic({
      messages: [
        ask('Remove the template files.'),
        say('', read),
        answer(read, 'var x = 1;'),
        say('', del),
        answer(del, 'Command: del App\\Class1.cs\nOutput: (empty)\nExit Code: 0'),
        say('', rm),
        answer(rm, "rm 'docs/old.md'"),
      ],
      maxChars: 4000,
    });
    expect(sections.filesTouched).toEqual([
      '/tmp/scratch.py (delete)',
      'docs/old.md (delete)',
      'App\\Class1.cs (delete)',
      'App/Program.cs (read)',
    ]);
  });

  it('says whether a deleted file is gone or was made again (its delete last, or first), across summaries too', () => {
    const write = call('write', { path: 'notes/plan.md', content: '# Plan' });
    const rmPlan = call('bash', { command: 'rm notes/plan.md' });
    const rmTheme = call('bash', { command: 'rm themes/custom.json' });
    const writeTheme = call('write', { path: 'themes/custom.json', content: '{}' });
    const first = summarizeDeterministic({
      messages: [
        ask('Start the theme over, and drop the plan.'),
        say('', write),
        answer(write, 'ok'),
        say('', rmPlan),
        answer(rmPlan, ''),
        say('', rmTheme),
        answer(rmTheme, ''),
        say('', writeTheme),
        answer(writeTheme, 'ok'),
      ],
      maxChars: 4000,
    });
    expect(first.sections.filesTouched).toEqual([
      'themes/custom.json (delete, write)',
      'notes/plan.md (write, delete)',
    ]);
    // Read back from a summary, then the plan made again: the order is the reader's, and still time's.
    const again = call('write', { path: 'notes/plan.md', content: '# Plan 2' });
    const next = summarizeDeterministic({
      messages: [ask('Bring the plan back.'), say('', again), answer(again, 'ok')],
      previousSummary: first.text,
      maxChars: 4000,
    });
    expect(next.sections.filesTouched).toEqual([
      'notes/plan.md (delete, write×2)',
      'themes/custom.json (delete, write)',
    ]);
  });

  it('an edit the person refused changed nothing, and what they said instead is kept', () => {
    const edit = call('Edit', { file_path: '/repo/src/api.ts', old_string: 'getUser', new_string: 'fetchUser' });
    const refusal = [
      "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the",
      'new_string was NOT written to the file). To tell you how to proceed, the user said:',
      'keep getUser, it is public API',
    ].join('\n');
    const { sections } = summarizeDeterministic({
      messages: [ask('Tidy the API names.'), say('', edit), answer(edit, refusal)],
      maxChars: 4000,
    });
    expect(sections.filesTouched).toEqual(['/repo/src/api.ts (failed edit)']);
    expect(sections.userRequests).toEqual([
      'Tidy the API names.',
      'Refusing Edit /repo/src/api.ts: keep getUser, it is public API',
    ]);
    expect(sections.errorsSeen).toEqual([
      'Edit /repo/src/api.ts — Refused by the user: keep getUser, it is public API [unresolved]',
    ]);
  });

  it("what the person said in a tool's result is one of their requests: an answer to the agent's question, feedback", () => {
    const cline = call('ask_followup_question', {
      question: 'Which database should I use?',
      options: '["SQLite","Postgres"]',
    });
    const claude = call('AskUserQuestion', {
      questions: [{ question: 'Which port?', header: 'Port', options: [{ label: '3000' }], multiSelect: false }],
    });
    const done = call('attempt_completion', { result: 'Added Postgres persistence via pg.' });
    const plan = call('plan_mode_respond', { response: 'Plan: a users table, then POST /users. Shall I proceed?' });
    const shown = call('bash', { command: 'cat prompts/review.xml' });
    const { sections } = summarizeDeterministic({
      messages: [
        ask('Add persistence to the todo app.'),
        say('I need to know which store to use.', cline),
        answer(cline, '<answer>\nPostgres, with the pg driver, not an ORM\n</answer>'),
        say('', claude),
        answer(
          claude,
          'User has answered your questions: "Which port?"="8080". You can now continue with the user\'s answers in mind.',
        ),
        say('', plan),
        answer(plan, '<user_message>\nlooks good, but use knex\n</user_message>'),
        say('', done),
        answer(
          done,
          'The user has provided feedback on the results.\n<feedback>\nalso add an index on created_at\n</feedback>',
        ),
        // A file that holds the tags is no reply.
        say('', shown),
        answer(shown, '<prompt>\n<answer>\n42\n</answer>\n<feedback>\nbe terse\n</feedback>\n</prompt>'),
      ],
      maxChars: 4000,
    });
    expect(sections.userRequests).toEqual([
      'Add persistence to the todo app.',
      'Answer to "Which database should I use?": Postgres, with the pg driver, not an ORM',
      'Answer to "Which port?": 8080',
      'Answer to "Plan: a users table, then POST /users. Shall I proceed?": looks good, but use knex',
      'Feedback: also add an index on created_at',
    ]);
    // A question answered is not a command run besides (it said the question again); the completion is.
    expect(sections.commandsRun).toEqual([
      '`attempt_completion(result=Added Postgres persistence via pg.)` → ok',
      '`cat prompts/review.xml` → ok',
    ]);
  });

  it('a plan the person approved is one of their requests, with its steps; one they refused says what they said', () => {
    const plan = [
      '## Plan',
      '1. Add a `users` table migration in db/migrations/002_users.sql',
      '2. **Wire** POST /users in src/routes/users.ts',
    ].join('\n');
    const first = call('ExitPlanMode', { plan });
    const second = call('ExitPlanMode', { plan: `${plan}\n3. Use knex` });
    const { sections } = summarizeDeterministic({
      messages: [
        ask('Add user signup to the API.'),
        say('', first),
        answer(
          first,
          "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, " +
            'the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse knex',
        ),
        say('', second),
        answer(second, 'User has approved your plan. You can now start coding. Start with updating your todo list'),
      ],
      maxChars: 4000,
    });
    expect(sections.userRequests).toEqual([
      'Add user signup to the API.',
      'Refusing the plan "Add a `users` table migration in db/migrations/002_users.sql; Wire POST /users…": use knex',
      'Approved the plan: Add a `users` table migration in db/migrations/002_users.sql; Wire POST /users in src/routes/users.ts; Use knex',
    ]);
  });

  it('a question put to the person and not answered yet is what the conversation waits on', () => {
    const cline = call('ask_followup_question', { question: 'Which database should I use?' });
    const claude = call('AskUserQuestion', { questions: [{ question: 'Which port?', header: 'Port', options: [] }] });
    for (const [asked, question] of [
      [cline, 'Which database should I use?'],
      [claude, 'Which port?'],
    ] as const) {
      const { sections } = summarizeDeterministic({
        messages: [ask('Add persistence.'), say('Asking first.', asked)],
        maxChars: 2000,
      });
      expect(sections.pendingWork).toEqual([`Awaiting the user: ${question}`]);
    }
  });

  it("reads a sub-agent's report as the agent's own findings: the files and code it names, what it decided", () => {
    const explore = call('Task', {
      description: 'Why the store test fails',
      prompt: 'Explore',
      subagent_type: 'Explore',
    });
    const report = [
      'Findings:',
      '1. Sessions are stored by `SessionStore` in src/store/session-store.ts; there is no TTL index.',
      '2. The failing test tests/store.spec.ts expects `expiresAt` to be set; `SessionStore.save` never sets it.',
      'The fix should set `expiresAt` in save and add the index in src/store/indexes.ts.',
    ].join('\n');
    const background = call('Task', { description: 'Long audit', prompt: 'Audit', run_in_background: true });
    const { sections } = summarizeDeterministic({
      messages: [
        ask('Find out why the store test fails.'),
        say('', explore),
        answer(explore, report),
        say('', background),
        answer(background, 'Async agent launched successfully.\nagentId: a9cad17 (docs/audit-notes.md is its output)'),
      ],
      maxChars: 4000,
    });
    expect(sections.filesTouched).toEqual([
      'src/store/indexes.ts (seen)',
      'src/store/session-store.ts (seen)',
      'tests/store.spec.ts (seen)',
    ]);
    expect(sections.codeSymbols).toEqual(expect.arrayContaining(['SessionStore', 'expiresAt', 'SessionStore.save']));
    expect(sections.decisions).toEqual([
      'The fix should set `expiresAt` in save and add the index in src/store/indexes.ts.',
    ]);
    // The call, with what its report opens with (headings left out); the background one is a launch, not a report.
    expect(sections.commandsRun).toEqual([
      '`Task "Why the store test fails"` → ok: Sessions are stored by `SessionStore` in src/store/session-store.ts; there is no TTL index. The failing test tests/store.spec.ts expects `expiresAt` to be set; `SessionStore.save` never sets it. The…',
    ]);
  });

  it("names the file a range edit changed in its Commands run line (SWE-agent's `edit N:M` edits the file open)", () => {
    const steps = [
      'open src/models.py',
      'edit 10:12\n    return round(x)\nend_of_edit',
      'edit 10:12\n    return int(round(x))\nend_of_edit',
      'create reproduce.py',
      'edit\nprint(1)\nend_of_edit',
      "sed -i 's/a/b/' src/models.py",
    ].map((command) => call('bash', { command }));
    const { sections } = summarizeDeterministic({
      messages: [ask('Fix the rounding.'), ...steps.flatMap((c) => [say('', c), answer(c, 'ok')])],
      maxChars: 4000,
    });
    expect(sections.commandsRun).toEqual(
      expect.arrayContaining([
        '`edit 10:12 on src/models.py` ×2 → last: ok',
        '`edit on reproduce.py` → ok',
        // A command that names its file is listed as it is.
        "`sed -i 's/a/b/' src/models.py` → ok",
      ]),
    );
  });

  it('a read that failed is no read: the file may not be there', () => {
    const probe = call('shell', { command: ['cat', '.env', 'package.json'] });
    const tool = call('Read', { file_path: '/repo/config/local.yaml' });
    const fine = call('Read', { file_path: '/repo/README.md' });
    const { sections } = summarizeDeterministic({
      messages: [
        ask('Set the project up.'),
        say('', probe),
        answer(probe, '{"name": "app"}\ncat: .env: No such file or directory\nExit code: 1'),
        say('', tool),
        answer(tool, 'File does not exist.', true),
        say('', fine),
        answer(fine, '# App'),
      ],
      maxChars: 4000,
    });
    expect(sections.filesTouched).toEqual([
      '/repo/README.md (read)',
      '/repo/config/local.yaml (failed read)',
      '.env (failed read)',
      'package.json (read)',
    ]);
  });

  it('produces the fixed sections in order, with what happened in each', () => {
    const { text, sections, notSmaller } = summarizeDeterministic({ messages: session(), maxChars: 4000 });
    expect(text.startsWith(SUMMARY_TITLE)).toBe(true);
    const positions = SUMMARY_SECTIONS.map((name) => text.indexOf(`\n## ${name}\n`));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(notSmaller).toBe(false);

    expect(sections.userRequests).toEqual([
      'Fix the failing test in src/app.ts and keep the public API unchanged.',
      'Thanks. Next steps: - [ ] add a changelog entry 1. bump the version',
    ]);
    // Edited files first, then by touches, then most recent, then by path.
    expect(sections.filesTouched).toEqual([
      '/repo/src/app.ts (edit, read)',
      'docs/notes.md (read)',
      'src/util.ts (read)',
      '/repo/README.md (read)',
      // Named in outputs: the traceback and the failing test.
      'scripts/migrate.py (seen)',
      'src/app.spec.ts (seen)',
    ]);
    expect(sections.commandsRun).toEqual([
      '`npm test 2>&1 | tail -20` → exit 1: FAIL src/app.spec.ts',
      '`npm test` → tests 1 passed',
      '`python scripts/migrate.py` → error: ModuleNotFoundError: No module named yaml (at scripts/migrate.py:3)',
      "`sed -n '1,40p' src/util.ts && cat docs/notes.md | head -5` → ok",
      '`npm run build`',
    ]);
    expect(sections.errorsSeen).toEqual([
      'bash npm test 2>&1 | tail -20 — FAIL src/app.spec.ts [fixed later]',
      'bash python scripts/migrate.py — ModuleNotFoundError: No module named yaml (at scripts/migrate.py:3) [unresolved]',
    ]);
    // (A finding, where the bug is, as well as a decision.)
    expect(sections.decisions).toEqual(['The bug is in `add()`.', 'Use a plain sum instead of the subtraction.']);
    expect(sections.pendingWork).toEqual([
      'bash npm run build — no result yet',
      'add a changelog entry',
      'bump the version',
      'TODO: the migration script still needs PyYAML.',
    ]);
    expect(sections.currentState).toBe('The test passes now. TODO: the migration script still needs PyYAML.');
  });

  it('a command whose result was pruned keeps its failure in the note, and a pruned success does not fix it', () => {
    const check = call('bash', { command: 'npm run check' });
    const checkAgain = call('bash', { command: 'npm run check' });
    const r = summarizeDeterministic({
      messages: [
        ask('Make the type check pass.'),
        say('', check),
        answer(
          check,
          prunedPlaceholder(
            'bash',
            'command=npm run check',
            2400,
            "error: src/main.ts(499,20): error TS2304: Cannot find name 'join'.",
          ),
        ),
        say('Importing join.', checkAgain),
        answer(checkAgain, prunedPlaceholder('bash', 'command=npm run check', 2400, 'exit 2: npm error code 2')),
      ],
      maxChars: 4000,
    });
    expect(r.sections.commandsRun).toEqual(['`npm run check` ×2 → last: exit 2: npm error code 2']);
    expect(r.sections.errorsSeen).toEqual([
      "bash npm run check — src/main.ts(499,20): error TS2304: Cannot find name 'join'. [unresolved]",
      'bash npm run check — exit 2: npm error code 2 [unresolved]',
    ]);
  });

  it('keeps the commits made before the other commands when Commands run is cut; a bare exit status is told by its output', () => {
    const messages: ChatMessage[] = [ask('Build the catalog service and commit each phase.')];
    for (let i = 1; i <= 3; i++) {
      const commit = call('Bash', { command: `git add -A && git commit -m "Phase ${i}"` });
      messages.push(say('', commit), answer(commit, `[master ${i}a2b3c${i}] Phase ${i}\n 3 files changed`));
      for (let j = 1; j <= 6; j++) {
        const probe = call('Bash', {
          command: `curl -s localhost:8000/api/v1/books?page=${i}${j} | python3 -m json.tool`,
        });
        messages.push(
          say('', probe),
          answer(probe, j === 6 ? 'Exit code 1\nExpecting value: line 1 column 1 (char 0)' : '{"items": []}'),
        );
      }
    }
    const r = summarizeDeterministic({ messages, maxChars: 1500 });
    const commits = r.sections.commandsRun.filter((l) => / → ok: \[master \w+\] Phase \d$/.test(l));
    expect(commits).toHaveLength(3);
    expect(r.sections.commandsRun.length).toBeLessThan(21); // cut: the curl probes gave way
    expect(r.sections.errorsSeen[0]).toMatch(/ — Expecting value: line 1 column 1 \(char 0\)/);
  });

  it("keeps a long request's start and end (its question after pasted context), without a harness's reminders", () => {
    const log = Array.from({ length: 80 }, (_, i) => `worker ${i}: retry scheduled`).join('\n');
    const asked =
      '<system-reminder>Note: The user opened the file "d:\\hub\\prd.md".</system-reminder>\n' +
      `Here is the worker log:\n${log}\nWhy does the worker retry without a backoff?`;
    const grep = call('bash', { command: 'grep -rn retry src/worker.ts' });
    const r = summarizeDeterministic({
      messages: [ask(asked), say('', grep), answer(grep, 'src/worker.ts:12: retry(job)')],
      maxChars: 4000,
    });
    // With the room the note has left, the request says more of its log (up to 1,500 characters, start and end).
    expect(r.sections.userRequests[0]).toMatch(
      /^Here is the worker log: worker 0: retry scheduled .* worker 20: .* … .*Why does the worker retry without a backoff\?$/,
    );
    expect(r.sections.userRequests[0]!.length).toBeLessThanOrEqual(1500);
    expect(r.sections.userRequests[0]).not.toContain('system-reminder');
    expect(r.sections.pendingWork[0]).toMatch(/^Unanswered: .*Why does the worker retry without a backoff\?$/);
    // With less room, less of it: still its start and its end.
    const tight = summarizeDeterministic({
      messages: [ask(asked), say('', grep), answer(grep, 'src/worker.ts:12: retry(job)')],
      maxChars: 700,
    });
    expect(tight.text.length).toBeLessThanOrEqual(700);
    expect(tight.sections.userRequests[0]).toMatch(/^Here is the worker log: .* … .*without a backoff\?$/);
    expect(tight.sections.userRequests[0]!.length).toBeLessThan(r.sections.userRequests[0]!.length);
  });

  it('a web lookup is a line of Commands run with what it found; its query is prose, not code symbols', () => {
    const search = call('WebSearch', { query: 'prisma cursor pagination findMany example' });
    const fetchDocs = call('WebFetch', { url: 'https://expressjs.com/en/api.html', prompt: 'how to set headers' });
    const broken = call('web_fetch', { url: 'https://example.invalid/x' });
    const r = summarizeDeterministic({
      messages: [
        ask('Add cursor pagination and a total count header.'),
        say('', search),
        answer(
          search,
          'Links: [{"title":"Pagination","url":"https://www.prisma.io/docs/orm/prisma-client/queries/pagination"}]\nPrisma supports cursor-based pagination.',
        ),
        say('', fetchDocs),
        answer(fetchDocs, '\nUse res.set(field, value) or res.header().'),
        say('', broken),
        { ...answer(broken, 'Error: getaddrinfo ENOTFOUND example.invalid'), isError: true },
      ],
      maxChars: 4000,
    });
    expect(r.sections.commandsRun).toEqual([
      '`WebSearch "prisma cursor pagination findMany example"` → ok: https://www.prisma.io/docs/orm/prisma-client/queries/pagination',
      '`WebFetch https://expressjs.com/en/api.html` → ok: Use res.set(field, value) or res.header().',
      '`web_fetch https://example.invalid/x` → error: Error: getaddrinfo ENOTFOUND example.invalid',
    ]);
    // `findMany` is code; `prisma`, `cursor`, `pagination`, `example` are the query's words.
    expect(r.sections.codeSymbols).toEqual(['findMany']);
  });

  it("a person's list of requirements is kept whole while the note has room, not cut to its first and last items", () => {
    const spec = [
      'Please add rate limiting to the API. Requirements:',
      '1. Use a token bucket per API key, 100 requests per minute by default.',
      '2. The limit must be configurable with the RATE_LIMIT_PER_MINUTE env var.',
      '3. Return HTTP 429 with a Retry-After header when the bucket is empty.',
      '4. Do not rate-limit the /health endpoint.',
      '5. Store buckets in Redis, not in memory, because we run 4 replicas.',
      "Don't touch the auth middleware, another team owns it.",
    ].join('\n');
    const read = call('Read', { file_path: 'src/server.ts' });
    const messages = [ask(spec), say('', read), answer(read, 'x\n'.repeat(200))];
    const roomy = summarizeDeterministic({ messages, maxChars: 3000 });
    for (const item of ['RATE_LIMIT_PER_MINUTE', 'Retry-After', '/health endpoint', 'Redis', 'auth middleware'])
      expect(roomy.sections.userRequests[0]).toContain(item);
    // The items a short note leaves out are where a person's list is cut: its middle.
    const short = summarizeDeterministic({ messages, maxChars: 400 });
    expect(short.text.length).toBeLessThanOrEqual(400);
    expect(short.sections.userRequests[0]).toContain('Please add rate limiting');
    expect(short.sections.userRequests[0]).not.toContain('RATE_LIMIT_PER_MINUTE');
  });

  it("states a commit once: by its message when the command gives it (not the files staged), else by git's line", () => {
    const staged = call('Bash', {
      command: `git add ${'app/models/book.py '.repeat(12)}&& git commit -m "Add ISBN support to books"`,
    });
    const fromFile = call('Bash', { command: 'git commit -F /tmp/msg.txt' });
    const r = summarizeDeterministic({
      messages: [
        ask('Commit it.'),
        say('', staged),
        answer(staged, '[master dbc88aa] Add ISBN support to books\n 8 files changed'),
        say('', fromFile),
        answer(fromFile, '[master 1b34222] Fix ISBN not returned in book list\n 1 file changed'),
      ],
      maxChars: 4000,
    });
    expect(r.sections.commandsRun).toEqual([
      '`git commit -m "Add ISBN support to books"` → ok: [master dbc88aa]',
      '`git commit -F /tmp/msg.txt` → ok: [master 1b34222] Fix ISBN not returned in book list',
    ]);
  });

  it("keeps what a command showed before its latest run read otherwise: the reproduction's output before the fix", () => {
    const run = () => call('bash', { command: 'python reproduce.py' });
    const [first, second, third, fourth] = [run(), run(), run(), run()];
    const messages = [
      ask('Fix the rounding of TimeDelta.'),
      say('Reproducing.', first),
      answer(first, '344'),
      say('Again after the edit.', second),
      answer(second, 'Traceback (most recent call last):\nNameError: name "rnd" is not defined'),
      say('Fixed the name.', third),
      answer(third, '345'),
    ];
    const fixed = summarizeDeterministic({ messages, maxChars: 4000 });
    // The failure in between is in Errors seen; the output before it is what the fix changed.
    expect(fixed.sections.commandsRun).toEqual(['`python reproduce.py` ×3 → earlier: ok: 344; last: ok: 345']);
    // Read back from its own summary and run once more with the same output: the earlier output stays.
    const again = summarizeDeterministic({
      previousSummary: fixed.text,
      messages: [say('Once more.', fourth), answer(fourth, '345')],
      maxChars: 4000,
    });
    expect(again.sections.commandsRun).toEqual(['`python reproduce.py` ×4 → earlier: ok: 344; last: ok: 345']);
    // A success, then a failure: the success is the earlier output.
    const broke = summarizeDeterministic({ messages: messages.slice(0, 5), maxChars: 4000 });
    expect(broke.sections.commandsRun).toEqual([
      '`python reproduce.py` ×2 → earlier: ok: 344; last: error: NameError: name "rnd" is not defined',
    ]);
    // A bare `ok` before: nothing the latest does not tell.
    const quiet = summarizeDeterministic({
      messages: [...messages.slice(0, 2), answer(first, ''), say('', second), answer(second, '345')],
      maxChars: 4000,
    });
    expect(quiet.sections.commandsRun).toEqual(['`python reproduce.py` ×2 → last: ok: 345']);
    // The same output each time: nothing earlier to tell.
    const same = summarizeDeterministic({
      messages: [...messages.slice(0, 3), say('', second), answer(second, '344')],
      maxChars: 4000,
    });
    expect(same.sections.commandsRun).toEqual(['`python reproduce.py` ×2 → last: ok: 344']);
  });

  it('lists an unanswered request once, not again as a to-do line of itself', () => {
    const r = summarizeDeterministic({
      messages: [
        ask('Fix the parser.'),
        { role: 'assistant', content: 'Fixed. TODO: add a test for empty input.' },
        ask('Next, update the changelog and bump the version.'),
      ],
      maxChars: 2000,
    });
    expect(r.sections.pendingWork).toEqual([
      'Unanswered: Next, update the changelog and bump the version.',
      'TODO: add a test for empty input.',
    ]);
  });

  it('flags a summary that is not smaller than its input', () => {
    // (The default bound, 40 % of a two-character input, has room for nothing: this one has room for the request.)
    const r = summarizeDeterministic({ messages: [ask('hi')], maxChars: 100 });
    expect(r.notSmaller).toBe(true);
    expect(r.sections.userRequests).toEqual(['hi']);
  });

  it('cut to its bound, Commands run keeps the commands that ran something before newer ones that only looked around', () => {
    const run = call('bash', { command: 'python reproduce.py' });
    const looks = ['ls -F', 'find_file "fields.py" src', 'grep -n TimeDelta src/fields.py', 'open src/fields.py 1474'];
    const around = looks.map((command) => call('bash', { command }));
    const messages: ChatMessage[] = [
      ask('Fix the TimeDelta rounding.'),
      say('', run),
      answer(run, '344'),
      ...around.flatMap((c, i) => [say('', c), answer(c, `listing ${i}`)]),
    ];
    const full = summarizeDeterministic({ messages, maxChars: 4000 }).sections.commandsRun;
    expect(full).toHaveLength(5);
    const cut = summarizeDeterministic({ messages, maxChars: 320 });
    expect(cut.omitted.commandsRun).toBeGreaterThan(0);
    expect(cut.sections.commandsRun).toContain('`python reproduce.py` → ok: 344');
    // The kept ones stay in the order they ran.
    const kept = cut.sections.commandsRun.map((line) => full.indexOf(line));
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
  });

  it('keeps the newest user requests (and the first, the task) when over budget, and counts the rest', () => {
    const messages = Array.from({ length: 60 }, (_, i) => [
      ask(`request number ${i} ${'x'.repeat(200)}`),
      say(`ok ${i}`),
    ]).flat();
    const r = summarizeDeterministic({ messages, maxChars: 2000 });
    expect(r.text.length).toBeLessThanOrEqual(2000);
    const kept = r.sections.userRequests.map((t) => Number(/request number (\d+)/.exec(t)?.[1]));
    expect(kept[0]).toBe(0);
    expect(kept[kept.length - 1]).toBe(59);
    expect(kept.slice(1)).toEqual(Array.from({ length: kept.length - 1 }, (_, i) => 60 - kept.length + 1 + i));
    expect(r.omitted.userRequests).toBe(60 - kept.length);
    expect(r.text).toContain(`- (+${60 - kept.length} more omitted)`);
  });

  it('with room for one line, keeps both the newest request and the first (the task), each cut shorter', () => {
    const messages = [
      ask(`Write three poems about curries, one per sub-agent ${'a'.repeat(300)}`),
      ...Array.from({ length: 12 }, (_, i) => [ask(`follow-up ${i} ${'y'.repeat(300)}`), say(`ok ${i}`)]).flat(),
    ];
    const r = summarizeDeterministic({ messages, maxChars: 400 });
    expect(r.sections.userRequests).toHaveLength(2);
    expect(r.sections.userRequests[0]).toMatch(/^Write three poems about curries/);
    expect(r.sections.userRequests[1]).toMatch(/^follow-up 11 /);
  });

  it("lists what the harness wrote in the user's name (a tag first) after every request a person wrote", () => {
    const messages = [
      ask('Spawn sub-agents to write poems about Thai curries.'),
      say('Started three agents.'),
      ask('<task-notification> <task-id>a1</task-id> <status>completed</status> </task-notification>'),
      ask('<local-command-stdout>(no content)</local-command-stdout>'),
      ask('Publish the session transcript.'),
      ask('<task-notification> <task-id>a2</task-id> <status>completed</status> </task-notification>'),
      say('Done.'),
    ];
    const full = summarizeDeterministic({ messages, maxChars: 4000 });
    expect(full.sections.userRequests.map((t) => t.slice(0, 12))).toEqual([
      'Spawn sub-ag',
      '<task-notifi',
      'Publish the ',
      '<task-notifi',
    ]); // in time order when all fit (a slash command's output is not listed)
    // Tight: both requests a person wrote are kept before any notification.
    const tight = summarizeDeterministic({ messages, maxChars: 260 });
    expect(tight.sections.userRequests.map((t) => t.slice(0, 12))).toEqual(['Spawn sub-ag', 'Publish the ']);
    expect(tight.omitted.userRequests).toBe(2);
  });

  it('takes a bare slash command (typed to the harness) for neither the task nor a request a person made', () => {
    const task = `Port the selectors to the theme system ${'x'.repeat(120)}`;
    const messages = [
      ask('/mode'),
      ask(task),
      say('Reading the selectors.'),
      ask('/them'),
      ask(`Now fix the queued messages component ${'y'.repeat(120)}`),
      say('On it.'),
    ];
    const tight = summarizeDeterministic({ messages, maxChars: 360 });
    expect(tight.sections.userRequests.map((t) => t.slice(0, 16))).toEqual(['Port the selecto', 'Now fix the queu']);
    expect(tight.omitted.userRequests).toBe(2);
  });

  it("words Claude Code's record of the person's own commands as they typed them, the harness's; its notice and a command's output not at all", () => {
    const messages = [
      ask(
        'Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.',
      ),
      ask(
        '<command-name>/model</command-name>\n  <command-message>model</command-message>\n  <command-args>opus</command-args>',
      ),
      ask('<local-command-stdout>Set model to opus (claude-opus-4-1-20250805)</local-command-stdout>'),
      ask(
        '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>',
      ),
      ask('Fix the flaky test in test/api.test.ts'),
      say('Looking at it.'),
      ask('<bash-input>git status</bash-input>'),
      ask(
        '<bash-stdout>On branch main\nnothing to commit, working tree clean</bash-stdout><bash-stderr></bash-stderr>',
      ),
      say('The tree is clean.'),
    ];
    // (Was each message whole, its tags included, the caveat and the model's notice too.)
    const roomy = summarizeDeterministic({ messages, maxChars: 4000 });
    expect(roomy.sections.userRequests).toEqual([
      '/model opus',
      'Fix the flaky test in test/api.test.ts',
      '! git status',
      '! output: On branch main nothing to commit, working tree clean',
    ]);
    // The person's request is the task, and nothing awaits an answer: the commands were typed to the harness.
    const tight = summarizeDeterministic({ messages, maxChars: 200 });
    expect(tight.sections.userRequests[0]).toBe('Fix the flaky test in test/api.test.ts');
    expect(roomy.sections.pendingWork.join('\n')).not.toContain('Unanswered');
  });

  it("words pi's record of a command the person ran as one short line, the harness's: no request awaiting an answer", () => {
    const listing = Array.from({ length: 3000 }, (_, i) => `./.git/objects/${i}`).join('\n');
    const messages = [
      ask('Fix the footer cost display.'),
      say('Done.'),
      ask('Ran `ls`\n```\nAGENTS.md\nbiome.json\npackages\n```'),
      ask(`Ran \`find .\`\n\`\`\`\n${listing}\n\n\`\`\``),
    ];
    const { sections } = summarizeDeterministic({ messages, maxChars: 4000 });
    // (Was the whole fenced output as a request, 1,500 characters of it with room, and `Unanswered: Ran \`find .\``.)
    expect(sections.userRequests.slice(0, 2)).toEqual([
      'Fix the footer cost display.',
      '! ls → AGENTS.md biome.json packages',
    ]);
    expect(sections.userRequests[2]).toMatch(/^! find \. → \.\/\.git\/objects\/0 .{100,170}$/);
    expect(sections.pendingWork).toEqual([]);
  });

  it("takes Codex's AGENTS.md and environment messages for the harness's, and Cursor's <user_query> for the person's words", () => {
    const agentsMd = `<user_instructions>\n# Repository Guidelines\n${'Use pnpm; run pnpm test before a commit. '.repeat(30)}\n</user_instructions>`;
    const env =
      '<environment_context>\n  <cwd>/home/u/app</cwd>\n  <sandbox_mode>workspace-write</sandbox_mode>\n</environment_context>';
    const messages = [ask(agentsMd), ask(env), ask('Add a --verbose flag to the CLI.'), say('Adding it.')];
    // Tight: the request a person wrote first; the harness's messages only with room to spare.
    const tight = summarizeDeterministic({ messages, maxChars: 300 });
    expect(tight.sections.userRequests).toContain('Add a --verbose flag to the CLI.');
    expect(tight.sections.userRequests.join('\n')).not.toContain('Repository Guidelines');
    // Roomy: the harness's long message stays cut to a request's length (the room left goes to a person's).
    const roomy = summarizeDeterministic({ messages, maxChars: 4000 });
    const kept = roomy.sections.userRequests.find((r) => r.startsWith('<user_instructions>'))!;
    expect(kept.length).toBeLessThanOrEqual(300);
    const cursor = ask(
      '<user_info>\nOS: linux\n</user_info>\n<rules>\nBe brief.\n</rules>\n<user_query>\nAdd dark mode.\n</user_query>',
    );
    const asked = summarizeDeterministic({ messages: [cursor, say('Adding it.')], maxChars: 2000 });
    expect(asked.sections.userRequests).toEqual(['Add dark mode.']);
  });

  it("takes Cline's <task>, <feedback> and <user_message> for the person's words, its environment details for context", () => {
    const env = [
      '<environment_details>',
      '# VSCode Visible Files',
      'src/app.ts',
      '# Current Time',
      '1/1/2025, 10:00:00 AM (UTC)',
      '# Current Mode',
      'ACT MODE',
      '</environment_details>',
    ].join('\n');
    const read = call('read_file', { path: 'src/app.ts' });
    const messages = [
      ask(`<task>\nAdd a /health endpoint to src/app.ts\n</task>\n\n${env}`),
      say('Reading the app.', read),
      answer(read, 'import express from "express";'),
      ask(`<feedback>\nuse fastify instead\n</feedback>\n\n${env}`),
      say('Switching to fastify.'),
      ask(
        `[attempt_completion] Result:\n\nThe user has provided feedback on the results.\n<feedback>\nalso log requests\n</feedback>\n\n${env}`,
      ),
      say('Logging them.'),
      ask(`[read_file for 'src/b.ts'] Result:\nexport const b = 1;\n\n${env}`),
      ask(`<user_message>\nand add a test\n</user_message>\n\n${env}`),
    ];
    const { sections } = summarizeDeterministic({ messages, maxChars: 3000 });
    expect(sections.userRequests.filter((r) => !r.includes('] Result:'))).toEqual([
      'Add a /health endpoint to src/app.ts',
      'use fastify instead',
      'also log requests',
      'and add a test',
    ]);
    expect(sections.userRequests.join('\n')).not.toMatch(/environment_details|VSCode/);
    // A tool's result in the user's name is the harness's: left out first when room is short.
    const tight = summarizeDeterministic({ messages, maxChars: 300 });
    expect(tight.sections.userRequests).toContain('and add a test');
    expect(tight.sections.userRequests.join('\n')).not.toContain('] Result:');
  });

  it("takes Aider's reports of its own lint, test run and commit for the harness's, after what the person wrote", () => {
    const lint = `Fix any errors below, if possible.\n\n## Running: flake8 --select=E9 app.py\n\n${'app.py:3:1: E999 SyntaxError: invalid syntax\n'.repeat(8)}`;
    const ran = `I ran this command:\n\npytest tests\n\nAnd got this output:\n\n${'FAILED tests/test_a.py::test_x - assert 1 == 2\n'.repeat(8)}`;
    const messages = [
      ask('Make the parser accept trailing commas.'),
      say('Editing.'),
      ask(lint),
      say('Fixed.'),
      ask(ran),
    ];
    const tight = summarizeDeterministic({ messages, maxChars: 150 });
    expect(tight.sections.userRequests).toContain('Make the parser accept trailing commas.');
    expect(tight.sections.userRequests.join('\n')).not.toMatch(/Fix any errors below|I ran this command/);
  });

  it("takes Claude Code's interruption, untagged caveat and continuation for the harness's; the continuation may grow", () => {
    const continued = `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis: ${'The user asked for the parser fix; tests pass. '.repeat(20)}\nPending Tasks: wire the CLI flag.`;
    const messages = [
      ask(continued),
      ask(
        'Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.',
      ),
      ask('Rename the parser module.'),
      say('Renaming.'),
      ask('[Request interrupted by user for tool use]'),
      say('Stopped.'),
    ];
    const tight = summarizeDeterministic({ messages, maxChars: 200 });
    // The request a person wrote before the harness's messages (the short interruption still fits), no caveat.
    expect(tight.sections.userRequests).toContain('Rename the parser module.');
    expect(tight.sections.userRequests.join('\n')).not.toMatch(/Caveat/);
    // Nothing awaits an answer: the interruption is no question.
    expect(tight.sections.pendingWork.join('\n')).not.toContain('Unanswered');
    // With room, the continuation is kept as what it says of the work (its sections), not its boilerplate.
    const roomy = summarizeDeterministic({ messages, maxChars: 6000 });
    expect(roomy.sections.userRequests).toContain('Continued session — pending: wire the CLI flag.');
    const full = [
      'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:',
      'Analysis:',
      `Let me go through it. ${'Many details. '.repeat(40)}`,
      'Summary:',
      '1. Primary Request and Intent:',
      '   Refactor the session API into AgentSession; keep the old code for reference.',
      '3. Files and Code Sections:',
      '   - /repo/src/core/agent-session.ts',
      '     - The core abstraction:',
      '     ```ts',
      "     import { x } from './util.ts';",
      '     ```',
      '4. Errors and fixes:',
      "   - **TS2304 Cannot find name 'join'**:",
      '     - Fixed by importing it from node:path.',
      '     - User feedback: "no require() here"',
      '7. Pending Tasks:',
      '   - WP17: move the TUI components',
      '   - WP20: final cleanup',
      '8. Current Work:',
      '   Updating main-new.ts to use InteractiveMode.',
      '   Remaining: the keyboard handlers.',
      '9. Optional Next Step:',
      '   Run npm run check and commit WP16.',
      'Please continue the conversation from where we left it off without asking the user any further questions.',
    ].join('\n');
    const read = summarizeDeterministic({ messages: [ask(full), say('Continuing.')], maxChars: 3000 });
    // The files it lists are files of the session; the code under them is no file.
    expect(read.sections.filesTouched).toEqual(['/repo/src/core/agent-session.ts (seen)']);
    expect(read.sections.userRequests).toEqual([
      'Continued session — request: Refactor the session API into AgentSession; keep the old code for reference.; ' +
        'pending: WP17: move the TUI components; WP20: final cleanup; current work: Updating main-new.ts to use ' +
        'InteractiveMode.; Remaining: the keyboard handlers.; next: Run npm run check and commit WP16.; ' +
        // The errors it met and how they were fixed, with what the person said of it: last, as room allows.
        "errors and fixes: TS2304 Cannot find name 'join'; Fixed by importing it from node:path.; " +
        'User feedback: "no require() here"',
    ]);
    const narrow = summarizeDeterministic({ messages: [ask(full), say('Continuing.')], maxChars: 700 });
    expect(narrow.sections.userRequests[0]).toMatch(/^Continued session — request: Refactor .*; pending: WP17/);
  });

  it("takes Gemini CLI's setup of the chat for the harness's: not a request kept first, nor awaiting an answer", () => {
    const setup = [
      'This is the Gemini CLI. We are setting up the context for our chat.',
      "Today's date is Tuesday, December 30, 2025.",
      'My operating system is: linux',
      `Here is the folder structure: ${'├───src/x.rs '.repeat(30)}`,
      'My setup is complete. I will provide my first command in the next turn.',
    ].join('\n');
    const task = 'Fix the self-update on Linux: Error: Text file busy (os error 26)';
    // A span of the setup alone (the first compaction of a session): nothing is asked yet.
    const alone = summarizeDeterministic({ messages: [ask(setup)], maxChars: 2000 });
    expect(alone.sections.pendingWork).toEqual([]);
    const both = summarizeDeterministic({ messages: [ask(setup), ask(task)], maxChars: 2000 });
    expect(both.sections.pendingWork).toEqual([`Unanswered: ${task}`]);
    // The newest request a person wrote, then the task: the setup is neither.
    const later = 'Now run cargo clippy and fix its warnings.';
    const three = summarizeDeterministic({ messages: [ask(setup), ask(task), ask(later)], maxChars: 300 });
    expect(three.sections.userRequests).toEqual([task, later]);
  });

  it('reads back a command whose outcome quotes code (ends in a backtick) as that command', () => {
    const previous = [
      '# Summary of the earlier conversation',
      '## Commands run',
      '- `cargo build` → exit 101: error[E0425]: cannot find value `x`',
    ].join('\n');
    const build = call('bash', { command: 'cargo build' });
    const merged = summarizeDeterministic({
      previousSummary: previous,
      messages: [
        say('Declared x.', build),
        answer(build, '   Compiling app v0.1.0\n    Finished `dev` profile in 2.1s'),
      ],
      maxChars: 4000,
    });
    expect(merged.sections.commandsRun).toEqual(['`cargo build` ×2 → last: ok: Finished `dev` profile in 2.1s']);
  });

  it("reads the task the previous summary carries cut short whole again from the person's message (not when two start alike)", () => {
    const task =
      'Add rate limiting (5 requests a minute per IP) to the signup route in src/routes/user.ts and make the e2e tests in test/signup.e2e.ts pass.';
    const previous = (first: string) =>
      [
        '# Summary of the earlier conversation',
        '## User requests',
        `- ${first}`,
        '- Please continue with the next step of…',
        '- go on with step 0',
      ].join('\n');
    const cutTask = 'Add rate limiting (5 requests a minute per IP) to the signu…';
    const later = 'Please continue with the next step of the plan: the parser';
    const recalled = [
      ask(task),
      { role: 'assistant', content: 'On it.' } as ChatMessage,
      ask(later),
      ask('go on with step 0'),
    ];
    const merged = summarizeDeterministic({
      previousSummary: previous(cutTask),
      messages: [ask('go on with step 1')],
      recalled,
      maxChars: 4000,
    });
    // The task only: the other requests stay as the summary kept them (it chose what to keep of them).
    expect(merged.sections.userRequests).toEqual([
      task,
      'Please continue with the next step of…',
      'go on with step 0',
      'go on with step 1',
    ]);
    // Without the messages, or with two that start as the cut task does, as it was.
    const without = summarizeDeterministic({ previousSummary: previous(cutTask), messages: [], maxChars: 4000 });
    expect(without.sections.userRequests[0]).toBe(cutTask);
    const twice = summarizeDeterministic({
      previousSummary: previous(cutTask),
      messages: [],
      recalled: [ask(task), ask(`${task.slice(0, 70)} and the login route too.`)],
      maxChars: 4000,
    });
    expect(twice.sections.userRequests[0]).toBe(cutTask);
  });

  it('merges a previous summary instead of summarizing it: requests, counts, fixes', () => {
    const first = session();
    const prev = summarizeDeterministic({ messages: first, maxChars: 4000 });
    const fix = call('bash', { command: 'python scripts/migrate.py' });
    const reread = call('read', { path: '/repo/src/app.ts' });
    const next: ChatMessage[] = [
      ask('Install PyYAML and rerun the migration.'),
      say('', fix, reread),
      answer(fix, 'migrated 3 tables'),
      answer(reread, 'export const add = (a, b) => a + b;'),
      say('Migration done.'),
    ];
    const merged = summarizeDeterministic({ messages: next, previousSummary: prev.text, maxChars: 4000 });
    expect(merged.sections.userRequests).toEqual([
      ...prev.sections.userRequests,
      'Install PyYAML and rerun the migration.',
    ]);
    expect(merged.sections.filesTouched[0]).toBe('/repo/src/app.ts (edit, read×2)');
    expect(merged.sections.commandsRun).toContain('`python scripts/migrate.py` ×2 → last: ok: migrated 3 tables');
    expect(merged.sections.errorsSeen).toContain(
      'bash python scripts/migrate.py — ModuleNotFoundError: No module named yaml (at scripts/migrate.py:3) [fixed later]',
    );
    expect(merged.sections.decisions).toEqual(prev.sections.decisions);
    // The previous span's pending work is superseded by the new span's end.
    expect(merged.sections.pendingWork).toEqual([]);
    expect(merged.sections.currentState).toBe('Migration done.');
    expect(merged.text).not.toContain(SUMMARY_TITLE + '\n' + SUMMARY_TITLE);
  });

  it('reads an LLM summary written with the same headings', () => {
    const llm = [
      '**User requests:**',
      '1. Port the CLI to Deno',
      '### Files touched',
      '* cli.ts (edit)',
      '## Decisions',
      '- Keep Node support',
      '## Current state',
      'Half of the commands are ported.',
    ].join('\n');
    const r = summarizeDeterministic({ messages: [], previousSummary: llm, maxChars: 2000 });
    expect(r.sections).toMatchObject({
      userRequests: ['Port the CLI to Deno'],
      filesTouched: ['cli.ts (edit)'],
      decisions: ['Keep Node support'],
      currentState: 'Half of the commands are ported.',
    });
  });

  it('keeps the gist of a free-form previous summary it cannot parse', () => {
    const r = summarizeDeterministic({
      messages: [ask('go on')],
      previousSummary: 'We were porting the CLI.',
      maxChars: 2000,
    });
    expect(r.sections.userRequests).toEqual(['Earlier summary: We were porting the CLI.', 'go on']);
  });
});

describe("summarizeDeterministic: a result out of its harness's wrapping", () => {
  it('reads the files, the failure and the commit of JSON-wrapped and framed shell output as the shell printed them', () => {
    const failing = [
      'tests/test_calc.py F',
      '=================================== FAILURES ===================================',
      '    def test_add():',
      '>       assert add(2, 2) == 4',
      'E       assert 5 == 4',
      '',
      'tests/test_calc.py:4: AssertionError',
      'FAILED tests/test_calc.py::test_add - assert 5 == 4',
      '============================== 1 failed in 0.03s ===============================',
    ].join('\n');
    const codexTest = call('shell', { command: ['bash', '-lc', 'python -m pytest'] });
    const geminiCommit = call('run_shell_command', { command: 'git commit -am "Fix add"' });
    const gemini = [
      'Command: git commit -am "Fix add"',
      'Directory: (root)',
      'Output: [main 1a2b3c4] Fix add',
      ' 1 file changed, 1 insertion(+), 1 deletion(-)',
      'Error: (none)',
      'Exit Code: 0',
    ].join('\n');
    const text = summarizeDeterministic({
      messages: [
        ask('Fix the add test.'),
        say('', codexTest),
        answer(codexTest, JSON.stringify({ output: failing, metadata: { exit_code: 1, duration_seconds: 0.2 } })),
        say('', geminiCommit),
        answer(geminiCommit, gemini),
      ],
      maxChars: 4000,
    }).text;
    // The file the failure names, not a piece of the JSON text around it (`4\n\ntests/test_calc.py`).
    expect(text).toContain('- tests/test_calc.py (seen)');
    expect(text).not.toContain('\\n');
    expect(text).toContain('FAILED tests/test_calc.py::test_add - assert 5 == 4');
    expect(text).toContain('`git commit -am "Fix add"` → ok: [main 1a2b3c4] Fix add');
  });
});

describe('summarizeDeterministic: calls that act elsewhere', () => {
  it('lists a call with no command, file, lookup, plan or search as a line of Commands run with its outcome', () => {
    const pr = call('mcp__github__create_pull_request', { owner: 'u', repo: 'app', title: 'Fix add', head: 'fix' });
    const post = call('mcp__slack__post_message', { channel: '#eng', text: 'PR 42 is up' });
    const grep = call('Grep', { pattern: 'TODO', path: 'src' });
    const plan = call('TodoWrite', { todos: [{ content: 'Open the PR', status: 'completed' }] });
    const collect = call('BashOutput', { bash_id: 'bash_1' });
    const text = summarizeDeterministic({
      messages: [
        ask('Open a PR for the fix and tell #eng.'),
        say('', pr),
        answer(pr, '{"number": 42, "html_url": "https://github.com/u/app/pull/42"}'),
        say('', post),
        answer(post, 'Error: channel_not_found', true),
        say('', grep),
        answer(grep, 'src/a.ts:3: // TODO'),
        say('', plan),
        answer(plan, 'Todos updated'),
        say('', collect),
        answer(collect, '<status>completed</status>'),
        say('PR 42 is open; the Slack channel was not found.'),
      ],
      maxChars: 3000,
    }).text;
    const commands = text.split('## Commands run\n')[1]!.split('\n## ')[0]!.split('\n');
    expect(commands).toEqual([
      '- `mcp__github__create_pull_request(owner=u, repo=app, title=Fix add)` → ok: {"number": 42, "html_url": "https://github.com/u/app/pull/42"}',
      '- `mcp__slack__post_message(channel=#eng, text: 11 chars)` → error: Error: channel_not_found',
    ]);
  });
});

describe('summarizeDeterministic: a change refused as a whole did not happen', () => {
  const files = (messages: ChatMessage[], previousSummary?: string) => {
    const text = summarizeDeterministic({
      messages,
      maxChars: 4000,
      ...(previousSummary ? { previousSummary } : {}),
    }).text;
    return text.split('## Files touched\n')[1]!.split('\n## ')[0]!;
  };

  it('lists an edit whose result is an error as a failed edit, not as a change (and keeps it across summaries)', () => {
    const miss = call('Edit', { file_path: 'src/app.ts', old_string: 'retur x', new_string: 'return x' });
    const fix = call('Edit', { file_path: 'src/app.ts', old_string: 'return x', new_string: 'return y' });
    const range = call('bash', { command: 'open chall.py' });
    const refused = call('bash', { command: 'edit 2:2\ncipher = bytes.fromhex(\nend_of_edit' });
    const messages: ChatMessage[] = [
      ask('Fix app.ts.'),
      say('', miss),
      answer(miss, 'String to replace not found in file.', true),
      say('', fix),
      answer(fix, 'The file src/app.ts has been updated.'),
      say('', range),
      answer(range, '[File: chall.py (15 lines total)]'),
      say('', refused),
      answer(
        refused,
        'Your proposed edit has introduced new syntax error(s). Please read this error message carefully.',
      ),
    ];
    const listed = files(messages);
    expect(listed).toContain('- src/app.ts (edit, failed edit)');
    expect(listed).toContain('- chall.py (read, failed edit)');
    // Read back from an earlier summary, the failed edits stay apart from the changes.
    const again = files([ask('Go on.')], summarizeDeterministic({ messages, maxChars: 4000 }).text);
    expect(again).toContain('- src/app.ts (edit, failed edit)');
    expect(again).toContain('- chall.py (read, failed edit)');
  });

  it('a shell command that failed may have changed its files first: still listed as a change', () => {
    const sed = call('bash', { command: "sed -i 's/a/b/' src/app.ts && npm test" });
    const messages: ChatMessage[] = [ask('Go.'), say('', sed), answer(sed, 'FAIL src/app.test.ts\nexit code: 1')];
    expect(files(messages)).toContain('- src/app.ts (edit)');
  });

  it('a file a failed call says is not there is listed as not found, not as seen (with the files seen)', () => {
    const grep = call('bash', { command: 'grep -n "borderColor" packages/tui/src/editor.ts' });
    const run = call('bash', { command: 'python run.py' });
    const found = call('bash', { command: 'grep -rn borderColor packages/tui/src' });
    const tsc = call('bash', { command: 'npx tsc --noEmit' });
    const messages: ChatMessage[] = [
      ask('Find where borderColor is set.'),
      say('', grep),
      answer(grep, 'grep: packages/tui/src/editor.ts: No such file or directory'),
      say('', run),
      answer(
        run,
        'Traceback (most recent call last):\n  File "run.py", line 3, in <module>\n' +
          "FileNotFoundError: [Errno 2] No such file or directory: 'data/in.csv'",
      ),
      say('', found),
      answer(found, 'packages/tui/src/components/editor.ts:12:  borderColor: string;'),
      // A file that is there, named for what it lacks: seen.
      say('', tsc),
      answer(tsc, "src/app.ts(3,1): error TS2307: Cannot find module './b' or its corresponding type declarations."),
    ];
    // (Was `packages/tui/src/editor.ts (seen)`: a file that is not there read as one seen.)
    expect(files(messages).split('\n')).toEqual([
      '- src/app.ts (seen)',
      '- packages/tui/src/components/editor.ts (seen)',
      '- data/in.csv (not found)',
      '- run.py (seen)',
      '- packages/tui/src/editor.ts (not found)',
    ]);
  });

  it('one shell command that changes one file and fails changed nothing: a failed change, a failed restore', () => {
    const failing = [
      ['git restore src/parse.ts', "error: pathspec 'src/parse.ts' did not match any file(s) known to git"],
      ['cd /repo && git checkout -- src/lex.ts', "error: pathspec 'src/lex.ts' did not match any file(s) known to git"],
      ['rm src/gone.ts', "rm: cannot remove 'src/gone.ts': No such file or directory\nexit code: 1"],
      ['mv src/a.ts src/b.ts', "mv: cannot stat 'src/a.ts': No such file or directory\nexit code: 1"],
      ['sed -i s/a/b/ src/e.ts', "sed: can't read src/e.ts: No such file or directory\nexit code: 1"],
    ] as const;
    const restored = call('bash', { command: 'git restore src/ok.ts' });
    const messages: ChatMessage[] = [ask('Undo the change to the parser.')];
    for (const [command, output] of failing) {
      const c = call('bash', { command });
      messages.push(say('', c), answer(c, output));
    }
    messages.push(say('', restored), answer(restored, ''));
    const listed = files(messages);
    for (const line of [
      '- src/ok.ts (restore)',
      '- src/parse.ts (failed restore)',
      '- /repo/src/lex.ts (failed restore, seen)',
      '- src/gone.ts (failed delete)',
      '- src/a.ts (failed delete)',
      '- src/b.ts (failed write)',
      '- src/e.ts (failed edit)',
    ])
      expect(listed).toContain(line);
  });
});

describe('summarizeDeterministic: an agent that edits in its text (no file tools)', () => {
  it('lists the files its SEARCH/REPLACE blocks change', () => {
    const edit = [
      'Updating the parser.',
      'utils/dates.py',
      '```python',
      '<<<<<<< SEARCH',
      'def parse_date(s):',
      '=======',
      'def parse_date(s, week=False):',
      '>>>>>>> REPLACE',
      '```',
    ].join('\n');
    const text = summarizeDeterministic({
      messages: [ask('Fix the date parser.'), say(edit), ask('Thanks, now the docs.')],
      maxChars: 2000,
    }).text;
    expect(text).toContain('## Files touched\n- utils/dates.py (edit)');
  });
});

describe('filesOfShellCommand', () => {
  it.each([
    ['cat src/a.ts', [['src/a.ts', 'read']]],
    ['head -n 20 src/a.ts', [['src/a.ts', 'read']]],
    ["sed -n '10,20p' lib/x.py", [['lib/x.py', 'read']]],
    ["sed -i 's/a/b/g' lib/x.py", [['lib/x.py', 'edit']]],
    ['vim notes.md', [['notes.md', 'edit']]],
    [
      'echo hi > out.txt && cat out.txt | tee log.txt',
      [
        ['out.txt', 'write'],
        ['out.txt', 'read'],
        ['log.txt', 'write'],
      ],
    ],
    ['cd /repo && cat src/a.ts', [['/repo/src/a.ts', 'read']]],
    ["cat > new.py <<'EOF'\ncat secret.txt\nEOF\npython new.py", [['new.py', 'write']]],
    ['open src/b.py 120', [['src/b.py', 'read']]],
    // PowerShell (Codex CLI on Windows), its parameters and aliases, in any case.
    [
      "Get-Content -LiteralPath 'C:\\Users\\me\\skills\\SKILL.md' -TotalCount 220",
      [['C:\\Users\\me\\skills\\SKILL.md', 'read']],
    ],
    ['Get-Content src\\summary.ts | Select-Object -Skip 860 -First 80', [['src\\summary.ts', 'read']]],
    [
      'get-content README.md -Raw; gc -Path docs\\api.md',
      [
        ['README.md', 'read'],
        ['docs\\api.md', 'read'],
      ],
    ],
    ['Set-Content -Path notes.md -Value "done: 3 files"', [['notes.md', 'write']]],
    ["'x' | Out-File -FilePath out.txt -Encoding utf8", [['out.txt', 'write']]],
    ['Add-Content -Path CHANGELOG.md -Value "- fixed"', [['CHANGELOG.md', 'edit']]],
    ['New-Item -ItemType File -Path src\\new.ts -Force', [['src\\new.ts', 'write']]],
    ['New-Item -ItemType Directory -Path C:\\tmp\\build -Force', []],
    ['New-Item -Path docs\\directory-notes.md', [['docs\\directory-notes.md', 'write']]],
    ['Remove-Item -Recurse -Force dist\\bundle.js', [['dist\\bundle.js', 'delete']]],
    ['Get-ChildItem src -Recurse -Filter *.ts', []],
    // File names in any script.
    ["Get-Content -LiteralPath 'C:\\work\\讲义文本.txt'", [['C:\\work\\讲义文本.txt', 'read']]],
    [
      'cat docs/résumé.md notes/日本語.txt',
      [
        ['docs/résumé.md', 'read'],
        ['notes/日本語.txt', 'read'],
      ],
    ],
    // `-n` takes a value for head and tail only.
    ['cat -n src/a.py', [['src/a.py', 'read']]],
    // Copies and moves: the new paths written, a move's sources deleted, a copy's read; into a directory by the file's
    // name.
    [
      'cp -n config/dark.json ~/.app/themes/test.json',
      [
        ['config/dark.json', 'read'],
        ['~/.app/themes/test.json', 'write'],
      ],
    ],
    [
      'cd /repo && mv changelog.ts shell.ts utils/',
      [
        ['/repo/changelog.ts', 'delete'],
        ['/repo/utils/changelog.ts', 'write'],
        ['/repo/shell.ts', 'delete'],
        ['/repo/utils/shell.ts', 'write'],
      ],
    ],
    [
      'git mv src/a.ts src/b.ts',
      [
        ['src/a.ts', 'delete'],
        ['src/b.ts', 'write'],
      ],
    ],
    [
      'mv notes.md docs',
      [
        ['notes.md', 'delete'],
        ['docs/notes.md', 'write'],
      ],
    ],
    [
      'cp ../x.py .',
      [
        ['../x.py', 'read'],
        ['x.py', 'write'],
      ],
    ],
    [
      "Copy-Item -LiteralPath 'F:\\in\\lab.docx' -Destination 'C:\\work\\lab.docx'",
      [
        ['F:\\in\\lab.docx', 'read'],
        ['C:\\work\\lab.docx', 'write'],
      ],
    ],
    [
      'Move-Item a.txt archive\\',
      [
        ['a.txt', 'delete'],
        ['archive\\a.txt', 'write'],
      ],
    ],
    ['cp -r src/ build/ && mv build dist', []],
    ['ls -la && grep -rn foo src/ && npm test', []],
    ['curl https://example.com/x.json', []],
  ])('%s', (command, expected) => {
    expect(filesOfShellCommand(command).files.map((f) => [f.path, f.action])).toEqual(expected);
  });

  it('follows SWE-agent: `edit N:M` edits the file opened last, and its body is not parsed', () => {
    const first = filesOfShellCommand('open src/models.py');
    const second = filesOfShellCommand('edit 10:12\ncat other.py\nend_of_edit', first.lastOpened);
    expect(second.files).toEqual([{ path: 'src/models.py', action: 'edit' }]);
  });

  it("follows SWE-agent's cursor form: a bare `edit` edits the file opened last, its body not parsed", () => {
    const first = filesOfShellCommand('create reproduce.py');
    const second = filesOfShellCommand('edit\ncat other.py > out.txt\nend_of_edit', first.lastOpened);
    expect(second.files).toEqual([{ path: 'reproduce.py', action: 'edit' }]);
    // `edit` with an operand is another program's edit of a file it names.
    expect(filesOfShellCommand('edit notes.txt', 'reproduce.py').files).toEqual([
      { path: 'notes.txt', action: 'edit' },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties

const toolCallArb = fc.oneof(
  fc.constantFrom('a.ts', 'src/b.py', '/abs/c.md').map((path) => ({ name: 'read', args: { path } })),
  fc.constantFrom('a.ts', 'src/b.py').map((file_path) => ({ name: 'Edit', args: { file_path } })),
  fc
    .constantFrom('npm test', 'cat a.ts', 'python x.py', "sed -n '1,5p' src/b.py")
    .map((command) => ({ name: 'bash', args: { command } })),
);
const resultArb = fc.constantFrom(
  'ok',
  'Error: boom',
  'Traceback (most recent call last):\nValueError',
  'done\nCommand exited with code 2',
);
const stepArb = fc.oneof(
  fc.lorem({ maxCount: 30 }).map((t) => [ask(t)]),
  fc.lorem({ maxCount: 30 }).map((t) => [say(`${t}. We decided to keep the cache instead of the index.`)]),
  fc
    .tuple(fc.array(fc.tuple(toolCallArb, resultArb), { minLength: 1, maxLength: 3 }), fc.lorem({ maxCount: 5 }))
    .map(([pairs, text]) => {
      const calls = pairs.map(([c]) => call(c.name, c.args));
      return [say(text, ...calls), ...calls.map((c, i) => answer(c, pairs[i][1]))];
    }),
);
const sessionArb = fc.array(stepArb, { maxLength: 25 }).map((steps) => steps.flat());

describe('summarizeDeterministic properties', () => {
  it('is deterministic and stays within maxChars', () => {
    fc.assert(
      fc.property(sessionArb, fc.integer({ min: SUMMARY_TITLE.length, max: 6000 }), (messages, maxChars) => {
        const a = summarizeDeterministic({ messages, maxChars });
        const b = summarizeDeterministic({ messages: messages.map((m) => ({ ...m })), maxChars });
        expect(b.text).toBe(a.text);
        expect(a.text.length).toBeLessThanOrEqual(maxChars);
        expect(a.notSmaller).toBe(a.text.length >= a.inputChars);
      }),
      { numRuns: 200 },
    );
  });

  it('parsing its own text back gives the same sections (merge with nothing new is the identity)', () => {
    fc.assert(
      fc.property(sessionArb, (messages) => {
        const a = summarizeDeterministic({ messages, maxChars: 100_000 });
        const again = summarizeDeterministic({ messages: [], previousSummary: a.text, maxChars: 100_000 });
        expect(again.sections).toEqual(a.sections);
        expect(again.text).toBe(a.text);
      }),
      { numRuns: 200 },
    );
  });

  it('chained summaries stay bounded and keep the newest request', () => {
    fc.assert(
      fc.property(fc.array(sessionArb, { minLength: 2, maxLength: 4 }), (spans) => {
        let previous: string | undefined;
        for (const messages of spans) {
          const r = summarizeDeterministic({ messages, previousSummary: previous, maxChars: 3000 });
          expect(r.text.length).toBeLessThanOrEqual(3000);
          const lastAsk = [...messages].reverse().find((m) => m.role === 'user' && m.content.trim() !== '');
          // lorem asks are short, so the newest one is kept whole.
          if (lastAsk) expect(r.sections.userRequests.at(-1)).toBe(lastAsk.content.replace(/\s+/g, ' ').trim());
          previous = r.text;
        }
      }),
      { numRuns: 100 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Real sessions: pi's own compactions as the reference

interface Session {
  id: string;
  messages: ChatMessage[];
  meta?: { compactions?: { atMessageIndex: number; firstKeptMessageIndex: number; summary: string }[] };
}
const sessions = sharedSessions() as Session[];

/** Source-file names mentioned in a text (basenames, so absolute and relative mentions match). */
const fileNames = (text: string): Set<string> =>
  new Set([...text.matchAll(/[\w./@-]+\.(?:ts|tsx|js|md|json)\b/g)].map((m) => m[0].split('/').pop() ?? m[0]));
const overlap = (reference: string, ours: string) => {
  const ref = fileNames(reference);
  const got = fileNames(ours);
  return { hit: [...ref].filter((f) => got.has(f)).length, of: ref.size };
};

describe('real sessions', () => {
  const pi = sessions.find((s) => (s.meta?.compactions?.length ?? 0) > 0);
  if (!pi) throw new Error('the pi session with compactions is missing from shared/data');
  const [c0, c1] = pi.meta?.compactions ?? [];

  it("summarizes pi's first compacted span: mentions pi's files, ≥20× smaller, deterministic", () => {
    const messages = pi.messages.slice(0, c0.firstKeptMessageIndex);
    const r = summarizeDeterministic({ messages });
    expect(summarizeDeterministic({ messages }).text).toBe(r.text);
    expect(r.notSmaller).toBe(false);
    expect(r.text.length).toBeLessThanOrEqual(DEFAULT_MAX_SUMMARY_CHARS);
    expect(r.text.length * 20).toBeLessThan(r.inputChars);
    // Measured: 9 of the 11 file names of pi's summary appear in ours, 8 of 11 in "Files touched" alone; the
    // 3 missing there (main-new.ts, cli-new.ts, interactive-mode.ts) are files pi lists as next steps, not yet touched.
    expect(overlap(c0.summary, r.text)).toEqual({ hit: 9, of: 11 });
    expect(overlap(c0.summary, r.sections.filesTouched.join('\n'))).toEqual({ hit: 8, of: 11 });
  });

  it("summarizes pi's second span iteratively (previous summary + new messages) and mentions pi's files", () => {
    const first = summarizeDeterministic({ messages: pi.messages.slice(0, c0.firstKeptMessageIndex) });
    const messages = pi.messages.slice(c0.firstKeptMessageIndex, c1.firstKeptMessageIndex);
    const r = summarizeDeterministic({ messages, previousSummary: first.text });
    expect(summarizeDeterministic({ messages, previousSummary: first.text }).text).toBe(r.text);
    expect(r.notSmaller).toBe(false);
    expect(r.text.length * 20).toBeLessThan(r.inputChars);
    // Measured: 25 of 25 overall (the current-state text quotes the agreed file layout), 13 of 25 in "Files
    // touched"; the 12 missing there are files of that layout still to be moved, never touched by a tool yet.
    expect(overlap(c1.summary, r.text)).toEqual({ hit: 25, of: 25 });
    // 19 since the files seen in listings and search results are listed too (13 before); 21 since a listing line
    // with directories (`ls -F`: `src/`, `LICENSE`) gives its file names too and room the other sections leave goes
    // to the files left out; 20 since a failed run's error line is its compiler's line rather than its exit status
    // (longer, so one file less fits); still 20 with the commits made kept first in Commands run (19 until their
    // lines stopped saying the message twice); 19 since copies are read (`cp main.ts main-new.ts` writes
    // main-new.ts: the longer lines leave fuzzy.ts, seen in a listing, out); 18 since the findings the agent states are
    // kept beside its decisions (they take room a file only seen in a listing had); 19 since hopes and next steps
    // (`This should fix …`) are no decisions (the room they took holds a file again); 16 since a changed file's line
    // names what its changes wrote (`(edit×4, read×3; changed getColorMode, …)`: longer lines, three files fewer). The
    // 9 missing are left out by the budget (files listed last: only seen in listings).
    expect(overlap(c1.summary, r.sections.filesTouched.join('\n'))).toEqual({ hit: 16, of: 25 });
  });

  it('every session: the older 70% summarizes smaller than itself, deterministically, within its budget', () => {
    for (const s of sessions) {
      const messages = s.messages.slice(0, Math.max(1, Math.floor(s.messages.length * 0.7)));
      const r = summarizeDeterministic({ messages });
      expect(summarizeDeterministic({ messages }).text).toBe(r.text);
      if (r.inputChars >= 2000) {
        expect(r.notSmaller).toBe(false);
        expect(r.text.length).toBeLessThanOrEqual(r.maxChars);
      }
    }
  });
});
