import fc from 'fast-check';
import type { ChatMessage, ToolCall } from '../model/message';
import { missingItems } from '../stages/summary-facts';
import { answer, newCall, say } from '../testing/fixtures';
import {
  backgroundLine,
  compactBackgroundLine,
  isBackgroundLine,
  launchHandles,
  launchLines,
  launchOfLine,
  openLaunchesOf,
  sharedLabelStart,
} from './background';
import { callOfStepLine, callOutcome, describeCall } from './call-outcome';
import { summarizeDeterministic } from './deterministic-summarizer';
import { toolActivity } from './tool-activity';

const handlesOf = (call: ToolCall, content: string) => launchHandles(toolActivity(call, {}), answer(call, content));
const pending = (messages: ChatMessage[], previousSummary?: string, maxChars = 4000) =>
  summarizeDeterministic({ messages, maxChars, ...(previousSummary ? { previousSummary } : {}) });
const backgroundLines = (lines: readonly string[]) => lines.filter(isBackgroundLine);

// Claude Code: `Task` with run_in_background, as in the shared Thai curry session.
const task = (description: string) =>
  newCall('Task', {
    description,
    prompt: `Write a poem: ${description}. Search the web first.`,
    subagent_type: 'general-purpose',
    run_in_background: true,
  });
const launched = (id: string) =>
  [
    'Async agent launched successfully.',
    `agentId: ${id} (internal ID - do not mention to user. Use to resume later if needed.)`,
    `output_file: /private/tmp/claude/-Users-pete-tmp-claude-code-sessions/tasks/${id}.output`,
    'The agent is working in the background. You will be notified when it completes—no need to check.',
  ].join('\n');

describe('launchHandles: the ids of work a call left running', () => {
  it("reads Claude Code's agentId and output file, a shell job line, Codex's session, Gemini CLI's PIDs", () => {
    expect(handlesOf(task('Poem about Thai green curry'), launched('a9cad17'))).toEqual([
      { kind: 'agentId', value: 'a9cad17' },
      { kind: 'output', value: '/private/tmp/claude/-Users-pete-tmp-claude-code-sessions/tasks/a9cad17.output' },
    ]);
    expect(
      handlesOf(
        newCall('Bash', { command: 'npm run dev', run_in_background: true }),
        'Command running in background with ID: bash_1',
      ),
    ).toEqual([{ kind: 'id', value: 'bash_1' }]);
    expect(handlesOf(newCall('bash', { command: 'python -m http.server 8000 &' }), '[1] 4242')).toEqual([
      { kind: 'job', value: '%1' },
      { kind: 'PID', value: '4242' },
    ]);
    expect(
      handlesOf(
        newCall('exec_command', { cmd: 'npm run dev', yield_time_ms: 1000 }),
        'Chunk ID: 1f2a\nWall time: 1.0 seconds\nProcess running with session ID 7\nOutput:\nready on :3000',
      ),
      // (Not its `Chunk ID`: a piece of output, which no call collects.)
    ).toEqual([{ kind: 'session_id', value: '7' }]);
    expect(
      handlesOf(
        newCall('run_shell_command', { command: 'npm start', is_background: true }),
        'Command: npm start\nDirectory: (root)\nOutput: (empty)\nBackground PIDs: 4242, 4250\nProcess Group PGID: 4240',
      ),
    ).toEqual([
      { kind: 'PID', value: '4242' },
      { kind: 'PID', value: '4250' },
    ]);
  });

  it("takes a backgrounded command's log from its redirection, and the PID it echoes", () => {
    // Codex: an argv command; the shell prints nothing for `&` in a script.
    const codex = newCall('shell', { command: ['bash', '-lc', 'nohup python train.py > logs/train.log 2>&1 &'] });
    expect(handlesOf(codex, 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\n')).toEqual([
      { kind: 'output', value: 'logs/train.log' },
    ]);
    // Its JSON form: the job line inside the output.
    const dev = newCall('shell', { command: ['bash', '-lc', 'nohup npm run dev > /tmp/dev.log 2>&1 &'] });
    const json = JSON.stringify({ output: '[1] 48213\n', metadata: { exit_code: 0, duration_seconds: 0 } });
    expect(handlesOf(dev, json)).toEqual([
      { kind: 'job', value: '%1' },
      { kind: 'PID', value: '48213' },
      { kind: 'output', value: '/tmp/dev.log' },
    ]);
    const echoed = newCall('bash', { command: 'setsid ./server > server.log 2>&1 & echo $!' });
    expect(handlesOf(echoed, '31337')).toEqual([
      { kind: 'PID', value: '31337' },
      { kind: 'output', value: 'server.log' },
    ]);
  });

  it('is nothing for work that finished, a failed launch, or ids in a foreground output', () => {
    expect(handlesOf(newCall('bash', { command: 'ps aux | grep node' }), 'pete  4242  node server.js')).toBeUndefined();
    expect(handlesOf(newCall('bash', { command: 'make && ./run 2>&1' }), 'pid: 4242\ndone')).toBeUndefined();
    expect(handlesOf(newCall('bash', { command: 'echo "a & b" > x.txt' }), 'session id: 1234')).toBeUndefined();
    expect(
      handlesOf(newCall('bash', { command: "cat > a.sh <<'EOF'\nsleep 1 &\nEOF" }), 'job id: 77\n'),
    ).toBeUndefined();
    const failed = task('Poem');
    expect(launchHandles(toolActivity(failed, {}), answer(failed, launched('a1b2c3d'), true))).toBeUndefined();
    // A command that backgrounded nothing (its flag says so): the processes it left are a script's children.
    const stray =
      'Output: ok\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: 1793795\nProcess Group PGID: (none)';
    expect(
      handlesOf(newCall('run_shell_command', { command: 'python3 test_jail.py', is_background: false }), stray),
    ).toBeUndefined();
    expect(handlesOf(newCall('run_shell_command', { command: 'python3 test_jail.py' }), stray)).toBeUndefined();
    // One that did (`&`): they are its launch.
    expect(handlesOf(newCall('run_shell_command', { command: 'python3 -m http.server &' }), stray)).toEqual([
      { kind: 'PID', value: '1793795' },
    ]);
    // Gemini CLI reports "(none)" when a command left nothing running; its process group is not a handle.
    expect(
      handlesOf(
        newCall('run_shell_command', { command: 'ls' }),
        'Output: a.ts\nBackground PIDs: (none)\nProcess Group PGID: 4240',
      ),
    ).toBeUndefined();
  });
});

