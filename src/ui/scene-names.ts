/**
 * How a long name (a file's, in the panel's rows) is shortened to the room
 * it has. DOM-free.
 */

/**
 * `text` cut in the middle to the longest form that `fits` ("inria_ka…9k_sh3.ply"),
 * keeping a file's start and its extension; whole when it fits.
 */
export function ellipsizeMiddle(text: string, fits: (shown: string) => boolean): string {
  if (fits(text)) return text;
  const cut = (kept: number) => `${text.slice(0, Math.floor(kept / 2))}…${text.slice(text.length - Math.ceil(kept / 2))}`;
  // The most characters kept around the ellipsis that still fit (a binary search: fits is a measurement).
  let low = 0, high = text.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(cut(mid))) low = mid;
    else high = mid - 1;
  }
  return cut(low);
}
