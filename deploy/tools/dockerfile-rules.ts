/**
 * Hadolint-style rules for our Dockerfiles (hadolint itself is a Haskell binary that is not packaged for the
 * machines this project runs on). Each rule names the hadolint rule it follows where there is one.
 */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

export interface Stage {
  readonly image: string;
  readonly name?: string;
  readonly instructions: Instruction[];
}

/** Instructions with continuation lines joined, comments and parser directives dropped. */
export function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i];
    if (/^\s*(#.*)?$/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) line = line.replace(/\\\s*$/, ' ') + lines[++i].trim();
    const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(line);
    if (m) out.push({ keyword: m[1].toUpperCase(), args: m[2].trim(), line: start + 1 });
  }
  return out;
}

/** The stages, with global ARG defaults substituted into FROM. */
export function stages(text: string): Stage[] {
  const args = new Map<string, string>();
  const out: Stage[] = [];
  for (const ins of instructions(text)) {
    if (ins.keyword === 'ARG' && out.length === 0) {
      const [name, value] = ins.args.split('=');
      if (value !== undefined) args.set(name, value);
      continue;
    }
    if (ins.keyword === 'FROM') {
      const [ref, as, name] = ins.args.replace(/--platform=\S+\s+/, '').split(/\s+/);
      const image = ref.replace(/\$\{?(\w+)\}?/g, (_, n: string) => args.get(n) ?? `$${n}`);
      out.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
      continue;
    }
    out[out.length - 1]?.instructions.push(ins);
  }
  return out;
}

const isExecForm = (args: string) => {
  try {
    return Array.isArray(JSON.parse(args));
  } catch {
    return false;
  }
};

/** The rule violations of a Dockerfile of ours, as `<rule>: <what>` strings. */
export function dockerfileProblems(text: string, expect: { nodeMajor: number; port: number }): string[] {
  const problems: string[] = [];
  const all = stages(text);
  if (all.length < 2) problems.push('multi-stage: one stage only (build tools would ship in the image)');
  for (const s of all) {
    const [repo, tag] = s.image.includes('@') ? [s.image, 'digest'] : s.image.split(/:(?=[^/]+$)/);
    if (!tag) problems.push(`DL3006: ${s.image} has no tag`);
    else if (tag === 'latest') problems.push(`DL3007: ${s.image} uses latest`);
    if (/(^|\/)node(js)?[\w-]*$/.test(repo) && !new RegExp(`(^|\\D)${expect.nodeMajor}(\\D|$)`).test(`${repo}:${tag}`))
      problems.push(`node ${expect.nodeMajor}: ${s.image} is not a Node ${expect.nodeMajor} image`);
    for (const ins of s.instructions) {
      if (ins.keyword === 'ADD') problems.push(`DL3020: line ${ins.line}: use COPY, not ADD`);
      if (ins.keyword === 'WORKDIR' && !ins.args.startsWith('/'))
        problems.push(`DL3000: line ${ins.line}: relative WORKDIR`);
      if (ins.keyword === 'RUN' && /\bnpm (install|i)\b/.test(ins.args))
        problems.push(`DL3016: line ${ins.line}: npm install (use npm ci with the lockfile)`);
      if (ins.keyword === 'RUN' && /\bsudo\b/.test(ins.args)) problems.push(`DL3004: line ${ins.line}: sudo`);
      if (ins.keyword === 'RUN' && /apt-get install/.test(ins.args) && !/--no-install-recommends/.test(ins.args))
        problems.push(`DL3015: line ${ins.line}: apt-get install without --no-install-recommends`);
      if (ins.keyword === 'RUN' && /\bcd\s/.test(ins.args)) problems.push(`DL3003: line ${ins.line}: cd (use WORKDIR)`);
    }
  }
  const final = all[all.length - 1];
  if (!final) return [...problems, 'no FROM'];
  const last = (k: string) => [...final.instructions].reverse().find((i) => i.keyword === k);
  const user = last('USER');
  if (!user) problems.push('DL3002: the final stage sets no USER (runs as the image default)');
  else if (/^(root|0)(:|$)/.test(user.args)) problems.push('DL3002: the final stage runs as root');
  for (const k of ['CMD', 'ENTRYPOINT']) {
    const ins = last(k);
    if (ins && !isExecForm(ins.args)) problems.push(`DL3025: ${k} in shell form (signals do not reach node)`);
  }
  if (!last('CMD') && !last('ENTRYPOINT')) problems.push('the final stage has no CMD');
  const health = last('HEALTHCHECK');
  if (!health) problems.push('the final stage has no HEALTHCHECK');
  else if (!health.args.includes('/health')) problems.push('HEALTHCHECK does not ask /health');
  if (!final.instructions.some((i) => i.keyword === 'COPY' && /--from=/.test(i.args)))
    problems.push('multi-stage: the final stage copies nothing from the build stages');
  if (final.instructions.some((i) => i.keyword === 'RUN'))
    problems.push('the final stage runs commands (it should only copy artefacts)');
  const expose = last('EXPOSE');
  if (expose?.args !== String(expect.port))
    problems.push(`EXPOSE ${expose?.args} is not the service port ${expect.port}`);
  const env = final.instructions
    .filter((i) => i.keyword === 'ENV')
    .map((i) => i.args)
    .join(' ');
  if (!new RegExp(`\\bPORT=${expect.port}\\b`).test(env)) problems.push(`ENV PORT is not ${expect.port}`);
  if (!/\bHOST=0\.0\.0\.0\b/.test(env))
    problems.push('ENV HOST is not 0.0.0.0 (the services listen on 127.0.0.1 by default)');
  if (!all.some((s) => s.instructions.some((i) => i.keyword === 'RUN' && /npm ci\b.*--omit=dev/.test(i.args))))
    problems.push('no stage installs the production dependencies only (npm ci --omit=dev)');
  return problems;
}

/** .dockerignore semantics: the last matching pattern wins; `!` re-includes. */
export function dockerignored(patterns: string, path: string): boolean {
  let ignored = false;
  for (const raw of patterns.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    const glob = (negate ? line.slice(1) : line).replace(/^\/+|\/+$/g, '');
    const re = new RegExp(
      `^${glob
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*\/?/g, '@@GLOBSTAR@@')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')
        .replace(/@@GLOBSTAR@@/g, '.*')}(/.*)?$`,
    );
    if (re.test(path)) ignored = !negate;
  }
  return ignored;
}
