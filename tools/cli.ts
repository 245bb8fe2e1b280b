/** What the command-line tools (replay, eval) share: option parsers and commander's exit handling. */
import { type Command, InvalidArgumentError } from 'commander';

export const positiveInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return n;
};

export const nonNegativeInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
  return n;
};

/** A number in (0, max]. */
export const ratioUpTo = (max: number) => (v: string) => {
  const n = Number(v);
  if (!(n > 0 && n <= max)) throw new InvalidArgumentError(`must be a number in (0, ${max}]`);
  return n;
};

/**
 * Parses argv with an `exitOverride()` program: undefined when the tool should go on, else the exit code
 * (0 after --help, 2 on a usage error, which commander has already printed).
 */
export function parseOrExitCode(program: Command, argv: readonly string[]): number | undefined {
  try {
    program.parse(argv as string[], { from: 'user' });
    return undefined;
  } catch (error) {
    const code = (error as { exitCode?: number }).exitCode;
    return code === 0 ? 0 : 2;
  }
}
