/**
 * Helpers of the pipeline benchmark (bench/pipeline.ts): the benchmark's own stack instance, built services
 * as child processes, CPU time of processes from /proc, CPU profiles, the transcript data, percentiles.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { encodeEvent, createEvent, type AnyEvent } from '@ctxledger/contracts';
import type { ChatMessage } from '@ctxledger/context-engine';
import { parseTranscripts } from '../tools/replay/input';
import { repoRoot } from '../tools/local-stack';

// ---------------------------------------------------------------------------------------------------
// Numbers

export const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
};
export const sortNum = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);
export const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

// ---------------------------------------------------------------------------------------------------
// The benchmark's stack instance (never the default one the tests use). BENCH_STACK_INSTANCE, BENCH_KAFKA_PORT,
// BENCH_KAFKA_CONTROLLER_PORT and BENCH_MONGO_PORT move it, e.g. for benches in two worktrees on one machine; the
// tests' STACK_INSTANCE and ports are deliberately not read.

export const BENCH_STACK_ENV = {
  STACK_INSTANCE: process.env.BENCH_STACK_INSTANCE || 'bench',
  KAFKA_PORT: process.env.BENCH_KAFKA_PORT || '19592',
  KAFKA_CONTROLLER_PORT: process.env.BENCH_KAFKA_CONTROLLER_PORT || '19593',
  MONGO_PORT: process.env.BENCH_MONGO_PORT || '27518',
};
const stackScript = resolve(repoRoot, 'deploy/local/stack');
const stackEnvOf = () => ({ ...process.env, ...BENCH_STACK_ENV });

export function benchStackIsUp(): boolean {
  try {
    execFileSync(stackScript, ['status'], { stdio: 'ignore', cwd: repoRoot, env: stackEnvOf() });
    return true;
  } catch {
    return false;
  }
}

export function benchStack(command: 'up' | 'down'): void {
  execFileSync(stackScript, [command], { stdio: ['ignore', 'ignore', 'inherit'], cwd: repoRoot, env: stackEnvOf() });
}

export function benchStackSettings(): { brokers: string[]; mongoUri: string; kafkaPid?: number; mongoPid?: number } {
  const out = execFileSync(stackScript, ['env'], { cwd: repoRoot, env: stackEnvOf(), encoding: 'utf8' });
  const settings: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const m = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) settings[m[1]!] = m[2]!.replace(/^['"]|['"]$/g, '');
  }
  const pid = (name: string) => {
    const file = resolve(repoRoot, '.stack', BENCH_STACK_ENV.STACK_INSTANCE, `${name}.pid`);
    return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
  };
  return {
    brokers: settings.KAFKA_BROKERS!.split(','),
    mongoUri: settings.MONGODB_URI!,
    kafkaPid: pid('kafka'),
    mongoPid: pid('mongo'),
  };
}

export const withDatabase = (uri: string, db: string) =>
  uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${db}`);

// ---------------------------------------------------------------------------------------------------
// CPU time of processes (user + system, from /proc): where the machine's time goes

const TICK_MS = 10; // USER_HZ = 100 on Linux
export function cpuMsOf(pid: number | undefined): number {
  return pid === undefined ? NaN : statCpuMs(`/proc/${pid}/stat`);
}

function statCpuMs(path: string): number {
  try {
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime field 15
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/**
 * CPU of a JVM's JIT compiler threads (`C1/C2 CompilerThread`): the bench starts Kafka fresh, and for minutes
 * its compilers take a good share of its CPU, which a long-running broker no longer pays.
 */
