/**
 * A V8 sampling heap profile (HeapProfiler.stopSampling's `profile`, from
 * Node's inspector or Chromium's DevTools protocol) summed: the bytes
 * sampled in all, and by the function that allocated them (its own bytes,
 * callees apart), named with its script and line, largest first. Used by
 * scripts/heap-allocations.mjs (a Node run) and scripts/page-main-thread.mjs
 * (the page).
 */
export function allocationsByFunction(profile, count = 20) {
  const bytes = new Map();
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const at = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
    bytes.set(at, (bytes.get(at) ?? 0) + node.selfSize);
    for (const child of node.children ?? []) walk(child);
  };
  walk(profile.head);
  const MB = (b) => Math.round(b / 1e4) / 100;
  const total = [...bytes.values()].reduce((sum, b) => sum + b, 0);
  return { totalBytes: total, sampledMB: MB(total), top: [...bytes].sort((a, b) => b[1] - a[1]).slice(0, count).map(([at, b]) => ({ at, MB: MB(b) })) };
}
