import { newCall } from '../testing/fixtures';
import { callOutcome, describeCall } from './call-outcome';
import {
  commandHead,
  filesOfEditBlocks,
  filesOfPatch,
  filesOfShellCommand,
  looksAround,
  outputMayBePartial,
  toolActivity,
} from './tool-activity';

describe('toolActivity: the shapes other agents give their calls', () => {
  it("reads an argv command (Codex's shell tool): the script given to `bash -lc`, else the words", () => {
    const script = toolActivity(
      newCall('shell', { command: ['bash', '-lc', 'cd repo && npm test'], workdir: '/w' }),
      {},
    );
    expect(script.command).toBe('npm test'); // a leading cd is no part of what ran
    const argv = toolActivity(newCall('shell', { command: ['python', 'reproduce.py'] }), {});
    expect(argv.command).toBe('python reproduce.py');
    expect(toolActivity(newCall('shell', { command: [] }), {}).command).toBeUndefined();
    // Words a shell would split or read otherwise are quoted, so the command can be run again as it was.
    const awk = ['awk', '/## Getting Started/,/##/ {print NR,$0}', 'readme.md'];
    expect(toolActivity(newCall('shell', { command: awk }), {}).command).toBe(
      "awk '/## Getting Started/,/##/ {print NR,$0}' readme.md",
    );
    expect(toolActivity(newCall('shell', { command: ['git', 'commit', '-m', "it's done"] }), {}).command).toBe(
      "git commit -m 'it'\\''s done'",
    );
    // A `&` given as a word is no background job: the call waited for the server (until its time limit).
    const literal = toolActivity(newCall('shell', { command: ['node', 'express.js', '&'], timeout: 60000 }), {});
    expect(literal.command).toBe("node express.js '&'");
    expect(literal.background).toBe(false);
    expect(toolActivity(newCall('shell', { command: ['bash', '-lc', 'node express.js &'] }), {}).background).toBe(true);
  });

  it("takes a patch's files from its headers: an apply_patch argument or heredoc, a unified diff", () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/fields.py',
      '@@ def _serialize',
      '-        return int(value.total_seconds() / base_unit.total_seconds())',
      '+        return int(round(value.total_seconds() / base_unit.total_seconds()))',
      '*** Add File: tests/test_timedelta.py',
      '+def test_rounding(): ...',
      '*** End Patch',
    ].join('\n');
    const codex = toolActivity(newCall('apply_patch', { input: patch }), {});
    expect(codex.files).toEqual([
      { path: 'src/fields.py', action: 'edit' },
      { path: 'tests/test_timedelta.py', action: 'write' },
    ]);
    const heredoc = toolActivity(
      newCall('shell', { command: ['bash', '-lc', `apply_patch <<'EOF'\n${patch}\nEOF`] }),
      {},
    );
    expect(heredoc.files.map((f) => f.path)).toEqual(['src/fields.py', 'tests/test_timedelta.py']);
    const diff =
      '--- a/lib/x.ts\n+++ b/lib/x.ts\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/lib/new.ts\n' +
      '--- a/lib/old.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n';
    expect(filesOfPatch(diff)).toEqual([
      { path: 'lib/x.ts', action: 'edit' },
      { path: 'lib/new.ts', action: 'write' },
      { path: 'lib/old.ts', action: 'delete' },
    ]);
    expect(filesOfPatch('*** Begin Patch\n*** Delete File: src/c.ts\n*** End Patch')).toEqual([
      { path: 'src/c.ts', action: 'delete' },
    ]);
    expect(filesOfPatch('+++ b/only/plus.ts\n@@\n+x')).toEqual([{ path: 'only/plus.ts', action: 'edit' }]);
    expect(filesOfPatch('plain text with no headers')).toEqual([]);
  });

  it('a patch written to a file changes its files when a later call applies it, not when it is written or checked', () => {
    const diff = '--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n--- a/src/old.py\n+++ /dev/null\n';
    const state = {};
    const paths = (command: string) =>
      toolActivity(newCall('bash', { command }), state).files.map((f) => `${f.path} (${f.action})`);
    // Written: the patch file only (was: its files edited as it was written).
    expect(paths(`cat > /tmp/fix.patch <<'EOF'\n${diff}EOF`)).toEqual(['/tmp/fix.patch (write)']);
    expect(paths('git apply --check /tmp/fix.patch')).toEqual([]);
    expect(paths('git apply /tmp/fix.patch')).toEqual(['src/app.py (edit)', 'src/old.py (delete)']);
    expect(paths('patch -p1 < /tmp/fix.patch')).toEqual(['src/app.py (edit)', 'src/old.py (delete)']);
    expect(paths('git apply other.patch')).toEqual([]);
    // Written by a file tool, applied by name.
    toolActivity(newCall('Write', { file_path: 'changes.diff', content: diff }), state);
    expect(paths('patch -p1 -i changes.diff')).toEqual(['src/app.py (edit)', 'src/old.py (delete)']);
    // Written and applied in one script: its files at once.
    expect(paths(`cat > b.patch <<'EOF'\n${diff}EOF\ngit apply b.patch`)).toEqual([
      'b.patch (write)',
      'src/app.py (edit)',
      'src/old.py (delete)',
    ]);
  });

  it('reads the files a script run inline edits, writes or reads (python heredocs and -c, node -e), perl -pi, git restore', () => {
    const files = (command: string) => filesOfShellCommand(command).files;
    // Codex edits with Python heredocs: the Path it writes through is edited, relative to the directory it ran in.
    const heredoc = [
      "cd /repo && python - <<'PY'",
      'from pathlib import Path',
      "p = Path('src/app/config.py')",
      's = p.read_text()',
      "p.write_text(s.replace('DEBUG = True', 'DEBUG = False'))",
      'PY',
    ].join('\n');
    expect(files(heredoc)).toEqual([{ path: '/repo/src/app/config.py', action: 'edit' }]);
    const json = [
      "python3 - <<'EOF'",
      "data = json.load(open('package.json'))",
      "with open('tsconfig.json', 'w') as f:",
      '    json.dump(data, f)',
      'EOF',
    ];
    expect(files(json.join('\n'))).toEqual([
      { path: 'package.json', action: 'read' },
      { path: 'tsconfig.json', action: 'write' },
    ]);
    // A Path only read, `-c` and `-e` scripts.
    expect(files(`python -c "from pathlib import Path; print(Path('setup.cfg').read_text())"`)).toEqual([
      { path: 'setup.cfg', action: 'read' },
    ]);
    expect(files(`node -e "require('fs').writeFileSync('out.json', '{}')"`)).toEqual([
      { path: 'out.json', action: 'write' },
    ]);
    expect(files("perl -pi -e 's/foo/bar/g' lib/a.pl lib/b.pl")).toEqual([
      { path: 'lib/a.pl', action: 'edit' },
      { path: 'lib/b.pl', action: 'edit' },
    ]);
    expect(files("perl -ne 'print if /x/' lib/a.pl")).toEqual([]);
    // Restored as committed; unstaging or switching a branch restores no file.
    expect(files('git checkout -- src/a.py src/b.py')).toEqual([
      { path: 'src/a.py', action: 'restore' },
      { path: 'src/b.py', action: 'restore' },
    ]);
    expect(files('git restore src/c.py')).toEqual([{ path: 'src/c.py', action: 'restore' }]);
    expect(files('git restore --staged src/c.py')).toEqual([]);
    expect(files('git checkout main')).toEqual([]);
    // A script that names no file, or text that only looks like code: nothing.
    expect(files("python - <<'PY'\nprint(sum(range(10)))\nPY")).toEqual([]);
  });

  it('reads the files a program given a program reads, a dump or diff reads, git shows or blames', () => {
    const files = (command: string) => filesOfShellCommand(command).files;
    // An `&&` inside the program's quotes is no second command.
    expect(files("awk 'NR>=10 && NR<=20' src/a.py")).toEqual([{ path: 'src/a.py', action: 'read' }]);
    expect(files('awk -F, -f report.awk data/a.csv')).toEqual([{ path: 'data/a.csv', action: 'read' }]);
    expect(files('jq .scripts package.json')).toEqual([{ path: 'package.json', action: 'read' }]);
    expect(files('diff src/a.py src/b.py && xxd bin/app | head')).toEqual([
      { path: 'src/a.py', action: 'read' },
      { path: 'src/b.py', action: 'read' },
      { path: 'bin/app', action: 'read' },
    ]);
    expect(files('git show HEAD~1:src/a.py')).toEqual([{ path: 'src/a.py', action: 'read' }]);
    expect(files('git blame -L 10,20 src/a.py')).toEqual([{ path: 'src/a.py', action: 'read' }]);
    expect(files('git show --stat HEAD')).toEqual([]);
    // A `|` in a quoted sed script is no pipe (macOS's `sed -i ''`); a file edited by ten seds of one call, one edit.
    const moved = [
      'cd /repo/src && sed -i \'\' \'s|from "../shell.js"|from "../utils/shell.js"|g\' core/bash.ts core/grep.ts',
      'sed -i \'\' \'s|"./a.js"|"./b.js"|g\' core/bash.ts',
    ].join('; ');
    expect(files(moved)).toEqual([
      { path: '/repo/src/core/bash.ts', action: 'edit' },
      { path: '/repo/src/core/grep.ts', action: 'edit' },
    ]);
    // The same operation is the command before its pipe, a pipe in quotes being no pipe.
    const key = (command: string) => toolActivity(newCall('bash', { command }), {}).key;
    expect(key('npm run check 2>&1 | head -40')).toBe(key('npm run check'));
    expect(key('grep -E "foo|bar" src | head')).toBe(key('grep -E "foo|bar" src'));
    expect(key('grep -E "foo|bar" src')).not.toBe(key('grep -E "foo|baz" src'));
    expect(key("sed -i '' 's|a|b|g' x.ts")).not.toBe(key("sed -i '' 's|c|d|g' x.ts"));
  });

  it("reads other harnesses' file tools: Roo Code's apply_diff, a tool that deletes, moves, renames or copies a file", () => {
    const files = (name: string, args: Record<string, unknown>) => toolActivity(newCall(name, args), {}).files;
    expect(files('apply_diff', { path: 'src/a.ts', diff: '<<<<<<< SEARCH' })).toEqual([
      { path: 'src/a.ts', action: 'edit' },
    ]);
    expect(files('append_to_file', { path: 'notes.md', content: 'x' })).toEqual([{ path: 'notes.md', action: 'edit' }]);
    for (const name of ['delete_file', 'remove_file', 'mcp__filesystem__delete_file'])
      expect(files(name, { path: 'src/old.ts' })).toEqual([{ path: 'src/old.ts', action: 'delete' }]);
    expect(files('move_file', { source: 'src/a.ts', destination: 'src/b.ts' })).toEqual([
      { path: 'src/a.ts', action: 'delete' },
      { path: 'src/b.ts', action: 'write' },
    ]);
    expect(files('rename_file', { old_path: 'a.md', new_path: 'docs/a.md' })).toEqual([
      { path: 'a.md', action: 'delete' },
      { path: 'docs/a.md', action: 'write' },
    ]);
    expect(files('copy_file', { source: 'a.txt', destination: 'b.txt' })).toEqual([
      { path: 'a.txt', action: 'read' },
      { path: 'b.txt', action: 'write' },
    ]);
    // A tool that deletes lines edits its file.
    expect(files('delete_lines', { path: 'src/a.ts', start: 3, end: 5 })).not.toContainEqual({
      path: 'src/a.ts',
      action: 'delete',
    });
  });

  it("reads Gemini CLI's read_file by its absolute_path", () => {
    expect(toolActivity(newCall('read_file', { absolute_path: '/repo/src/app.ts' }), {}).files).toEqual([
      { path: '/repo/src/app.ts', action: 'read' },
    ]);
  });

  it("reads a list of paths (Gemini CLI's read_many_files), each file once, up to 20", () => {
    expect(toolActivity(newCall('read_many_files', { paths: ['src/a.ts', 'docs/b.md', '**'] }), {}).files).toEqual([
      { path: 'src/a.ts', action: 'read' },
      { path: 'docs/b.md', action: 'read' },
    ]);
    const many = Array.from({ length: 30 }, (_, i) => `src/m${i}.ts`);
    expect(toolActivity(newCall('read_many_files', { paths: many }), {}).files).toHaveLength(20);
    // A single path wins over a list (a search tool's `files` filter is not what it touched).
    expect(toolActivity(newCall('edit', { path: 'a.ts', files: ['b.ts'] }), {}).files).toEqual([
      { path: 'a.ts', action: 'edit' },
    ]);
  });

  it("reads SWE-agent's editing tools that name no file as edits of the file open (`insert`, `edit` by search)", () => {
    const state = {};
    expect(toolActivity(newCall('create', { filename: 'reproduce.py' }), state).files).toEqual([
      { path: 'reproduce.py', action: 'write' },
    ]);
    const insert = newCall('insert', { text: 'print(td_field.serialize("td_field", obj))' });
    const inserted = toolActivity(insert, state);
    expect(inserted.files).toEqual([{ path: 'reproduce.py', action: 'edit' }]);
    expect(
      describeCall(insert, inserted, callOutcome(inserted, { role: 'tool', content: '[File: reproduce.py]' })),
    ).toMatch(/^insert reproduce\.py \(text: 42 chars\) → ok/);
    toolActivity(newCall('open', { path: 'src/marshmallow/fields.py', line_number: 1474 }), state);
    expect(toolActivity(newCall('edit', { search: 'int(', replace: 'int(round(' }), state).files).toEqual([
      { path: 'src/marshmallow/fields.py', action: 'edit' },
    ]);
    // The file open before the messages read, looked up for the call.
    const earlier = { openedEarlier: () => 'src/a.py' };
    expect(toolActivity(newCall('insert', { text: 'x = 1' }), earlier).files).toEqual([
      { path: 'src/a.py', action: 'edit' },
    ]);
    // No file open: nothing to name; a tool that reads or runs is no edit of the open file.
    expect(toolActivity(newCall('insert', { text: 'x = 1' }), {}).files).toEqual([]);
    expect(toolActivity(newCall('scroll_down', {}), { lastOpened: 'src/a.py' }).files).toEqual([]);
    // A patch whose headers are not read names no file: not the one read last.
    expect(toolActivity(newCall('apply_patch', { input: 'garbled' }), { lastOpened: 'src/a.py' }).files).toEqual([]);
  });

  it('tells a command that shows only part of its output: a filter, a head or tail that filled its count', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join('\n');
    expect(outputMayBePartial('npm test', lines(500))).toBe(false);
    expect(outputMayBePartial('npm test 2>&1 | head -50', lines(50))).toBe(true);
    expect(outputMayBePartial('npm test 2>&1 | head -50', lines(12))).toBe(false);
    expect(outputMayBePartial('npm test 2>&1 | tail -n 20', lines(20))).toBe(true);
    expect(outputMayBePartial('npm test | tail', lines(10))).toBe(true); // 10 lines by default
    expect(outputMayBePartial('npm test | tail', lines(4))).toBe(false);
    expect(outputMayBePartial('cat big.log | head -c 300', 'x')).toBe(true);
    expect(outputMayBePartial('cd /repo && make 2>&1 | grep -i error', lines(1))).toBe(true);
    expect(outputMayBePartial('npm test 2>&1 | Select-Object -Last 30', lines(30))).toBe(true);
    // Quoted text is no pipe; `||` is no pipe.
    expect(outputMayBePartial('python -c "print(1) | grep x"', lines(1))).toBe(false);
    expect(outputMayBePartial('make || echo failed', lines(1))).toBe(false);
  });

  it('names a changed file after a command only when the command does not (relative to its directory, by name)', () => {
    const relative = toolActivity(newCall('bash', { command: "cd /repo && sed -i 's/a/b/' packages/x.ts" }), {});
    expect(relative.files).toEqual([{ path: '/repo/packages/x.ts', action: 'edit' }]);
    expect(relative.changesUnnamed).toBeUndefined();
    expect(relative.label).toBe("bash sed -i 's/a/b/' packages/x.ts");
    const range = toolActivity(newCall('bash', { command: 'edit 5:5\n    return x\nend_of_edit' }), {
      lastOpened: '/repo/src/a.py',
    });
    expect(range.changesUnnamed).toBe('/repo/src/a.py');
    expect(range.label).toBe('bash edit 5:5 on /repo/src/a.py');
  });

  it('describes such a call by its command, with its real outcome', () => {
    const c = newCall('shell', { command: ['bash', '-lc', 'pytest -q'] });
    const activity = toolActivity(c, {});
    const line = describeCall(c, activity, callOutcome(activity, { role: 'tool', content: 'Exit code: 1\n1 failed' }));
    expect(line).toMatch(/^shell `pytest -q` → exit 1/);
  });
});

