import { closingQuestionsOf, decisionsOf, proseOf, todoLinesOf } from './prose';

describe('what an assistant says in prose', () => {
  it('proseOf drops fenced and indented code', () => {
    expect(proseOf('We will use X.\n```ts\nconst decided = 1;\n```\n    indented();\nDone.')).toBe(
      'We will use X.\n\n\nDone.',
    );
  });

  it('decisionsOf keeps sentences that state a decision, within the length given', () => {
    const text =
      'I looked at the code. Let me switch to the streaming parser instead of the buffered one. Should we keep it? `x = 1;`';
    expect(decisionsOf(text, 200)).toEqual(['Switch to the streaming parser instead of the buffered one.']);
    expect(decisionsOf(text, 30)).toEqual([]);
  });

  it('decisionsOf keeps the findings too: why something happens, what the fix is', () => {
    const text = [
      'Let me run the tests again.',
      'The issue is that `__dirname` is now `utils/`, so `dirname(__dirname)` goes to `src/`.',
      'The build fails because the theme JSON is not copied to dist.',
      'The fix is simple: use `queueMessage` instead.',
      'I read the file.',
    ].join(' ');
    expect(decisionsOf(text, 200)).toEqual([
      'The issue is that `__dirname` is now `utils/`, so `dirname(__dirname)` goes to `src/`.',
      'The build fails because the theme JSON is not copied to dist.',
      'The fix is simple: use `queueMessage` instead.',
    ]);
  });

  it('decisionsOf leaves out short sentences that name nothing, and a sentence cut at its colon', () => {
    const text = [
      'That should work.',
      'Let me take a different approach.',
      'The issue is likely that:',
      'Use InteractiveMode instead of TuiRenderer.',
      'The color should be a function!',
    ].join('\n');
    expect(decisionsOf(text, 200)).toEqual([
      'Use InteractiveMode instead of TuiRenderer.',
      'The color should be a function!',
    ]);
  });

  it('decisionsOf leaves out what chooses nothing: a hope for the change, the next step of a search, the status', () => {
    const text = [
      'This should fix the syntax error.',
      'Everything should be working smoothly now.',
      'The theme should now look exactly like your screenshot!',
      'First we should find the `fields.py` file in the repository.',
      'Next, I will run this Python script to verify that the error is resolved.',
      'Now that the issue is fixed, we can submit the changes to the code base.',
      'This piecemeal approach is a mess.',
      // Kept: what is chosen, what is required, why — whatever else the sentence says.
      'The theme loader should catch this error gracefully instead of crashing.',
      '`unsubscribeAll()` should only disconnect from the agent, not clear the listeners.',
      'We should add a colon at the end of the `def division(a, b)` line.',
      'The build fails because the theme JSON is not copied, so I will run the copy step.',
    ].join('\n');
    expect(decisionsOf(text, 200)).toEqual([
      'The theme loader should catch this error gracefully instead of crashing.',
      '`unsubscribeAll()` should only disconnect from the agent, not clear the listeners.',
      'We should add a colon at the end of the `def division(a, b)` line.',
      'The build fails because the theme JSON is not copied, so I will run the copy step.',
    ]);
  });

  it('decisionsOf says what was decided, not the acknowledgement it opens with', () => {
    expect(
      decisionsOf("You're absolutely right - invalid themes should never crash the app, especially on startup!", 200),
    ).toEqual(['Invalid themes should never crash the app, especially on startup!']);
    expect(decisionsOf('Good catch, the cache must not outlive the session.', 200)).toEqual([
      'The cache must not outlive the session.',
    ]);
  });

  it('todoLinesOf takes open checkboxes, to-do sentences and the items under a to-do heading', () => {
    const text = [
      '- [x] done already',
      '- [ ] write the migration',
      'All tests pass. Next, update the changelog.',
      'Remaining work:',
      '1. **bump** the version',
      '- tag the release',
      'Unrelated line.',
      '- an aside',
    ].join('\n');
    expect(todoLinesOf(text)).toEqual([
      'write the migration',
      'Next, update the changelog.',
      'bump the version',
      'tag the release',
    ]);
  });

  it('todoLinesOf takes a bare "next" that leaves work, not one that orders what the code does', () => {
    const text = [
      'It returns a static page.Next, I will check the forms script.',
      'The next big task is WP15.',
      'Let me disassemble `FUN_0040060d` next.',
      'When `render()` is called next, the components rebuild with the new theme.',
      'Cycle to next model (uses scoped models if available).',
      'So `queueMessage()` injects them at the next turn.',
      'This ensures that on the next tick:',
      '- the selector is hidden before the theme changes',
    ].join('\n');
    expect(todoLinesOf(text)).toEqual([
      'It returns a static page.Next, I will check the forms script.',
      'The next big task is WP15.',
      'Let me disassemble `FUN_0040060d` next.',
    ]);
  });

  it('todoLinesOf reads a bold line as a heading, with or without its colon inside the bold', () => {
    const text = ['**Next steps (WP17-WP20):**', '- WP17: move the components', '- WP20: final cleanup', 'Done.'];
    expect(todoLinesOf(text.join('\n'))).toEqual(['WP17: move the components', 'WP20: final cleanup']);
    expect(todoLinesOf(['**Still to do**', '1. wire the CLI'].join('\n'))).toEqual(['wire the CLI']);
  });

  it('closingQuestionsOf keeps the questions among the last three sentences only', () => {
    expect(closingQuestionsOf('Is this early? One. Two. Three. Shall I commit it?')).toEqual(['Shall I commit it?']);
    expect(closingQuestionsOf('Done. All tests pass.')).toEqual([]);
  });
});
