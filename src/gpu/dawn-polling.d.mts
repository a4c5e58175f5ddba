/** Resolves once every Dawn poll scheduled before the call has run (dawn-polling.mjs). */
export function afterDawnPolls(): Promise<void>;

/** Polls Dawn every `ms` milliseconds (≥ 1) from the next poll on (dawn-polling.mjs). */
export function setDawnPollMs(ms: number): void;