describe('launchHandles: the cheap first test passes over no report of work going on', () => {
  it('finds the id after every wording of a call that did not ask for a background run, in any case', () => {
    // A plain call (no flag, no `&`): only its result's words can tell that the work goes on.
    const plain = newCall('run', { what: 'server' });
    const wordings = [
      'Started in the background',
      'Moved into the background',
      'Spawned in background',
      'Background job queued',
      'Background PIDs: 4242',
      'Asynchronous task started',
      'Async command launched',
      'The process is still running',
      'Agent running',
      'Still running',
    ];
    for (const wording of wordings)
      for (const text of [wording, wording.toUpperCase(), wording.toLowerCase()])
        expect(handlesOf(plain, `log line\n${text}.\njob id: 4242`)).toContainEqual(
          expect.objectContaining({ value: '4242' }),
        );
    // Our own wording of a step line read back (`ok: background …`) is a launch whatever the call.
    expect(handlesOf(plain, 'background agentId a9cad17, output …/a9cad17.output')).toEqual([
      { kind: 'agentId', value: 'a9cad17' },
      { kind: 'output', value: '…/a9cad17.output' },
    ]);
    expect(handlesOf(plain, 'Server ready.\njob id: 4242')).toBeUndefined();
  });
});

describe("a call's line keeps the handles of what it launched", () => {
  it('step lines and command outcomes name the id and the output, and read back as a launch', () => {
    const c = task('Poem about Thai green curry');
    const activity = toolActivity(c, {});
    const line = describeCall(c, activity, callOutcome(activity, answer(c, launched('a9cad17'))));
    expect(line).toMatch(/ → ok: background agentId a9cad17, output …\/a9cad17\.output$/);
    const back = callOfStepLine(`- ${line}`, 'step-1');
    expect(back?.result && launchHandles(toolActivity(back.call, {}), back.result)).toEqual([
      { kind: 'agentId', value: 'a9cad17' },
      { kind: 'output', value: '…/a9cad17.output' },
    ]);

    const sh = newCall('bash', { command: 'npm run dev > dev.log 2>&1 &' });
    const summary = pending([say('Starting the server.', sh), answer(sh, '[1] 4242')]);
    expect(summary.sections.commandsRun).toEqual([
      '`npm run dev > dev.log 2>&1 &` → ok: background job %1, PID 4242, output dev.log',
    ]);
  });
});