describe('commandHead: the line a command is known by', () => {
  it('joins on what its first line leaves open: a continued line, an open quote, a message given by a heredoc', () => {
    expect(
      commandHead(
        'curl -s -X POST http://localhost:8000/ingest \\\n  -H "Content-Type: application/json" \\\n  -d \'{"q": 1}\'',
      ),
    ).toBe('curl -s -X POST http://localhost:8000/ingest -H "Content-Type: application/json" -d \'{"q": 1}\'');
    expect(commandHead('python3 -c "\nimport json\nprint(json.dumps({}))\n"')).toBe(
      'python3 -c "import json; print(json.dumps({}))"',
    );
    expect(commandHead('git add -A && git commit -m "$(cat <<\'EOF\'\nAdd the parser\n\nDetails.\nEOF\n)"')).toBe(
      'git add -A && git commit -m "Add the parser"',
    );
    expect(commandHead("python3 - <<'EOF'\nimport sys\nprint(sys.argv)\nEOF")).toBe(
      "python3 - <<'EOF' import sys print(sys.argv)",
    );
  });

  it("PowerShell's here-string given to a program: the program, then the script's first lines", () => {
    const script = [
      "@'",
      'from docx import Document',
      "doc = Document(r'C:\\work\\notes.docx')",
      "'@ | & 'C:\\rt\\python.exe' -",
      "Select-String -LiteralPath 'C:\\work\\notes.txt' -Pattern 'fiber' -Context 3,6",
    ].join('\n');
    expect(commandHead(script)).toBe(
      "'C:\\rt\\python.exe' - @' from docx import Document doc = Document(r'C:\\work\\notes.docx')",
    );
    // Its body is text, not commands; the line after it is one.
    expect(filesOfShellCommand(`${script}\nGet-Content -Path C:\\work\\out.txt`).files).toEqual([
      { path: 'C:\\work\\out.txt', action: 'read' },
    ]);
    expect(commandHead("$code = @'\nprint(1)\n'@\npython -c $code")).toBe("$code = @' print(1)");
    // A quoted string that ends with `@` opens nothing: the next line is a command.
    expect(commandHead("echo 'mail me@'\ncat notes/a.txt")).toBe("echo 'mail me@'");
    expect(filesOfShellCommand("echo 'mail me@'\ncat notes/a.txt").files).toEqual([
      { path: 'notes/a.txt', action: 'read' },
    ]);
  });

  it("skips a script's opening cd and leads with its comment; a file's heredoc and an editor's body stay content", () => {
    expect(commandHead('cd /repo/src\n\n# Fix the imports\nsed -i "s|a|b|" core/a.ts\necho done')).toBe(
      '# Fix the imports; sed -i "s|a|b|" core/a.ts',
    );
    expect(commandHead("cat > /tmp/fix.py << 'EOF'\nimport re\nEOF")).toBe("cat > /tmp/fix.py << 'EOF'");
    expect(commandHead('edit 5:5\n    x = 1\nend_of_edit')).toBe('edit 5:5');
    expect(commandHead('npm test')).toBe('npm test');
    // Only a script's first lines are read: 100,000 lines of comments and cd's are no more work than 400.
    expect(commandHead(`${'# step\ncd /repo\n'.repeat(50_000)}npm test`)).toBe('# step; cd /repo');
  });

  it('a wait or a directory change before a command is not part of it', () => {
    const run = (command: string) => toolActivity(newCall('Bash', { command }), {});
    expect(run('sleep 5 && docker compose exec api pytest tests/ -v').key).toBe(
      run('sleep 3 && docker compose exec api pytest tests/ -v').key,
    );
    expect(run('sleep 2; cd /repo && npm test').command).toBe('npm test');
  });

  it('six different `python3 -c` scripts are six commands, not one run six times', () => {
    const keys = [1, 2, 3, 4, 5, 6].map(
      (i) => toolActivity(newCall('Bash', { command: `python3 -c "\nprint(${i})\n"` }), {}).key,
    );
    expect(new Set(keys).size).toBe(6);
  });
});

