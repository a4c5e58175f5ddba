/** Resolves once every Dawn poll scheduled before the call has run (dawn-polling.mjs). */
export function afterDawnPolls(): Promise<void>;
