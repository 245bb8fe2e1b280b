import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { stackStateDir } from '../../tools/local-stack';

/**
 * SIGKILL to every process a stack instance recorded (its brokers, its FerretDB), and wait until they are gone: for an
 * instance removed next, nothing of which needs a clean stop (a graceful stop of a broker takes about 4 s).
 */
export async function killStackInstance(env: NodeJS.ProcessEnv): Promise<void> {
  const stateDir = stackStateDir(env);
  const pids = (existsSync(stateDir) ? readdirSync(stateDir) : [])
    .filter((name) => name.endsWith('.pid'))
    .map((name) => Number(readFileSync(resolve(stateDir, name), 'utf8').trim()))
    .filter((pid) => ownProcess(pid, stateDir));
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + 15_000;
  while (pids.some((pid) => ownProcess(pid, stateDir)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
}

/** The process is still running and is the instance's (its command line names the instance's state directory). */
function ownProcess(pid: number, stateDir: string): boolean {
  try {
    return pid > 0 && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(stateDir);
  } catch {
    return false;
  }
}