describe('looksAround: commands that only list, search or show', () => {
  it.each([
    'ls -F',
    'cd /repo && ls',
    'find . -name "*.py"',
    'grep -rn foo src',
    'cat a.py | head',
    'open a.py 40',
    'grep -n "a > b" src/x.py 2>&1',
    'ls missing 2>/dev/null',
  ])('%s looks around', (command) => expect(looksAround(command)).toBe(true));
  it.each([
    'python reproduce.py',
    'npm test',
    'cd /repo && pytest -x',
    'sed -i s/a/b/ a.py',
    './build.sh',
    'git commit -m x',
    "cat > reproduce.py << 'EOF'\nprint(1)\nEOF",
    'echo "x = 1" >> config.py',
    'grep -l foo src | tee files.txt',
    'find . -name "*.pyc" -delete',
  ])('%s runs or changes something', (command) => expect(looksAround(command)).toBe(false));
});

describe('filesOfEditBlocks: files an agent without file tools edits in its text', () => {
  const block = (path: string, search: string) =>
    `${path}\n\`\`\`python\n<<<<<<< SEARCH\n${search}=======\nnew line\n>>>>>>> REPLACE\n\`\`\``;

  it('reads SEARCH/REPLACE blocks (an empty SEARCH writes a new file) and patches', () => {
    const text = [
      "I'll change the parser and add a test.",
      block('utils/dates.py', 'def parse_date(s):\n    return None\n'),
      block('`tests/test_dates.py`', ''),
      '```diff\n--- a/setup.cfg\n+++ b/setup.cfg\n@@ -1 +1 @@\n-a\n+b\n```',
    ].join('\n\n');
    expect(filesOfEditBlocks(text)).toEqual([
      { path: 'setup.cfg', action: 'edit' },
      { path: 'utils/dates.py', action: 'edit' },
      { path: 'tests/test_dates.py', action: 'write' },
    ]);
  });

  it('reads nothing from prose, a fence without a path above it, or a conflict marker in quoted output', () => {
    expect(
      filesOfEditBlocks('Here is the change:\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```'),
    ).toEqual([]);
    expect(filesOfEditBlocks('git says:\n<<<<<<< SEARCH\n=======\n')).toEqual([]);
    expect(filesOfEditBlocks('The parser lives in utils/dates.py.')).toEqual([]);
  });
});
