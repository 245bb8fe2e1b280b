import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { repoRoot } from '../../tools/local-stack';

export interface RunningService {
  readonly name: string;
  readonly url: string;
  readonly process: ChildProcess;
  /** Output so far, for assertions and for failure messages. */
  output(): string;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL: the process dies without any shutdown hook. */
  kill(): Promise<void>;
}

/**
 * Starts a built service (`dist/apps/<name>/main.js`) as a child process on a free port and resolves
 * once it logs where it listens. `env` is added to the test's environment (stack settings included).
 */
export async function startService(
  name: string,
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<RunningService> {
  const child = spawn(process.execPath, [resolve(repoRoot, `dist/apps/${name}/main.js`)], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', LOG_FORMAT: 'text', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));

  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`${name} did not start within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const check = () => {
      // eslint-disable-next-line no-control-regex -- stop at an ANSI colour escape if one slipped through
      const match = /listening on (http:\/\/[^\s\x1b"]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        done(match[1].replace('[::1]', '127.0.0.1'));
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited with ${code} before listening:\n${output}`));
    });
  });

  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    await exited;
  };
  return {
    name,
    url,
    process: child,
    output: () => output,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
  };
}

/** GET /health of a running service: its status and JSON body. */
export async function health(service: RunningService): Promise<{ status: number; body: any }> {
  const res = await fetch(`${service.url}/health`);
  return { status: res.status, body: await res.json() };
}
