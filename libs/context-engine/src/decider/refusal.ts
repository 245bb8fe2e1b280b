/** The text `evolve` keeps for a refusal (the stats' reason, and the refuse-once check of `decide`). */
export const refusalText = (reason: string, detail: string): string => `compaction refused (${reason}): ${detail}`;