export function jitCpuMsOf(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    let ms = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const comm = readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8');
      if (comm.startsWith('C1 Compiler') || comm.startsWith('C2 Compiler')) {
        ms += statCpuMs(`/proc/${pid}/task/${task}/stat`) || 0;
      }
    }
    return ms;
  } catch {
    return NaN;
  }
}
export const selfCpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export type CpuSnapshot = Record<string, number>;
export function cpuSnapshot(pids: Record<string, number | undefined>): CpuSnapshot {
  const out: CpuSnapshot = { bench: selfCpuMs() };
  for (const [name, pid] of Object.entries(pids)) out[name] = cpuMsOf(pid);
  // Part of Kafka's figure, not added to it: summing the values double-counts it.
  if (pids.kafka !== undefined) out['kafka JIT'] = jitCpuMsOf(pids.kafka);
  return out;
}
export function cpuDelta(a: CpuSnapshot, b: CpuSnapshot): CpuSnapshot {
  const out: CpuSnapshot = {};
  for (const k of Object.keys(b)) out[k] = round((b[k] ?? NaN) - (a[k] ?? NaN), 0);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Built services as child processes

export interface BenchService {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  readonly process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export async function startBuiltService(
  name: string,
  env: Record<string, string>,
  options: { profileDir?: string; logDir?: string; timeoutMs?: number; dist?: string } = {},
): Promise<BenchService> {
  const args = [
    ...(options.profileDir
      ? ['--cpu-prof', '--cpu-prof-dir', options.profileDir, '--cpu-prof-name', `${name}-${Date.now()}.cpuprofile`]
      : []),
    resolve(options.dist ?? resolve(repoRoot, 'dist'), `apps/${name}/main.js`),
  ];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', LOG_FORMAT: 'text', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const logFile = options.logDir
    ? resolve(options.logDir, `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}.log`)
    : undefined;
  const keep = (c: Buffer) => {
    if (logFile) appendFileSync(logFile, c);
    output += c.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const timeoutMs = options.timeoutMs ?? 90_000;
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`${name} did not start within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const check = () => {
      // eslint-disable-next-line no-control-regex -- stop at an ANSI escape if one slipped through
      const m = /listening on (http:\/\/[^\s\x1b]+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', check);
        done(m[1]!.replace('[::1]', '127.0.0.1'));
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited with ${code} before listening:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    throw error;
  });
  return {
    name,
    url,
    pid: child.pid!,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// CPU profiles: self time by function, summed over the profiles of one service

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileLine {
  readonly what: string;
  readonly selfMs: number;
  readonly share: number;
}

/** Self time by function (and by package/area), top `n`, of every profile in dir whose name starts with prefix. */
export function summarizeProfiles(
  dir: string,
  prefix: string,
  n = 12,
): { byFunction: ProfileLine[]; byArea: ProfileLine[]; totalMs: number } {
  const selfUs = new Map<string, number>();
  const areaUs = new Map<string, number>();
  let total = 0;
  if (!existsSync(dir)) return { byFunction: [], byArea: [], totalMs: 0 };
  for (const file of readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(resolve(dir, file), 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    for (let i = 0; i < profile.samples.length; i++) {
      const node = byId.get(profile.samples[i]!);
      const dt = profile.timeDeltas[i] ?? 0;
      if (!node) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      if (functionName === '(idle)') continue;
      total += dt;
      const file = url.replace(/^.*\/(node_modules\/)/, '$1').replace(/^.*\/dist\//, 'dist/');
      const key =
        `${functionName || '(anonymous)'} ${file ? `${file.split('/').slice(-2).join('/')}:${lineNumber + 1}` : ''}`.trim();
      selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
      areaUs.set(areaOf(functionName, url), (areaUs.get(areaOf(functionName, url)) ?? 0) + dt);
    }
  }
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([what, us]) => ({ what, selfMs: round(us / 1000, 0), share: round((100 * us) / Math.max(1, total), 1) }));
  return { byFunction: top(selfUs), byArea: top(areaUs), totalMs: round(total / 1000, 0) };
}

function areaOf(functionName: string, url: string): string {
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'V8/native (program)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (url.includes('/dist/')) {
    // webpack bundles our code and the libraries it does not externalize into main.js
    return 'service bundle (our code)';
  }
  return url ? url.split('/').slice(-1)[0]! : `(native) ${functionName}`;
}

// ---------------------------------------------------------------------------------------------------
// The data: messages of the developer transcripts, in conversation order, as a pool

export function loadMessagePool(path: string): ChatMessage[] {
  const pool: ChatMessage[] = [];
  for (const line of parseTranscripts(readFileSync(path, 'utf8'))) {
    if (!line.ok) continue;
    for (const m of line.session.messages) if (m.role !== 'system') pool.push(m);
  }
  if (pool.length === 0) throw new Error(`no messages in ${path}`);
  return pool;
}

/** A session of the benchmark: its id and the next message of the pool it appends. */
export class BenchSession {
  position = 0;
  constructor(
    readonly id: string,
    private readonly pool: readonly ChatMessage[],
    private readonly start: number,
  ) {}

  configured(config: Record<string, unknown>): AnyEvent {
    return createEvent('session.configured', this.id, config as never, { tenant: 'bench' });
  }

  /** The next message.appended event (a real transcript message, with a clientMessageId like a platform's). */
  next(): AnyEvent {
    const m = this.pool[(this.start + this.position) % this.pool.length]!;
    const data: Record<string, unknown> = { role: m.role, content: m.content, clientMessageId: `m${this.position}` };
    if (m.toolCalls) data.toolCalls = m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
    if (m.toolCallId !== undefined) data.toolCallId = m.toolCallId;
    if (m.toolName !== undefined) data.toolName = m.toolName;
    if (m.isError !== undefined) data.isError = m.isError;
    this.position++;
    return createEvent('message.appended', this.id, data as never, { tenant: 'bench' });
  }
}

export const record = (e: AnyEvent) => ({ key: e.sessionId, value: encodeEvent(e) });
