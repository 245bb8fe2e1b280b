import { replaySession, type DigestAnswer } from '../../tools/replay/replay';
import { agentTurn } from '../support/agent-turn';

/** The replay's digest summaries (the eval's --digest-model drives it with a real model; here the answers are given). */
describe('replay with digest summaries', () => {
  const session = { id: 'agent', messages: agentTurn(40, 6) };
  const options = { provider: 'local', contextWindow: 2_500, maxOutputTokens: 200, digestSummaries: true };

  it('lists the requests it has no answer for and leaves their notes in place', () => {
    const report = replaySession(session, options);
    expect(report.digestSummaries.requested).toBeGreaterThan(0);
    expect(report.digestSummaries.superseded).toBe(0);
    expect(report.digestSummaries.unanswered.length).toBeGreaterThan(0);
    expect(report.digestSummaries.unanswered.every((r) => r.supersedes?.stage === 'split-turn')).toBe(true);
    expect(report.blocks.some((b) => b.stage === 'summary')).toBe(false);
  });

  it('answered, each request supersedes its note; an offline answer or a failure leaves it; off, nothing is asked', () => {
    // Answer the requests one at a time, as eval --digest-model does, until none is left.
    const drive = (answer: () => DigestAnswer) => {
      const answers = new Map<string, DigestAnswer>();
      for (let i = 0; i < 50; i++) {
        const next = replaySession(session, { ...options, digestAnswers: answers }).digestSummaries.unanswered[0];
        if (!next) break;
        answers.set(next.requestId, answer());
      }
      return replaySession(session, { ...options, digestAnswers: answers });
    };
    const model = drive(() => ({
      summary: 'The agent ran the parser tests and edited the parser.',
      provider: 'local',
    }));
    expect(model.digestSummaries.unanswered).toEqual([]);
    expect(model.digestSummaries.superseded).toBeGreaterThan(0);
    expect(model.digestSummaries.superseded + model.digestSummaries.rejected).toBe(model.digestSummaries.requested);
    expect(model.summaries.completed).toBe(0); // no whole-turn summary in one turn: every summary block superseded a note
    expect(model.blocks.filter((b) => b.stage === 'summary').length).toBe(model.digestSummaries.superseded);
    expect(model.fits).toBe(true);
    expect(model.orphans).toBe(0);

    for (const answer of [{ summary: 'offline text', provider: 'offline' }, { failed: 'local: timeout' }]) {
      const left = drive(() => answer);
      expect(left.digestSummaries.superseded).toBe(0);
      expect(left.blocks.filter((b) => b.stage === 'summary')).toEqual([]);
    }
    const off = replaySession(session, { ...options, digestSummaries: false });
    expect(off.digestSummaries.requested).toBe(0);
  });
});
