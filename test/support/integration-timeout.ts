// Integration tests talk to a real broker and database: allow them time (still bounded).
jest.setTimeout(120_000);
