import { newCall } from '../testing/fixtures';
import { summarizeDeterministic } from './deterministic-summarizer';
import {
  filesInListing,
  filesNamedIn,
  filesOfFailure,
  listsFiles,
  namesChangedBy,
  namesOfCall,
  symbolName,
} from './names';
import { toolActivity } from './tool-activity';

const noFiles = () => ({ command: undefined, files: [] });
const shell = (command: string) => ({ command, files: [] });

describe('what a text or a call names', () => {
  it('symbolName keeps names of code and drops words, file names and keywords', () => {
    expect(symbolName('parseConfig()')).toEqual({ name: 'parseConfig', text: 'parseConfig()' });
    expect(symbolName('  Session.load ')).toEqual({ name: 'Session.load', text: 'Session.load' });
    expect(symbolName('return')).toBeUndefined();
    expect(symbolName('Promise')).toBeUndefined();
    expect(symbolName('main.py')).toBeUndefined();
    expect(symbolName('ab')).toBeUndefined();
    expect(symbolName('two words')).toBeUndefined();
    // In prose only what looks like code counts: `budget` is a word there, `tokenBudget` a name.
    expect(symbolName('budget', true)).toBeUndefined();
    expect(symbolName('tokenBudget', true)?.name).toBe('tokenBudget');
    expect(symbolName('max_tokens', true)?.name).toBe('max_tokens');
  });

  it('namesOfCall lists what a call declares, what it searches for and the pattern of a grep, in order', () => {
    const write = {
      name: 'write',
      arguments: JSON.stringify({
        path: 'src/a.ts',
        content:
          'export function loadSession(id) {\n  const lines = 1;\n}\nclass Ledger {}\nexport const tokenCap = 5;',
      }),
    };
    expect(namesOfCall(write, { command: undefined, files: [{ path: 'src/a.ts', action: 'write' }] })).toEqual([
      'loadSession',
      'Ledger',
      'tokenCap',
    ]);
    expect(namesOfCall({ name: 'search', arguments: '{"pattern":"foo|barBaz"}' }, noFiles())).toEqual([
      'foo',
      'barBaz',
    ]);
    expect(namesOfCall({ name: 'bash', arguments: '{}' }, shell("grep -rn 'def compact' src/"))).toEqual(['compact']);
    expect(namesOfCall({ name: 'bash', arguments: 'not json' }, shell('ls -la'))).toEqual([]);
    // A declaration keyword is dropped only as a word of its own: `constructor` is not `ructor`, nor `classify` `ify`.
    expect(namesOfCall({ name: 'bash', arguments: '{}' }, shell('grep -n "constructor" src/a.ts'))).toEqual([
      'constructor',
    ]);
    expect(namesOfCall({ name: 'bash', arguments: '{}' }, shell('rg classify_tokens'))).toEqual(['classify_tokens']);
    expect(namesOfCall({ name: 'bash', arguments: '{}' }, shell('rg "export default"'))).toEqual(['default']);
  });

  it("a comment's prose declares nothing: `/// This function uses`, `# the class of` name no symbol", () => {
    const rust = [
      '/// This function uses a robust strategy (the type of swap matters)',
      '#[cfg(not(windows))]',
      'fn replace_exe_unix(current: &Path) -> Result<()> {',
      '    // the struct below keeps the old file',
      '    let old_exe = current.with_extension("old");',
      '}',
      '/* a class of errors */ struct Swap;',
    ].join('\n');
    const edit = { name: 'replace', arguments: JSON.stringify({ file_path: 'src/update.rs', new_string: rust }) };
    const files = [{ path: 'src/update.rs', action: 'edit' }];
    expect(namesOfCall(edit, { command: undefined, files })).toEqual(['replace_exe_unix', 'old_exe', 'Swap']);
    const py = '# the class of a token\nclass Token:\n    pass  # def of nothing';
    const write = { name: 'write', arguments: JSON.stringify({ path: 'a.py', content: py }) };
    expect(namesOfCall(write, { command: undefined, files: [{ path: 'a.py', action: 'write' }] })).toEqual(['Token']);
  });

  it('a document written in prose declares nothing: "a class that" names no symbol "that"', () => {
    const content = 'The session is a class that keeps the state.\n\n```ts\nfunction loadSession() {}\n```';
    const doc = { name: 'write', arguments: JSON.stringify({ path: 'docs/plan.md', content }) };
    expect(namesOfCall(doc, { command: undefined, files: [{ path: 'docs/plan.md', action: 'write' }] })).toEqual([]);
    const code = { name: 'write', arguments: JSON.stringify({ path: 'src/plan.ts', content }) };
    expect(namesOfCall(code, { command: undefined, files: [{ path: 'src/plan.ts', action: 'write' }] })).toEqual([
      'that',
      'loadSession',
    ]);
  });

  it("namesChangedBy: what a change wrote, by file — an edit tool's new text, each file of a patch, a MultiEdit, a range edit", () => {
    const changed = (name: string, args: object, opened?: string) => {
      const c = { id: 'c', name, arguments: JSON.stringify(args) };
      return Object.fromEntries(namesChangedBy(c, toolActivity(c, opened ? { openedEarlier: () => opened } : {})));
    };
    // Declarations, first ones first; not a block's locals (`const lines`, `const cachedWidth`), not an import's names.
    expect(
      changed('Edit', {
        file_path: 'src/text.ts',
        old_string: 'render() {',
        new_string:
          "import { type Component, Theme } from './theme';\nexport const DEFAULT_WIDTH = 80;\n  invalidate(): void {\n    const cachedWidth = 3;\n  }\n\n  render(width: number): string[] {\n",
      }),
    ).toEqual({ 'src/text.ts': ['DEFAULT_WIDTH', 'invalidate', 'render'] });
    expect(
      changed('MultiEdit', {
        file_path: 'src/a.py',
        edits: [
          { old_string: 'a', new_string: 'def parse_header(line):\n    pass' },
          { old_string: 'b', new_string: 'class Lexer:\n    pass' },
        ],
      }),
    ).toEqual({ 'src/a.py': ['parse_header', 'Lexer'] });
    // Not a to-do list's items (TodoWrite's `content`), which change no file and declare nothing.
    const todos = {
      id: 't',
      name: 'TodoWrite',
      arguments: JSON.stringify({ todos: [{ content: 'Add class Parser' }] }),
    };
    expect(namesOfCall(todos, toolActivity(todos, {}))).toEqual([]);
    // A patch: each file its added lines (`-` lines are what was there), a document's none.
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/parser.py',
      '-def old():',
      '+def parse_header(line):',
      '*** Add File: src/lexer.py',
      '+class Lexer:',
      '+def tokenize(text):',
      '*** Update File: README.md',
      '+def not_code():',
      '*** End Patch',
    ].join('\n');
    expect(changed('shell', { command: ['apply_patch', patch] })).toEqual({
      'src/parser.py': ['parse_header'],
      'src/lexer.py': ['Lexer', 'tokenize'],
    });
    // SWE-agent's range edit of the file open.
    expect(
      changed(
        'bash',
        { command: 'edit 100:102\n    def _serialize(self, value):\n        return 1\nend_of_edit' },
        'src/fields.py',
      ),
    ).toEqual({ 'src/fields.py': ['_serialize'] });
    // One inside a body: the function the editor's window shows it in, indented less than the line it changed.
    const fix = {
      id: 'f',
      name: 'bash',
      arguments: JSON.stringify({ command: 'edit 1475:1475\n        return 1\nend_of_edit' }),
    };
    const window = [
      '[File: /repo/src/fields.py (1997 lines total)]',
      '1469:class TimeDelta(Field):',
      '1470:    def _serialize(self, value, attr, obj, **kwargs):',
      '1471:        def inner(x):',
      '1472:            return x',
      '1473:        if value is None:',
      '1474:            return None',
      '1475:        return 1',
    ].join('\n');
    const fixed = (result?: string) =>
      Object.fromEntries(namesChangedBy(fix, toolActivity(fix, { openedEarlier: () => 'src/fields.py' }), result));
    expect(fixed(window)).toEqual({ 'src/fields.py': ['_serialize'] });
    expect(fixed()).toEqual({});
    // A line the window does not show: not known.
    expect(fixed(window.replace('1475:        return 1', ''))).toEqual({});
    // A read, a document, a call on two files without a patch: nothing.
    expect(changed('Read', { file_path: 'src/a.py' })).toEqual({});
    expect(changed('Write', { file_path: 'NOTES.md', content: 'function x() {}' })).toEqual({});
    expect(changed('bash', { command: 'sed -i s/a/b/ a.ts b.ts' })).toEqual({});
  });

  it('listsFiles tells a listing command or tool from others', () => {
    expect(listsFiles('bash', 'ls -la src')).toBe(true);
    expect(listsFiles('bash', 'git status')).toBe(true);
    expect(listsFiles('bash', 'npm test')).toBe(false);
    expect(listsFiles('Glob', undefined)).toBe(true);
    expect(listsFiles('Read', undefined)).toBe(false);
    // A file tool's view of a directory (OpenHands) lists its files; its view of a file does not.
    const view = "Here's the files and directories up to 2 levels deep in /workspace/app, excluding hidden items:";
    expect(listsFiles('str_replace_editor', undefined, `${view}\n/workspace/app/setup.py`)).toBe(true);
    expect(listsFiles('str_replace_editor', undefined, "Here's the result of running `cat -n` on a.py")).toBe(false);
    // PowerShell's (Codex CLI on Windows).
    expect(listsFiles('shell_command', 'Get-ChildItem src -Recurse -Filter *.ts')).toBe(true);
    expect(listsFiles('shell_command', 'Select-String -Path src\\*.ts -Pattern invokePlanner')).toBe(true);
  });

  it('filesInListing takes file names in any script', () => {
    expect(filesInListing('café.py  résumé.md  src/\n./docs/日本語.txt')).toEqual([
      'café.py',
      'résumé.md',
      'docs/日本語.txt',
    ]);
  });

  it("filesInListing reads PowerShell's Get-ChildItem table: its files, in the directory of the heading above them", () => {
    const listing = [
      '',
      '    Directory: C:\\repo\\src',
      '',
      'Mode                 LastWriteTime         Length Name',
      '----                 -------------         ------ ----',
      'd----          11/20/2025  1:36 PM                utils',
      '-a---          11/20/2025  1:36 PM           1234 summary.ts',
      '-a----         11/21/2025  9:02 AM            567 index.ts',
      '',
      '    Directory: C:\\repo\\src\\utils',
      '',
      '-a---          11/20/2025  1:36 PM            88 dates.ts',
    ].join('\n');
    // The headings are directories, not files.
    expect(filesInListing(listing)).toEqual([
      'C:\\repo\\src\\summary.ts',
      'C:\\repo\\src\\index.ts',
      'C:\\repo\\src\\utils\\dates.ts',
    ]);
  });

  it('filesInListing takes the paths of ls, ls -l, find and search hits, not code or prose', () => {
    const listing = [
      'README.md  package.json  src/', // a directory without an extension or a slash inside is no file
      '-rw-r--r-- 1 root root 120 Nov 25 10:00 tsconfig.json',
      './lib/util.py',
      'src/main.ts:12: const x = 1;',
      'foo.py (3 matches)',
      'The build failed because of this.',
      'const y = require("./z.js");',
    ].join('\n');
    expect(filesInListing(listing)).toEqual([
      'README.md',
      'package.json',
      'tsconfig.json',
      'lib/util.py',
      'src/main.ts',
      'foo.py',
    ]);
  });

  it('a path cut by a truncation marker is not taken as a path', () => {
    const text =
      'handlers/json_handler.py\nhandlers/num [... 639 chars, 19 lines truncated ...] lers/numpy_handler.py\nx.py';
    expect(filesInListing(text)).toEqual(['handlers/json_handler.py', 'x.py']);
    expect(filesNamedIn(text)).toEqual(['handlers/json_handler.py', 'x.py']);
  });

  it('filesNamedIn finds at most 20 source files named in an output', () => {
    expect(filesNamedIn('Error in ./lib/b.ts(4,2), see docs/errors.md and the notes')).toEqual([
      'lib/b.ts',
      'docs/errors.md',
    ]);
    const many = Array.from({ length: 30 }, (_, i) => `f${i}.ts`).join(' ');
    expect(filesNamedIn(many)).toHaveLength(20);
  });

  it('filesNamedIn finds configuration, data and documents too, not words with a dot', () => {
    const pip = 'ERROR: Could not open requirements file: requirements.txt\nsee pom.xml, out/results.csv and notes.pdf';
    expect(filesNamedIn(pip)).toEqual(['requirements.txt', 'pom.xml', 'out/results.csv', 'notes.pdf']);
    expect(filesNamedIn('wrote data/events.jsonl; lockfile uv.lock is up to date')).toEqual([
      'data/events.jsonl',
      'uv.lock',
    ]);
    expect(filesNamedIn('console.log(x) in e.g. a test; version 1.2.txt2')).toEqual([]);
    // git status names its branch, not a file; the files it lists are.
    expect(filesInListing('On branch fix/config\nChanges not staged for commit:\n\tmodified:   app/config.py')).toEqual(
      ['app/config.py'],
    );
    // A product's name with its version (the last line of a Node crash) is no file; a file's name before a word is.
    expect(filesNamedIn("Error: Cannot find module './lib/helper'\n\nNode.js v20.11.0")).toEqual([]);
    expect(filesNamedIn('edited App.js, v2 next; main.js vs index.js')).toEqual(['App.js', 'main.js', 'index.js']);
  });
});

