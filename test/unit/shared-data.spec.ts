describe('the developer transcripts, found in one way', () => {
  const saved = process.env.CTXLEDGER_SHARED_DATA;
  afterEach(() => {
    if (saved === undefined) delete process.env.CTXLEDGER_SHARED_DATA;
    else process.env.CTXLEDGER_SHARED_DATA = saved;
  });

  it('a missing file fails with where it was looked for and what to do (never a skip)', () => {
    process.env.CTXLEDGER_SHARED_DATA = '/nowhere/sessions.jsonl';
    jest.isolateModules(() => {
      const { sharedSessions } = require('../support/shared-data') as typeof import('../support/shared-data');
      expect(() => sharedSessions()).toThrow(
        /no \/nowhere\/sessions\.jsonl.*put the file there or point CTXLEDGER_SHARED_DATA at it/,
      );
    });
  });

  it('reads ../shared/data/sessions.jsonl beside the repository by default: sessions with ids and messages', () => {
    delete process.env.CTXLEDGER_SHARED_DATA;
    jest.isolateModules(() => {
      const { sharedSessions, SHARED_DATA_FILE } =
        require('../support/shared-data') as typeof import('../support/shared-data');
      expect(SHARED_DATA_FILE).toMatch(/shared\/data\/sessions\.jsonl$/);
      const sessions = sharedSessions();
      expect(sessions.length).toBeGreaterThan(0);
      for (const s of sessions) expect(s.messages.length).toBeGreaterThan(0);
    });
  });
});
