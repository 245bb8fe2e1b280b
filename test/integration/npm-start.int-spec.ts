import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { repoRoot, stackIsUp } from '../../tools/local-stack';
import { eventually } from '../support/eventually';
import { unique } from '../support/stack-settings';

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** The pid of the process running dist/apps/<name>/main.js on `port` (read from /proc, not from npm start's log). */
function pidServing(name: string, port: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.includes(`dist/apps/${name}/main.js`)) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`PORT=${port}`)) return Number(entry);
    } catch {
      // the process ended meanwhile
    }
  }
  return undefined;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function healthStatus(port: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5000) });
  return res.status;
}

describe('npm start supervises the services (the stack the tests brought up is already running)', () => {
  let start: ChildProcess | undefined;
  let output = '';
  let watching = false;

  afterAll(async () => {
    watching = false;
    // Whatever is left of its process group (tsx, npm start, the services) after a failed run.
    if (start?.pid) {
      try {
        process.kill(-start.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 30_000);

  it('restarts a killed service with backoff while the others and the stack stay up, and leaves a stack it found up running', async () => {
    const ports = { session: await freePort(), compaction: await freePort(), summarizer: await freePort() };
    // As `npm start` runs it: one node process with tsx's loader, no tsx CLI between the signal and start.ts (the CLI
    // relays a signal only if the child acknowledges it within 30 ms, else SIGKILLs it and exits 143: under load,
    // Ctrl-C then killed start.ts before it stopped the services and the stack).
    start = spawn(process.execPath, ['--import', 'tsx', 'tools/start.ts', '--no-build'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        SESSION_SERVICE_PORT: String(ports.session),
        COMPACTION_SERVICE_PORT: String(ports.compaction),
        SUMMARIZER_SERVICE_PORT: String(ports.summarizer),
        // Topics and consumer groups of this file's own (npm start takes the database from the stack: the stack's
        // default one, which no other test file uses).
        TOPIC_PREFIX: unique('npmstart').replace(/-/g, '_'),
        LOG_FORMAT: 'text',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so a failed run can kill all of it
    });
    start.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    start.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((done) => start!.once('exit', (code) => done(code)));

    await eventually(
      async () => output,
      (o) => o.includes('Context Ledger is up'),
      'npm start to come up',
      150_000,
    );
    expect(output).toContain('local stack already up: using it');
    const [sessionPid, compactionPid, summarizerPid] = [
      pidServing('session-service', ports.session),
      pidServing('compaction-service', ports.compaction),
      pidServing('summarizer-service', ports.summarizer),
    ] as number[];
    expect([sessionPid, compactionPid, summarizerPid].every((pid) => pid > 0)).toBe(true);

    // The session service answers throughout the compaction service's crash and restart.
    const sessionAnswers: number[] = [];
    watching = true;
    const watch = (async () => {
      while (watching) {
        sessionAnswers.push(await healthStatus(ports.session).catch(() => 0));
        await new Promise((r) => setTimeout(r, 200));
      }
    })();

    process.kill(compactionPid, 'SIGKILL');
    await eventually(
      async () => output,
      (o) => /compaction-service exited \(SIGKILL\); restarting it in 1 s/.test(o),
      'the crash to be logged with the restart delay',
      20_000,
    );
    const restarted = await eventually(
      async () => pidServing('compaction-service', ports.compaction) ?? 0,
      (pid) => pid > 0,
      'the compaction service to be restarted',
      30_000,
    );
    expect(restarted).not.toBe(compactionPid);
    await eventually(
      async () => output,
      (o) => /compaction-service is healthy again after [\d.]+ s/.test(o),
      'npm start to see the restarted service healthy',
      90_000,
    );
    expect(await healthStatus(ports.compaction)).toBe(200);
    watching = false;
    await watch;

    expect(alive(sessionPid) && alive(summarizerPid)).toBe(true);
    expect(sessionAnswers.length).toBeGreaterThan(0);
    expect(sessionAnswers.filter((s) => s !== 200)).toEqual([]);
    expect(stackIsUp()).toBe(true);
    expect(await healthStatus(ports.summarizer)).toBe(200);

    // Ctrl-C (SIGTERM here) stops the services and leaves the stack it did not start running.
    start.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect([sessionPid, summarizerPid, restarted].some(alive)).toBe(false);
    expect(output).not.toContain('stopping the local stack');
    expect(stackIsUp()).toBe(true);
  }, 300_000);
});