describe('Windows paths (an agent on Windows: OpenCode, Cline, Claude Code)', () => {
  it('are files in listings, search hits and outputs, with their drive and backslashes', () => {
    const glob = 'Found 2 file(s)\n\nD:\\Projects\\hub\\code-review-report.md\nD:\\Projects\\hub\\docs\\review.md';
    expect(filesInListing(glob)).toEqual([
      'D:\\Projects\\hub\\code-review-report.md',
      'D:\\Projects\\hub\\docs\\review.md',
    ]);
    expect(filesInListing('D:\\Projects\\hub\\src\\run.ts:12:export function run() {')).toEqual([
      'D:\\Projects\\hub\\src\\run.ts',
    ]);
    expect(filesNamedIn('at Object.<anonymous> (C:\\work\\app\\src\\index.ts:40:3)')).toEqual([
      'C:\\work\\app\\src\\index.ts',
    ]);
    // A path printed JSON-escaped is one path; a long run of backslash-separated names is read once, not from
    // every backslash in it (quadratic).
    expect(filesNamedIn('{"file": "D:\\\\Projects\\\\hub\\\\a.ts"}')).toEqual(['D:\\\\Projects\\\\hub\\\\a.ts']);
    expect(filesNamedIn(`${'seg\\'.repeat(5000)}end`)).toEqual([]);
    // An escape in a pattern is no path.
    expect(filesNamedIn('grep -E "foo\\.bar" and "\\n"')).toEqual([]);
  });

  it('are the files a call reads and edits, listed in the working state', () => {
    const read = newCall('read', { filePath: 'D:\\Projects\\hub\\code-review-report.md' });
    const edit = newCall('edit', {
      filePath: 'D:\\Projects\\hub\\server\\src\\recovery.ts',
      oldString: 'a',
      newString: 'b',
    });
    const r = summarizeDeterministic({
      messages: [
        { role: 'user', content: 'Review the report.' },
        { role: 'assistant', content: '', toolCalls: [read] },
        {
          role: 'tool',
          toolCallId: read.id,
          content: '<path>D:\\Projects\\hub\\code-review-report.md</path>\n<content>\n1: # Report',
        },
        { role: 'assistant', content: '', toolCalls: [edit] },
        { role: 'tool', toolCallId: edit.id, content: 'Edit applied successfully.' },
      ],
      maxChars: 4000,
    });
    expect(r.sections.filesTouched).toEqual([
      'D:\\Projects\\hub\\server\\src\\recovery.ts (edit)',
      'D:\\Projects\\hub\\code-review-report.md (read)',
    ]);
  });
});