describe('a working state lists what is still running under pending work, until a call collects it', () => {
  it('stacked notes: a launch an older note carries is closed by the completion notice a later note kept', () => {
    const older = [
      '# Summary of the earlier conversation',
      '## Pending work',
      '- Background: Task → agentId a9cad17 (not collected)',
      '- Background: Task → agentId ac27727 (not collected)',
    ].join('\n');
    // The later note's span held the notice, but not the launch: it could not close it itself.
    const later = [
      '# Summary of the earlier conversation',
      '## User requests',
      '- <task-notification> <task-id>ac27727</task-id> <status>completed<…',
      '## Current state',
      'The red curry poem is ready.',
    ].join('\n');
    const lines = backgroundLines(
      pending([{ role: 'user', content: 'go on' }], `${older}\n\n${later}`).sections.pendingWork,
    );
    expect(lines).toEqual(['Background: Task → agentId a9cad17 (not collected)']);
    // Order matters: a notice before the launch's line (an older note) closes nothing.
    const reversed = backgroundLines(
      pending([{ role: 'user', content: 'go on' }], `${later}\n\n${older}`).sections.pendingWork,
    );
    expect(reversed).toHaveLength(2);
  });

  it('Claude Code: Task launches, one collected by TaskOutput, one by its completion notice', () => {
    const [green, yellow, red] = [task('Thai green curry poem'), task('Thai yellow curry poem'), task('Thai red')];
    const collect = newCall('TaskOutput', { task_id: 'ac27727', block: false });
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Spawn sub-agents to write three curry poems in the background.' },
      say('Spawning three agents.', green, yellow, red),
      answer(green, launched('a9cad17')),
      answer(yellow, launched('aa5ef13')),
      answer(red, launched('ac27727')),
      {
        role: 'user',
        content: '<task-notification>\n<task-id>aa5ef13</task-id>\n<status>completed</status>\n</task-notification>',
      },
      say('Checking the red one.', collect),
      answer(collect, 'Poem: crimson river…'),
    ];
    const lines = backgroundLines(pending(messages).sections.pendingWork);
    expect(lines).toEqual([
      'Background: Task "Thai green curry poem" → agentId a9cad17, output …/a9cad17.output (not collected)',
    ]);
  });

  it('Claude Code: a background Bash collected by BashOutput {bash_id}', () => {
    const dev = newCall('Bash', { command: 'npm run dev', run_in_background: true });
    const poll = newCall('BashOutput', { bash_id: 'bash_1' });
    const started = [say('Start it.', dev), answer(dev, 'Command running in background with ID: bash_1')];
    expect(backgroundLines(pending(started).sections.pendingWork)).toEqual([
      'Background: Bash `npm run dev` → id bash_1 (not collected)',
    ]);
    const polled = [...started, say('Its output?', poll), answer(poll, '<status>running</status>')];
    expect(backgroundLines(pending(polled).sections.pendingWork)).toEqual([]);
  });

  it('a shell launch is collected by a pkill or killall of its name, not of another', () => {
    const sh = newCall('bash', { command: 'nohup python train.py > logs/train.log 2>&1 & echo $!' });
    const started = [say('Train in the background.', sh), answer(sh, '4242')];
    expect(backgroundLines(pending(started).sections.pendingWork)).toHaveLength(1);
    for (const command of ['pkill -f "python train.py"', "pkill -9 -f 'train.py'", 'sleep 1; killall train.py']) {
      const stop = newCall('bash', { command });
      expect(
        backgroundLines(pending([...started, say('Stop it.', stop), answer(stop, '')]).sections.pendingWork),
      ).toEqual([]);
    }
    for (const command of ['pkill -f "node server.js"', 'killall vite', 'pkill -f py']) {
      const other = newCall('bash', { command });
      expect(
        backgroundLines(pending([...started, say('Stop the other.', other), answer(other, '')]).sections.pendingWork),
      ).toHaveLength(1);
    }
  });

  it('a shell job: `[1] 4242` until `kill 4242`, `kill %1` or a bare `wait`', () => {
    const sh = newCall('bash', { command: 'python -m http.server 8000 &' });
    const started = [say('Serve the docs.', sh), answer(sh, '[1] 4242')];
    expect(backgroundLines(pending(started).sections.pendingWork)).toEqual([
      'Background: bash `python -m http.server 8000 &` → job %1, PID 4242 (not collected)',
    ]);
    for (const command of ['kill 4242', 'kill %1', 'sleep 2; wait']) {
      const stop = newCall('bash', { command });
      const stopped = [...started, say('Done with it.', stop), answer(stop, '')];
      expect(backgroundLines(pending(stopped).sections.pendingWork)).toEqual([]);
    }
    // Arguments whose encoder wrote `&` as `\u0026` (the raw text has no `&`): the same launch.
    const escaped = { ...sh, arguments: sh.arguments.replace('&', '\\u0026') };
    expect(escaped.arguments).not.toContain('&');
    expect(
      backgroundLines(pending([say('Serve the docs.', escaped), answer(escaped, '[1] 4242')]).sections.pendingWork),
    ).toEqual(['Background: bash `python -m http.server 8000 &` → job %1, PID 4242 (not collected)']);
    // Another number, or `wait` as a word of something else, collects nothing.
    for (const command of ['kill 14242', 'echo wait for it', 'sed -n 1,4242p a.txt | head']) {
      const other = newCall('bash', { command });
      const still = [...started, say('Something else.', other), answer(other, '')];
      expect(backgroundLines(pending(still).sections.pendingWork)).toHaveLength(1);
    }
  });

  it('Codex: an argv command backgrounded into a log, collected by reading the log', () => {
    const train = newCall('shell', { command: ['bash', '-lc', 'nohup python train.py > logs/train.log 2>&1 &'] });
    const started = [say('Training in the background.', train), answer(train, 'Exit code: 0\nOutput:\n')];
    expect(backgroundLines(pending(started).sections.pendingWork)).toEqual([
      'Background: shell `nohup python train.py > logs/train.log 2>&1 &` → output logs/train.log (not collected)',
    ]);
    const read = newCall('shell', { command: ['bash', '-lc', 'tail -n 20 logs/train.log'] });
    const collected = [...started, say('How far is it?', read), answer(read, 'epoch 3/10')];
    expect(backgroundLines(pending(collected).sections.pendingWork)).toEqual([]);
    // Codex's exec_command: a short session id is collected only as an argument's value.
    const exec = newCall('exec_command', { cmd: 'npm run dev' });
    const running = [say('Dev server.', exec), answer(exec, 'Process running with session ID 7\nOutput:\nready')];
    const poke = newCall('write_stdin', { session_id: 7, chars: '' });
    const unrelated = newCall('shell', { command: ['bash', '-lc', 'head -n 7 a.txt'] });
    expect(openLaunchesOf([...running, say('', unrelated), answer(unrelated, 'x')]).launched).toHaveLength(1);
    expect(openLaunchesOf([...running, say('', poke), answer(poke, 'ready')]).launched).toEqual([]);
  });

  it('carries a launch into later summaries until a call collects it, other pending work superseded', () => {
    const t = task('Thai green curry poem');
    const first = pending([
      { role: 'user', content: 'Write the poem in the background; also - [ ] tidy the README' },
      say('Launched.', t),
      answer(t, launched('a9cad17')),
    ]);
    const line = backgroundLines(first.sections.pendingWork)[0]!;
    expect(line).toContain('agentId a9cad17');
    const later: ChatMessage[] = [
      { role: 'user', content: 'Meanwhile, what is 2 + 2?' },
      { role: 'assistant', content: 'It is 4.' },
    ];
    const second = pending(later, first.text);
    expect(second.sections.pendingWork).toContain(line);
    expect(second.sections.pendingWork.some((l) => l.includes('README'))).toBe(false);
    const third = pending(later, second.text);
    expect(third.sections.pendingWork).toContain(line);
    const collect = newCall('TaskOutput', { task_id: 'a9cad17' });
    const done = pending([say('Collecting the poem.', collect), answer(collect, 'Emerald swirls…')], third.text);
    expect(backgroundLines(done.sections.pendingWork)).toEqual([]);
  });

  it('keeps the ids when the note is tight: other sections give room, the lines are cut short first', () => {
    const launches = ['a9cad17', 'aa5ef13', 'ac27727'].map((id) => ({ id, call: task(`Poem number ${id}`) }));
    const noise: ChatMessage[] = [];
    for (let k = 0; k < 20; k++) {
      const c = newCall('bash', { command: `grep -rn symbol_${k} src/module_${k}.py` });
      noise.push(say(`We decided to look at module ${k} next because of the fixture.`, c), answer(c, `hit ${k}`));
    }
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Launch three poem agents in the background and meanwhile clean up the modules.' },
      say('Launching.', ...launches.map((l) => l.call)),
      ...launches.map((l) => answer(l.call, launched(l.id))),
      ...noise,
    ];
    const tight = pending(messages, undefined, 700);
    expect(tight.text.length).toBeLessThanOrEqual(700);
    for (const { id } of launches) expect(tight.text).toContain(`agentId ${id}`);
    expect(backgroundLines(tight.sections.pendingWork).some((l) => l === compactBackgroundLine(l))).toBe(true);
  });

  it('keeps every launch of a small note (not only the newest three), so the next note still names them', () => {
    // Claude Code's five poem agents, launched at once, in a note of a few hundred characters.
    const ids = ['a5bdbc1', 'a9cad17', 'aa5ef13', 'ac27727', 'afbbf75'];
    const calls = ids.map((id) => task(`Poem about Thai curry ${id}`));
    const messages: ChatMessage[] = [
      {
        role: 'user',
        content: `Spawn five sub-agents to write poems in the background. ${'Search the web. '.repeat(12)}`,
      },
      say('Launching.', ...calls),
      ...calls.map((c, k) => answer(c, launched(ids[k]!))),
      say(`All five are running. ${'Here is a sushi poem while we wait. '.repeat(6)}`),
    ];
    for (const maxChars of [900, 520, 400]) {
      const small = pending(messages, undefined, maxChars);
      expect(small.text.length).toBeLessThanOrEqual(maxChars);
      for (const id of ids) expect(small.text).toContain(`agentId ${id}`);
      // The conversation moves on: a larger note absorbs the small one, and still lists each launch.
      const later = pending(
        [
          { role: 'user', content: 'Meanwhile, what is 2 + 2?' },
          { role: 'assistant', content: 'It is 4.' },
        ],
        small.text,
      );
      for (const id of ids) expect(backgroundLines(later.sections.pendingWork).join('\n')).toContain(`agentId ${id}`);
    }
    // At 400 the request gave room too, cut (marked) rather than left out.
    expect(pending(messages, undefined, 400).sections.userRequests).toEqual([
      expect.stringMatching(/^Spawn five sub-agents to write poems in the background\..*…$/),
    ]);
  });

  it('cut short, launches keep what tells them apart: the opening words they share go first', () => {
    const curries = ['green', 'yellow', 'red'];
    const labels = curries.map((c) => `Task "Poem about Thai ${c} curry"`);
    expect(sharedLabelStart(labels)).toBe('Task "Poem about Thai ');
    expect(sharedLabelStart([labels[0]!])).toBe('');
    expect(sharedLabelStart(['Task "Fix the store"', 'Task "Add a test"'])).toBe('Task ');
    const line = backgroundLine({ label: labels[1]!, handles: [{ kind: 'agentId', value: 'aa5ef13' }] });
    expect(compactBackgroundLine(line, 32, sharedLabelStart(labels))).toBe(
      'Background: Task "…yellow curry" → agentId aa5ef13 (not collected)',
    );
    expect(compactBackgroundLine(line, 32)).toBe(
      'Background: Task "Poem about Thai yellow cu… → agentId aa5ef13 (not collected)',
    );
    // A short shared start (`Task "`) is not worth an ellipsis.
    expect(compactBackgroundLine(line, 32, 'Task "')).toBe(compactBackgroundLine(line, 32));

    // In a tight note: each launch's line names its curry.
    const calls = curries.map((c) => task(`Poem about Thai ${c} curry`));
    const ids = ['a9cad17', 'aa5ef13', 'ac27727'];
    const messages: ChatMessage[] = [
      { role: 'user', content: `Spawn sub-agents to write curry poems. ${'Each searches the web. '.repeat(12)}` },
      say('Launching.', ...calls),
      ...calls.map((c, k) => answer(c, launched(ids[k]!))),
      say(`All three are running. ${'Here is a sushi poem while we wait. '.repeat(10)}`),
    ];
    const note = pending(messages, undefined, 700);
    const tight = backgroundLines(note.sections.pendingWork);
    expect(tight).toHaveLength(3);
    // The room came from the current state, cut to 100 characters, not under.
    expect(note.sections.currentState).toHaveLength(100);
    curries.forEach((c, k) => expect(tight[k]).toMatch(new RegExp(`"…${c} curry" → agentId ${ids[k]}`)));
  });

  it('cuts a launch line kept whole to its compact form when that makes room for another', () => {
    const launches = ['a9cad17', 'aa5ef13', 'ac27727'].map((id) => ({ id, call: task(`Poem about Thai curry ${id}`) }));
    const messages: ChatMessage[] = [
      {
        role: 'user',
        content: `Spawn sub-agents to write poems in the background. ${'Each searches the web. '.repeat(12)}`,
      },
      say('Launching.', ...launches.map((l) => l.call)),
      ...launches.map((l) => answer(l.call, launched(l.id))),
      say(`All three are running. ${'Here is a sushi poem while we wait. '.repeat(10)}`),
    ];
    const tight = pending(messages, undefined, 520);
    for (const { id } of launches) expect(tight.text).toContain(`agentId ${id}`);
    expect(backgroundLines(tight.sections.pendingWork).every((l) => l === compactBackgroundLine(l))).toBe(true);
  });
});

