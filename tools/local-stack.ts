import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { resolve } from 'node:path';

/** Thin wrapper over `deploy/local/stack`, shared by `npm start` and the test set-up. */
export const repoRoot = resolve(__dirname, '..');

/** The deployable apps (nest-cli.json's applications), built to dist/apps/<name>/main.js. */
export const SERVICE_NAMES = ['session-service', 'compaction-service', 'summarizer-service'] as const;
const stackScript = resolve(repoRoot, 'deploy/local/stack');

export function stackIsUp(env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    execFileSync(stackScript, ['status'], { stdio: 'ignore', cwd: repoRoot, env });
    return true;
  } catch {
    return false;
  }
}

export function stack(command: string, env: NodeJS.ProcessEnv = process.env): void {
  execFileSync(stackScript, [command], { stdio: 'inherit', cwd: repoRoot, env });
}

/**
 * `stack(command)` without blocking the event loop: for tests that keep HTTP clients or Kafka clients alive
 * meanwhile (a blocked loop makes a client reuse a keep-alive socket the server closed in the meantime).
 */
export async function stackAsync(
  command: string,
  env: NodeJS.ProcessEnv = process.env,
  args: readonly string[] = [],
): Promise<void> {
  await promisify(execFile)(stackScript, [command, ...args], { cwd: repoRoot, env });
}

/** The state directory of the instance `env` names (STACK_STATE_DIR, STACK_INSTANCE), as deploy/local/stack sets it. */
export function stackStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.STACK_STATE_DIR ?? resolve(repoRoot, '.stack'), env.STACK_INSTANCE ?? 'default');
}

/** The connection settings (`KAFKA_BROKERS`, `MONGODB_URI`) the stack prints with `stack env`. */
export function stackEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out = execFileSync(stackScript, ['env'], { cwd: repoRoot, env, encoding: 'utf8' });
  const settings: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const match = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) settings[match[1]] = match[2].replace(/^['"]|['"]$/g, '');
  }
  return settings;
}