describe('filesOfFailure: the files a failed output points at', () => {
  const progress = (n: number) =>
    Array.from({ length: n }, (_, j) => `  compiled src/module_${j}.ts (${j * 7} ms)`).join('\n');

  it("takes the files of its failure lines (a compiler's location, a stack frame), not every file it went through", () => {
    const build = `${progress(60)}\nsrc/index.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.`;
    expect(filesOfFailure(build)).toEqual(['src/index.ts']);
    // The first 20 files named are progress lines: the culprit was not among them.
    expect(filesNamedIn(build)).not.toContain('src/index.ts');
    const trace = `${progress(30)}\nTraceback (most recent call last):\n  File "app/main.py", line 3, in <module>\n    run()\nValueError: bad`;
    expect(filesOfFailure(trace)).toEqual(['app/main.py']);
    const jest = `${progress(5)}\n  ● sums › adds\n    at Object.<anonymous> (test/sum.test.ts:7:19)`;
    expect(filesOfFailure(jest)).toEqual(['test/sum.test.ts']);
  });

  it("leaves out the warnings' files, and keeps the last ones a long failure names: the culprit comes last", () => {
    const warnings = Array.from({ length: 30 }, (_, j) => `src/w${j}.c:${j + 1}:5: warning: unused variable 'x'`);
    const gcc = [...warnings, "src/main.c:42:7: error: 'y' undeclared (first use in this function)"].join('\n');
    expect(filesOfFailure(gcc)).toEqual(['src/main.c']);
    // A traceback of 25 frames: its innermost frames, the last, are kept.
    const frames = Array.from({ length: 25 }, (_, j) => `  File "pkg/f${j}.py", line ${j + 1}, in f${j}`);
    const trace = ['Traceback (most recent call last):', ...frames, 'KeyError: x'].join('\n');
    const files = filesOfFailure(trace);
    expect(files).toHaveLength(20);
    expect(files[files.length - 1]).toBe('pkg/f24.py');
    expect(files).not.toContain('pkg/f0.py');
  });

  it("takes a linter's problem rows by the file they are listed under (ESLint's stylish), not its warnings'", () => {
    const eslint = [
      'src/a.ts',
      '  3:1  warning  Unexpected console statement  no-console',
      '',
      'src/b.ts',
      "  9:5  error  'z' is not defined  no-undef",
      '',
      '✖ 2 problems (1 error, 1 warning)',
    ].join('\n');
    expect(filesOfFailure(eslint)).toEqual(['src/b.ts']);
  });

  it('reads the end of a long output, where a build says what failed', () => {
    const long = `${progress(3000)}\nlib/last.ts:3:1 - error TS1005: ';' expected.`;
    expect(long.length).toBeGreaterThan(30_000);
    expect(filesOfFailure(long)).toEqual(['lib/last.ts']);
  });

  it('falls back to every file named when no line points anywhere', () => {
    expect(filesOfFailure('could not open config.yaml\nsee README.md')).toEqual(
      filesNamedIn('could not open config.yaml\nsee README.md'),
    );
  });

  it("in a note: a failed build's culprit is a file seen, its progress lines are not", () => {
    const body = `${progress(60)}\nsrc/index.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\nExit code 2`;
    const { text } = summarizeDeterministic({
      messages: [
        { role: 'user', content: 'build it' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'b', name: 'Bash', arguments: JSON.stringify({ command: 'npm run build' }) }],
        },
        { role: 'tool', toolCallId: 'b', toolName: 'Bash', content: body },
      ],
    });
    expect(text).toContain('- src/index.ts (seen)');
    expect(text).not.toContain('src/module_0.ts');
  });
});