describe('launch lines', () => {
  it('read back as the launch they state, cut to fit a pending line with the handles whole', () => {
    const launch = {
      label: `bash \`${'x'.repeat(300)}\``,
      handles: [
        { kind: 'PID', value: '4242' },
        { kind: 'output', value: `/var/tmp/${'deep/'.repeat(20)}run.log` },
      ],
    };
    const line = backgroundLine(launch);
    expect(line.length).toBeLessThanOrEqual(200);
    expect(launchOfLine(line)?.handles).toEqual([
      { kind: 'PID', value: '4242' },
      { kind: 'output', value: '…/run.log' },
    ]);
    expect(launchOfLine('Background music is playing (not collected)')).toBeUndefined();
    expect(compactBackgroundLine(line)).toBe('Background: bash `xxxxxxxxxxxxxxxxxxxxxxxxx… → PID 4242 (not collected)');
  });

  it('a model summary must carry their ids, however it words the rest', () => {
    const state = `## Pending work\n- ${backgroundLine({ label: 'Task "poem"', handles: [{ kind: 'agentId', value: 'a9cad17' }] })}`;
    expect(missingItems('A poem agent still runs in the background, not collected.', state)).toBe(state);
    expect(missingItems('Sub-agent a9cad17 (the poem) is still running.', state)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties

const idArb = fc.stringMatching(/^[a-f0-9]{7}$/);
const fillerArb = fc.array(
  fc.oneof(
    fc.lorem({ maxCount: 12 }).map((t): ChatMessage[] => [{ role: 'user', content: t }]),
    fc
      .tuple(fc.constantFrom('npm test', 'cat src/a.ts', 'ls -la', 'python x.py'), fc.constantFrom('ok', 'Error: boom'))
      .map(([command, out]): ChatMessage[] => {
        const c = newCall('bash', { command });
        return [say('Next step.', c), answer(c, out)];
      }),
  ),
  { maxLength: 12 },
);

describe('launch properties', () => {
  it('every id of a launched, not collected result is in the note; a collected one is not pending', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(idArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        fillerArb,
        fillerArb,
        fc.integer({ min: 1200, max: 6000 }),
        (ids, collected, before, after, maxChars) => {
          const calls = ids.map((id) => task(`Poem ${id}`));
          const collects = ids.flatMap((id, k) => {
            if (!collected[k]) return [];
            const c = newCall('TaskOutput', { task_id: id, block: true });
            return [say('Collect.', c), answer(c, 'a poem')];
          });
          const messages: ChatMessage[] = [
            ...before.flat(),
            say('Launching.', ...calls),
            ...calls.map((c, k) => answer(c, launched(ids[k]!))),
            ...after.flat(),
            ...collects,
          ];
          const summary = pending(messages, undefined, maxChars);
          expect(summary.text.length).toBeLessThanOrEqual(maxChars);
          const lines = backgroundLines(summary.sections.pendingWork);
          ids.forEach((id, k) => {
            if (collected[k]) expect(lines.some((l) => l.includes(id))).toBe(false);
            else expect(lines.some((l) => l.includes(`agentId ${id}`))).toBe(true);
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('launches squeezed into a small note are all carried through the later notes of a chain', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(idArb, { minLength: 1, maxLength: 6 }),
        // Room for six compact launch lines beside the two requests, the first file and four errors kept whole.
        fc.integer({ min: 900, max: 1400 }),
        fc.array(fc.tuple(fillerArb, fc.integer({ min: 900, max: 4000 })), { minLength: 1, maxLength: 3 }),
        (ids, small, spans) => {
          const calls = ids.map((id) => task(`Poem ${id}`));
          const launches: ChatMessage[] = [
            say('Launching.', ...calls),
            ...calls.map((c, k) => answer(c, launched(ids[k]!))),
          ];
          const notes = [pending(launches, undefined, small)];
          for (const [span, maxChars] of spans) notes.push(pending(span.flat(), notes.at(-1)!.text, maxChars));
          for (const note of notes) {
            expect(note.text.length).toBeLessThanOrEqual(note.maxChars);
            const lines = backgroundLines(note.sections.pendingWork).join('\n');
            for (const id of ids) expect(lines).toContain(`agentId ${id}`);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a launch is carried through a chain of summaries until it is collected', () => {
    fc.assert(
      fc.property(idArb, fc.array(fillerArb, { minLength: 1, maxLength: 4 }), (id, spans) => {
        const t = task('Poem');
        let previous = pending([say('Launch.', t), answer(t, launched(id))]).text;
        for (const span of spans) {
          const next = pending(span.flat(), previous, 1500);
          expect(backgroundLines(next.sections.pendingWork).join('\n')).toContain(`agentId ${id}`);
          previous = next.text;
        }
        const c = newCall('TaskOutput', { task_id: id });
        const done = pending([say('Collect.', c), answer(c, 'a poem')], previous, 1500);
        expect(backgroundLines(done.sections.pendingWork)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});

describe('launchLines: a cut launch result keeps what names the launch', () => {
  // The harnesses' launch reports (as above), each with the call that made it.
  const reports: [ToolCall, string][] = [
    [task('Poem about Thai green curry'), launched('a9cad17')],
    [
      newCall('Bash', { command: 'npm run dev', run_in_background: true }),
      'Command running in background with ID: bash_1',
    ],
    [newCall('bash', { command: 'python -m http.server 8000 &' }), '[1] 4242'],
    [
      newCall('exec_command', { cmd: 'npm run dev', yield_time_ms: 1000 }),
      'Chunk ID: 1f2a\nWall time: 1.0 seconds\nProcess running with session ID 7\nOutput:\nready on :3000',
    ],
    [
      newCall('run_shell_command', { command: 'npm start', is_background: true }),
      'Command: npm start\nOutput: (empty)\nBackground PIDs: 4242, 4250\nProcess Group PGID: 4240',
    ],
  ];
  const lineArb = fc.oneof(fc.lorem({ maxCount: 8 }), fc.constantFrom('', 'Wall time: 2.5 seconds', 'done in 17 ms'));

  it('any head cut of any report among any lines, followed by the lines it returns, names every handle again', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...reports),
        fc.array(lineArb, { maxLength: 6 }),
        fc.array(lineArb, { maxLength: 20 }),
        fc.nat(),
        ([call, report], before, after, at) => {
          const content = [...before, report, ...after].join('\n');
          const activity = toolActivity(call, {});
          const handles = launchHandles(activity, answer(call, content))!;
          // Reports are short: a cut that keeps more than a launch report's reading window is a different case.
          const cut = content.slice(0, at % Math.min(content.length + 1, 2500));
          const lines = launchLines(activity, answer(call, content), cut)!;
          const kept = `${cut}\n[... cut]\n${lines.join('\n')}`;
          const again = launchHandles(activity, answer(call, kept)) ?? [];
          for (const h of handles) expect(again).toContainEqual(h);
          // Only what the cut lost comes back.
          if (cut === content) expect(lines).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a result that launched nothing has no lines to keep', () => {
    const call = newCall('bash', { command: 'npm test' });
    expect(launchLines(toolActivity(call, {}), answer(call, 'PASS a.spec.ts\nTests: 3 passed'), '')).toBeUndefined();
  });
});
